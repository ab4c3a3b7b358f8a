package physics_test

import (
	"testing"
	"time"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// A body that falls asleep is at rest: its Velocity is zero, and reported.
// cp puts a body to sleep once it has moved slower than the idle speed for
// the sleep time, and leaves it the velocity it had: a box settled on
// another under gravity kept reporting a few tenths of a unit a second for
// as long as it slept (in a platformer trial), and a client never took it
// for at rest.
func TestABodyThatFallsAsleepIsAtRest(t *testing.T) {
	r := newRig(t, physics.Config{Gravity: cp.Vector{Y: 600}, SleepTime: 200 * time.Millisecond})
	floor := r.entity(0, 100)
	r.s.AttachBox(floor, 400, 20, 0, physics.Material{Static: true})
	low := r.entity(0, 70)
	r.s.AttachBox(low, 40, 40, 0, physics.Material{Mass: 1, Friction: 0.5})
	high := r.entity(12, 28)
	r.s.AttachBox(high, 40, 40, 0, physics.Material{Mass: 1, Friction: 0.5})
	asleep := false
	for i := 0; i < 600 && !asleep; i++ {
		r.tick()
		asleep = r.s.BodyOf(high).IsSleeping()
	}
	if !asleep {
		t.Fatal("the stacked box never fell asleep")
	}
	r.tick()
	for _, c := range []struct {
		what string
		e    arche.Entity
	}{{"the low box", low}, {"the high box", high}} {
		v := *(*ecs.Velocity)(r.w.Arche().Get(c.e, r.w.IDs.Velocity))
		t.Logf("%s asleep: Velocity %v (its body's %v)", c.what, v, r.s.BodyOf(c.e).Velocity())
		if v != (ecs.Velocity{}) {
			t.Errorf("%s fell asleep with Velocity %v, not at rest", c.what, v)
		}
		if !r.s.BodyOf(c.e).IsSleeping() {
			t.Errorf("%s woke", c.what)
		}
	}
}
