package physics_test

import (
	"math"
	"testing"

	"github.com/jakecoffman/cp/v2"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// A move of a disc is swept along its path: it stops where the disc meets a
// wall it moves into, and is taken whole away from the wall, along it, past
// a crate (a dynamic body) and past a sensor; nothing is allocated.
func TestClampTravelStopsAMoveAtTheWallItMovesInto(t *testing.T) {
	r := newRig(t, physics.Config{})
	r.s.StaticSegment(cp.Vector{X: 100, Y: -500}, cp.Vector{X: 100, Y: 500}, 0, ground)
	disc := r.entity(0, 0)
	r.s.AttachCircle(disc, 10, physics.Material{Mass: 1})
	crate := r.entity(-60, 0)
	r.s.AttachBox(crate, 20, 20, 0, physics.Material{Mass: 1})
	sensor := r.s.StaticSegment(cp.Vector{X: 0, Y: 40}, cp.Vector{X: 50, Y: 40}, 0, ground)
	sensor.SetSensor(true)
	near := func(x, y, wx, wy float64) bool { return math.Abs(x-wx) < 0.01 && math.Abs(y-wy) < 0.01 }
	for _, c := range []struct {
		what           string
		dx, dy, wx, wy float64
	}{
		{"into the wall", 200, 0, 90, 0},
		{"into the wall at a slant", 180, 90, 90, 45},
		{"short of the wall", 50, 0, 50, 0},
		{"away from the wall, through a crate", -200, 0, -200, 0},
		{"along the wall, through a sensor", 0, 300, 0, 300},
		{"nothing", 0, 0, 0, 0},
	} {
		if x, y := r.s.ClampTravel(disc, c.dx, c.dy); !near(x, y, c.wx, c.wy) {
			t.Errorf("a move %s by (%v, %v) became (%.2f, %.2f), want (%v, %v)", c.what, c.dx, c.dy, x, y, c.wx, c.wy)
		}
	}
	// At the wall, a move along it is whole; into it, nothing.
	r.s.Move(disc, ecs.Transform{X: 90})
	if x, y := r.s.ClampTravel(disc, 0, 50); !near(x, y, 0, 50) {
		t.Errorf("a move along the wall it touches became (%.2f, %.2f), want (0, 50)", x, y)
	}
	if x, y := r.s.ClampTravel(disc, 30, 0); !near(x, y, 0, 0) {
		t.Errorf("a move into the wall it touches became (%.2f, %.2f), want none", x, y)
	}
}
