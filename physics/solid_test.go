package physics_test

import (
	"math"
	"testing"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// A body taken out of the space (SetSolid false) is passed through: a disc
// rolling at it goes on where it stopped against it, a sweep does not meet
// it, a crate resting on it falls, and it keeps moving itself. Put back, it
// blocks again; removed while out, it leaves nothing behind.
func TestABodyNotSolidIsPassedThrough(t *testing.T) {
	roll := func(solid bool) (x float64, sweep float64) {
		r := newRig(t, physics.Config{})
		wall, disc := wallAndDisc(r, 0)
		if !solid {
			r.s.SetSolid(wall, false)
		}
		if got := r.s.Solid(wall); got != solid {
			t.Fatalf("Solid says %v after SetSolid(%v)", got, solid)
		}
		sweep, _, _, _ = r.s.ClampTravel(disc, 300, 0)
		r.s.SetVelocity(disc, ecs.Velocity{X: 300})
		for range 60 {
			r.tick()
		}
		return r.transform(disc).X, sweep
	}
	if x, sweep := roll(true); x > 80.5 || math.Abs(sweep-80) > 0.01 {
		t.Fatalf("against a solid wall at 90 the disc reached %.1f, a sweep %.1f; want both stopped at 80", x, sweep)
	}
	if x, sweep := roll(false); x < 250 || sweep != 300 {
		t.Errorf("through a wall not solid the disc reached %.1f, a sweep %.1f; want past it", x, sweep)
	}

	// Taken out by a collision callback, during the step, when the disc
	// meets it (the callback lets the contact pass), or by a post-step
	// callback it adds, as cp asks changes to be made: out once the step
	// has returned, and the disc goes on. So is a body whose entity a
	// post-step callback removes: gone from the space.
	for _, post := range []bool{false, true} {
		r := newRig(t, physics.Config{})
		wall, disc := wallAndDisc(r, 0)
		r.s.BodyOf(disc).EachShape(func(sh *cp.Shape) { sh.SetCollisionType(7) })
		crate := r.entity(300, 300)
		r.s.AttachBox(crate, 20, 20, 0, physics.Material{Mass: 1})
		crateBody := r.s.BodyOf(crate)
		r.s.CP().NewWildcardCollisionHandler(7).BeginFunc = func(_ *cp.Arbiter, sp *cp.Space, _ any) bool {
			if !post {
				r.s.SetSolid(wall, false)
				return false
			}
			sp.AddPostStepCallback(func(*cp.Space, any, any) {
				r.s.SetSolid(wall, false)
				r.w.Arche().RemoveEntity(crate)
			}, nil, nil)
			return false
		}
		r.s.SetVelocity(disc, ecs.Velocity{X: 300})
		for range 60 {
			r.tick()
		}
		if x := r.transform(disc).X; r.s.Solid(wall) || x < 150 {
			t.Errorf("a wall taken out when the disc met it (post-step %v): Solid %v, the disc at %.1f", post, r.s.Solid(wall), x)
		}
		if post && r.s.CP().ContainsBody(crateBody) {
			t.Error("the body of an entity a post-step callback removed is still in the space")
		}
	}

	// A crate resting on a body falls once the body is out, and the body
	// moves on by its own velocity.
	r := newRig(t, physics.Config{Gravity: cp.Vector{Y: 400}})
	floor := r.entity(0, 100)
	r.s.AttachBox(floor, 400, 20, 0, physics.Material{Kinematic: true})
	crate := r.entity(0, 80)
	r.s.AttachBox(crate, 20, 20, 0, physics.Material{Mass: 1})
	for range 120 {
		r.tick()
	}
	rest := r.transform(crate).Y
	r.s.SetSolid(floor, false)
	r.s.SetSolid(floor, false) // what already is: nothing
	r.s.SetVelocity(floor, ecs.Velocity{X: 60})
	for range 30 {
		r.tick()
	}
	if fell := r.transform(crate).Y - rest; fell < 20 {
		t.Errorf("the crate fell %.1f units in half a second off a floor taken out of the space", fell)
	}
	if x := r.transform(floor).X; math.Abs(x-30) > 0.5 {
		t.Errorf("the floor taken out of the space moved to x %.1f at 60 units/s for half a second, want 30", x)
	}

	// Put back, it blocks again; a body removed while out leaves nothing.
	r.s.SetSolid(floor, true)
	probe := r.entity(0, 0)
	r.s.AttachCircle(probe, 10, physics.Material{Mass: 1})
	if _, y, _, _ := r.s.ClampTravel(probe, 0, 200); !r.s.Solid(floor) || math.Abs(y-80) > 0.01 {
		t.Errorf("put back (Solid %v), the floor's top at 90 stopped a sweep down at %.1f, want 80", r.s.Solid(floor), y)
	}
	crateBody := r.s.BodyOf(crate)
	r.s.SetSolid(crate, false)
	r.w.Arche().RemoveEntity(crate)
	for range 10 {
		r.tick()
	}
	if r.s.CP().ContainsBody(crateBody) {
		t.Error("a crate removed while out of the space left its body in it")
	}
}

// Swept says whether a body moved from a pose passed through another's,
// out of the space or in it.
func TestSweptFindsWhatWentThroughABody(t *testing.T) {
	r := newRig(t, physics.Config{})
	wall := r.entity(100, 0)
	r.s.AttachBox(wall, 20, 200, 0, physics.Material{Static: true})
	r.s.SetSolid(wall, false)
	past := r.entity(150, 0)
	r.s.AttachCircle(past, 10, physics.Material{Mass: 1})
	beside := r.entity(70, -80)
	r.s.AttachCircle(beside, 10, physics.Material{Mass: 1})
	r.tick()
	if !r.s.Swept(past, wall, ecs.Transform{X: 40}) {
		t.Error("a body moved from x 40 to 150 did not pass through the wall at 100")
	}
	if r.s.Swept(past, wall, ecs.Transform{X: 130}) {
		t.Error("a body moved from x 130 to 150 passed through the wall at 100")
	}
	if r.s.Swept(beside, wall, ecs.Transform{X: 70, Y: 80}) {
		t.Error("a body moved along the wall, short of it, passed through it")
	}
	r.s.SetSolid(wall, true)
	if !r.s.Swept(past, wall, ecs.Transform{X: 40}) {
		t.Error("put back, the wall was not passed through from x 40 to 150")
	}
}

// A body pressed against a wall, its velocity into it added to at every
// step, moves at the next step as if it had not been moved when
// MoveKeepingPush puts it where it is; Move drops the contact's push and
// the body sinks into the wall by its velocity's step.
func TestMoveKeepingPushKeepsAPressedBodyWhereItWas(t *testing.T) {
	pressed := func(move func(r *rig, e arche.Entity)) float64 {
		r := newRig(t, physics.Config{})
		_, disc := wallAndDisc(r, 70)
		for range 60 {
			press(r, disc)
			r.tick()
		}
		if move != nil {
			move(r, disc)
		}
		press(r, disc)
		r.tick()
		return r.transform(disc).X
	}
	still := pressed(nil)
	kept := pressed(func(r *rig, e arche.Entity) { r.s.MoveKeepingPush(e, r.transform(e)) })
	moved := pressed(func(r *rig, e arche.Entity) { r.s.Move(e, r.transform(e)) })
	t.Logf("a step after: not moved %.3f, MoveKeepingPush %.3f, Move %.3f", still, kept, moved)
	if math.Abs(kept-still) > 1e-9 {
		t.Errorf("put where it was with MoveKeepingPush, the body stepped to %.3f, not moved to %.3f", kept, still)
	}
	if moved-still < 0.5 {
		t.Errorf("the test shows nothing: put where it was with Move, the body stepped to %.3f, not moved to %.3f", moved, still)
	}
}

// A body that touched another and moved away from it, or along it, did
// not pass through it.
func TestSweptAwayFromABodyIsNotThroughIt(t *testing.T) {
	r := newRig(t, physics.Config{})
	wall, disc := wallAndDisc(r, 20)
	r.tick()
	if r.s.Swept(disc, wall, ecs.Transform{X: 80}) {
		t.Error("a disc moved from touching the wall at x 80 back to 20 passed through it")
	}
	r.s.SetSolid(wall, false)
	if r.s.Swept(disc, wall, ecs.Transform{X: 80}) {
		t.Error("out of the space, the same")
	}
}

// A body put back where it was at a step, with its velocity then and the
// push its next step took (Push, given back with SetPush), steps as it did:
// a replay of a body pressed against a wall from a recorded frame. Without
// the push it sinks into the wall by its velocity's step.
func TestSetPushGivesAReplayedStepItsPush(t *testing.T) {
	r := newRig(t, physics.Config{})
	_, disc := wallAndDisc(r, 70)
	type rec struct {
		pose        ecs.Transform
		vel         ecs.Velocity
		x, y, angle float64
	}
	var recs []rec
	for range 60 {
		pose, vel := r.transform(disc), press(r, disc)
		r.tick()
		x, y, a := r.s.Push(disc)
		recs = append(recs, rec{pose: pose, vel: vel, x: x, y: y, angle: a})
	}
	want := r.transform(disc).X // after the last step
	replay := func(givePush bool) float64 {
		last := recs[len(recs)-1]
		r.s.Move(disc, last.pose)
		r.s.SetVelocity(disc, last.vel)
		if givePush {
			r.s.SetPush(disc, last.x, last.y, last.angle)
		}
		r.tick()
		return r.transform(disc).X
	}
	if got := replay(true); math.Abs(got-want) > 1e-9 {
		t.Errorf("replayed with its push, the last step took the disc to %.4f, first to %.4f", got, want)
	}
	if got := replay(false); got-want < 0.5 {
		t.Errorf("the test shows nothing: replayed without its push, the disc went to %.4f, first to %.4f", got, want)
	}
}

// wallAndDisc gives rig r a static wall, 20 units wide and 200 tall, about
// x 100, and a disc of radius 10 at x (y 0), and returns both.
func wallAndDisc(r *rig, x float64) (wall, disc arche.Entity) {
	wall = r.entity(100, 0)
	r.s.AttachBox(wall, 20, 200, 0, physics.Material{Static: true})
	disc = r.entity(x, 0)
	r.s.AttachCircle(disc, 10, physics.Material{Mass: 1})
	return wall, disc
}

// press adds 50 units a second towards the wall to the disc's velocity, up
// to 200 (a player walking into it, each step), and returns the velocity
// set.
func press(r *rig, disc arche.Entity) ecs.Velocity {
	v := ecs.Velocity{X: min(200, r.s.BodyOf(disc).Velocity().X+50)}
	r.s.SetVelocity(disc, v)
	return v
}
