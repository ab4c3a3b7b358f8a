package physics_test

import (
	"math"
	"testing"

	"github.com/tandem-go/tandem/physics"
)

// A correction by nothing of a body pressed against another leaves its
// next step as it was: against a heavy dynamic box (a crate a player
// pushes) and against a static wall, the push apart its contact gave it
// is kept. (Dropped, the body sank into what it pressed by its velocity's
// step, and a client's next state corrected it again.)
func TestACorrectionByNothingLeavesAPressedBodyAsItWas(t *testing.T) {
	for _, c := range []struct {
		what string
		mat  physics.Material
	}{
		{"a heavy box", physics.Material{Mass: 50, Velocity: physics.GroundFriction(800)}},
		{"a wall", physics.Material{Static: true}},
	} {
		t.Run(c.what, func(t *testing.T) {
			pressed := func(correct bool) float64 {
				r := newRig(t, physics.Config{})
				other := r.entity(100, 0)
				r.s.AttachBox(other, 20, 200, 0, c.mat)
				disc := r.entity(70, 0)
				r.s.AttachCircle(disc, 10, physics.Material{Mass: 1})
				for range 60 {
					press(r, disc)
					r.tick()
				}
				if correct {
					r.s.CorrectPose(disc, 0, 0, 0)
				}
				press(r, disc)
				r.tick()
				return r.transform(disc).X - r.transform(other).X
			}
			still, corrected := pressed(false), pressed(true)
			t.Logf("a step after: %.4f from its centre, corrected by nothing %.4f", still, corrected)
			if math.Abs(corrected-still) > 1e-9 {
				t.Errorf("corrected by nothing, the disc stepped to %.4f from the centre of %s, not %.4f", corrected, c.what, still)
			}
		})
	}
}

// A correction that takes a body pressed against a wall out of it takes
// the push out of it its contact gave it by as much: by more than the
// push, none is left; along the wall, all of it is. (Kept whole, a rider
// the host put a hair higher on a moving lift was pushed up past it by
// the push its deeper overlap gave it, at every correction.)
func TestACorrectionOutOfAWallTakesThePushOutByAsMuch(t *testing.T) {
	const dt = 1.0 / 60
	// pressed presses a disc against a wall at x 90 (its face) for 60
	// steps, corrects it by dx, dy, and returns its push at the next step.
	pressed := func(dx, dy float64) float64 {
		r := newRig(t, physics.Config{})
		_, disc := wallAndDisc(r, 70)
		r.s.Push(disc) // its steps keep their pushes from now on
		for range 60 {
			press(r, disc)
			r.tick()
		}
		r.s.CorrectPose(disc, dx, dy, 0)
		press(r, disc)
		r.tick()
		x, _, _ := r.s.Push(disc)
		return x
	}
	push := pressed(0, 0)
	if push >= 0 {
		t.Fatalf("pressed against the wall at its right, the disc's push is %.3f, not out of it (to the left)", push)
	}
	out := -push * dt // how far its push takes it out of the wall
	if got := pressed(-2*out, 0); got != 0 {
		t.Errorf("taken out of the wall by twice its push, the disc was pushed %.3f units a second more", got)
	}
	if got := pressed(-out/2, 0); math.Abs(got-push/2) > 1e-6 {
		t.Errorf("taken out of the wall by half its push, the disc was pushed %.3f units a second, not %.3f", got, push/2)
	}
	if got := pressed(0, 0.5); math.Abs(got-push) > 1e-6 {
		t.Errorf("moved along the wall, the disc was pushed %.3f units a second, not %.3f", got, push)
	}
}

// A correction of a body pressed against a dynamic body that was put
// somewhere since the last step (Move: a client's remote body, put on the
// host's state) keeps none of the push that contact gave it: where they
// touch now is not where the step left them. (Kept, a player shoving
// another's disc, which her client puts on the host's state at every step,
// was corrected by 8 units or more about 1.7 times as often.)
func TestACorrectionAgainstABodyPutSinceKeepsNoPushFromIt(t *testing.T) {
	pushed := func(put bool) float64 {
		r := newRig(t, physics.Config{})
		box := r.entity(100, 0)
		r.s.AttachBox(box, 20, 200, 0, physics.Material{Mass: 50, Velocity: physics.GroundFriction(800)})
		disc := r.entity(70, 0)
		r.s.AttachCircle(disc, 10, physics.Material{Mass: 1})
		r.s.Push(disc) // its steps keep their pushes from now on
		for range 60 {
			press(r, disc)
			r.tick()
		}
		if put {
			r.s.Move(box, r.transform(box))
		}
		r.s.CorrectPose(disc, 0, 0, 0)
		press(r, disc)
		r.tick()
		x, _, _ := r.s.Push(disc)
		return x
	}
	kept, put := pushed(false), pushed(true)
	t.Logf("the disc's push at the step after its correction: %.3f units a second, %.3f with the box put since", kept, put)
	if kept >= 0 {
		t.Fatalf("pressed against the box at its right, the disc's push is %.3f, not out of it (to the left)", kept)
	}
	if put != 0 {
		t.Errorf("against a box put since the last step, the corrected disc was pushed %.3f units a second", put)
	}
}
