package physics_test

import (
	"math"
	"testing"

	"github.com/jakecoffman/cp/v2"

	"github.com/tandem-go/tandem/physics"
)

// A correction of a box resting on a floor keeps it from going into the
// floor, and from moving towards or away from it faster, but not along it
// nor up off it, nor through it, past the floor's far side; a box in the
// air takes it whole.
func TestAClampKeepsARestingBodyOnItsFloor(t *testing.T) {
	r := newRig(t, physics.Config{Gravity: cp.Vector{Y: 600}})
	r.s.StaticSegment(cp.Vector{X: -200, Y: 100}, cp.Vector{X: 200, Y: 100}, 1, ground)
	box := r.entity(0, 89)
	r.s.AttachBox(box, 20, 20, 0, physics.Material{Mass: 1, Friction: 1})
	flier := r.entity(100, -300)
	r.s.AttachBox(flier, 20, 20, 0, physics.Material{Mass: 1})
	for range 60 {
		r.tick()
	}
	near := func(x, y, wx, wy float64) bool { return math.Abs(x-wx) < 0.2 && math.Abs(y-wy) < 0.2 }
	if x, y := r.s.ClampPose(box, 3, 5); !near(x, y, 3, 0) {
		t.Errorf("a correction of (3, 5) of a box on the floor (+y down) became (%.2f, %.2f), want (3, 0): along the floor, not into it", x, y)
	}
	if x, y := r.s.ClampPose(box, 2, 8); !near(x, y, 2, 0) {
		t.Errorf("a correction of (2, 8) of a box on the floor became (%.2f, %.2f), want (2, 0): its centre stays above the floor", x, y)
	}
	// The host has it under the floor (a client's box squeezed through
	// a thin wall, the host's on the other side): taken whole.
	if x, y := r.s.ClampPose(box, 0, 30); !near(x, y, 0, 30) {
		t.Errorf("a correction of (0, 30) of a box on a thin floor, past its far side, became (%.2f, %.2f), want it whole", x, y)
	}
	if x, y := r.s.ClampPose(box, 0, -5); !near(x, y, 0, -5) {
		t.Errorf("a correction of (0, -5) lifting it became (%.2f, %.2f), want it whole", x, y)
	}
	if x, y := r.s.ClampVelocity(box, 3, -40); !near(x, y, 3, 0) {
		t.Errorf("a velocity correction of (3, -40) became (%.2f, %.2f), want (3, 0): the floor decides how fast it leaves it", x, y)
	}
	if x, y := r.s.ClampPose(flier, 3, 5); !near(x, y, 3, 5) {
		t.Errorf("a correction of a falling box became (%.2f, %.2f), want (3, 5)", x, y)
	}
	if x, y := r.s.ClampVelocity(flier, 3, 5); !near(x, y, 3, 5) {
		t.Errorf("a velocity correction of a falling box became (%.2f, %.2f), want (3, 5)", x, y)
	}
}
