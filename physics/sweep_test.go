package physics_test

import (
	"math"
	"testing"

	"github.com/jakecoffman/cp/v2"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// A move of a disc is swept along its path: it stops where the disc meets a
// wall or another body it moves into, with the normal of the surface met,
// including a wall its centre's line ends short of; it is taken whole away
// from the wall, along it, short of it, and past a sensor. Other static
// shapes far off (cp's index then looks shapes up by the centre's line)
// change nothing.
func TestClampTravelStopsAMoveAtWhatItMovesInto(t *testing.T) {
	r := newRig(t, physics.Config{})
	r.s.StaticSegment(cp.Vector{X: 100, Y: -500}, cp.Vector{X: 100, Y: 500}, 0, ground)
	r.s.StaticSegment(cp.Vector{X: -900, Y: 900}, cp.Vector{X: -800, Y: 900}, 0, ground) // far off
	r.s.StaticSegment(cp.Vector{X: 900, Y: -900}, cp.Vector{X: 950, Y: -900}, 0, ground) // far off
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
		nx, ny         float64
	}{
		{"into the wall", 200, 0, 90, 0, -1, 0},
		{"ending with the disc, not its centre, past the wall's face", 95, 0, 90, 0, -1, 0},
		{"into the wall at a slant", 180, 90, 90, 45, -1, 0},
		{"into the crate", -200, 0, -40, 0, 1, 0},
		{"short of the wall", 50, 0, 50, 0, 0, 0},
		{"along the wall, through a sensor", 0, 300, 0, 300, 0, 0},
		{"nothing", 0, 0, 0, 0, 0, 0},
	} {
		x, y, nx, ny := r.s.ClampTravel(disc, c.dx, c.dy)
		if !near(x, y, c.wx, c.wy) || !near(nx, ny, c.nx, c.ny) {
			t.Errorf("a move %s by (%v, %v) became (%.2f, %.2f), normal (%.2f, %.2f); want (%v, %v), normal (%v, %v)", c.what, c.dx, c.dy, x, y, nx, ny, c.wx, c.wy, c.nx, c.ny)
		}
	}
	// At the wall, a move along it is whole; into it, nothing.
	r.s.Move(disc, ecs.Transform{X: 90})
	if x, y, _, _ := r.s.ClampTravel(disc, 0, 50); !near(x, y, 0, 50) {
		t.Errorf("a move along the wall it touches became (%.2f, %.2f), want (0, 50)", x, y)
	}
	if x, y, _, _ := r.s.ClampTravel(disc, 30, 0); !near(x, y, 0, 0) {
		t.Errorf("a move into the wall it touches became (%.2f, %.2f), want none", x, y)
	}
	if x, y, _, _ := r.s.ClampTravel(disc, -30, 0); !near(x, y, -30, 0) {
		t.Errorf("a move away from the wall it touches became (%.2f, %.2f), want (-30, 0)", x, y)
	}
}

// A body of two circles, one 40 units ahead of its centre, stops where
// the one ahead meets the wall.
func TestClampTravelSweepsEachShapeOfABody(t *testing.T) {
	r := newRig(t, physics.Config{})
	r.s.StaticSegment(cp.Vector{X: 100, Y: -500}, cp.Vector{X: 100, Y: 500}, 0, ground)
	e := r.entity(0, 0)
	b := cp.NewBody(1, cp.MomentForCircle(1, 0, 10, cp.Vector{}))
	r.s.Attach(e, b, physics.Material{Mass: 1}, cp.NewCircle(b, 10, cp.Vector{}), cp.NewCircle(b, 10, cp.Vector{X: 40}))
	if x, y, _, _ := r.s.ClampTravel(e, 200, 0); math.Abs(x-50) > 0.01 || y != 0 {
		t.Errorf("a move of (200, 0) became (%.2f, %.2f), want (50, 0): the circle 40 ahead meets the wall at 100", x, y)
	}
}
