package physics_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/jakecoffman/cp/v2"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// Carry takes a body where the Space's steps would, its Material's Velocity
// function applied at each: a crate sliding on GroundFriction is carried to
// where it stops, not on past it in a straight line, and ends with the
// velocity the steps leave it; a body with no Velocity of its own goes in a
// straight line. The body's own velocity is not touched.
func TestCarryGoesWhereTheStepsGo(t *testing.T) {
	for _, damping := range []float64{1, 0.75} {
		t.Run(fmt.Sprint("damping ", damping), func(t *testing.T) { carryAsStepped(t, damping) })
	}
}

func carryAsStepped(t *testing.T, damping float64) {
	r := newRig(t, physics.Config{Damping: damping})
	e := r.entity(0, 0)
	r.s.AttachBox(e, 20, 20, 0, physics.Material{Mass: 1, Velocity: physics.GroundFriction(300)})
	start, v := ecs.Transform{X: 10, Y: 20}, ecs.Velocity{X: 200, Y: -50}
	physics.SetPose(r.w, e, start)
	physics.SetVelocity(r.w, e, v)
	b := r.s.BodyOf(e)
	for _, steps := range []int{1, 6, 12, 60} {
		dt := float64(steps) * r.s.StepSeconds()
		b.SetForce(cp.Vector{X: 7})
		pose, vel := r.s.Carry(e, start, v, dt)
		if got := b.Velocity(); got.X != v.X || got.Y != v.Y || b.Force().X != 7 {
			t.Fatalf("Carry changed the body's velocity to %v, its force to %v", got, b.Force())
		}
		b.SetForce(cp.Vector{})
		// The same slide, stepped by the Space from the same state.
		physics.SetPose(r.w, e, start)
		physics.SetVelocity(r.w, e, v)
		for range steps {
			r.sched.Step()
		}
		p, sv := b.Position(), b.Velocity()
		if d := math.Hypot(pose.X-p.X, pose.Y-p.Y); d > 1e-6 || math.Abs(vel.X-sv.X) > 1e-6 || math.Abs(vel.Y-sv.Y) > 1e-6 {
			t.Fatalf("carried %d steps to %+v at %+v; the steps took it to %v at %v", steps, pose, vel, p, sv)
		}
		if straight := start.X + v.X*dt; steps == 60 && straight-pose.X < 20 {
			t.Fatalf("a second of sliding carried it to x = %.1f, a straight line to %.1f: not slowed", pose.X, straight)
		}
		physics.SetPose(r.w, e, start)
		physics.SetVelocity(r.w, e, v)
	}
	plain := r.entity(500, 0)
	r.s.AttachCircle(plain, 5, physics.Material{Mass: 1})
	if pose, vel := r.s.Carry(plain, ecs.Transform{X: 500}, ecs.Velocity{X: 30}, 0.5); pose.X != 515 || vel.X != 30 {
		t.Fatalf("a body of cp's own integration carried to %+v at %+v, want x = 515 at 30", pose, vel)
	}
}
