package interp

import (
	"math"
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// A player standing still, then knocked back at 5 units a frame, is drawn
// still until the knock, not creeping toward where it lands from the last
// frame its stillness was known (the host sends nothing of it while it
// stands): its Velocity says how long the way took. Without a Velocity
// (IgnoreVelocity) it creeps as before.
func TestAKnockFromRestIsDrawnFromTheKnock(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		r := newRig(t, Config{IgnoreVelocity: ignore})
		bob := r.spawnMoving(ecs.Transform{}, ecs.Velocity{})
		other := r.spawn(2, true, ecs.Transform{})
		const knock = 197 // the host knocks bob at this frame: 5 units a frame from then on
		truth := func(f float64) float64 { return max(0, 5*(f-knock)) }
		worst, at := 0.0, 0.0
		r.play(link{latency: 30 * time.Millisecond}.sends(2, 300, 2), 120, 300*step, func(f ecs.Frame) {
			r.apply(other, f, ecs.Transform{Y: float64(f)}) // the world goes on: a state every send
			switch {
			case f == 100: // bob's last state standing
				r.apply(bob, f, ecs.Transform{})
			case f > knock:
				*(*ecs.Velocity)(r.w.Arche().Get(bob, r.w.IDs.Velocity)) = ecs.Velocity{X: 5 * 60}
				r.apply(bob, f, ecs.Transform{X: truth(float64(f))})
			}
		}, func(time.Duration) {
			rf := r.ip.RenderFrame()
			if rf < 150 || rf > knock {
				return
			}
			if d := r.pose(bob).X - truth(rf); d > worst {
				worst, at = d, rf
			}
		})
		switch {
		case !ignore && worst > 0.01:
			t.Fatalf("bob is drawn %.2f units along the knock at render frame %.1f, before the host knocked him at %d", worst, at, knock)
		case ignore && worst < 1:
			t.Fatalf("with IgnoreVelocity bob led the knock by %.2f units at most: the test does not show the creep", worst)
		}
	}
}

// A knock's hold keeps a Track's value with the pose: one that never
// changes (7) is drawn 7 throughout, not blended from another slot's.
func TestAKnockHoldsTheTracks(t *testing.T) {
	r := newRig(t, Config{})
	tr := NewTrack(r.ip, blendScale)
	bob := r.spawnMoving(ecs.Transform{}, ecs.Velocity{})
	r.w.Arche().Add(bob, tr.id)
	(*scale)(r.w.Arche().Get(bob, tr.id)).S = 7
	other := r.spawn(2, true, ecs.Transform{})
	const knock = 197
	worst := 0.0
	r.play(link{latency: 30 * time.Millisecond}.sends(2, 300, 2), 120, 300*step, func(f ecs.Frame) {
		r.apply(other, f, ecs.Transform{Y: float64(f)})
		switch {
		case f == 100:
			r.apply(bob, f, ecs.Transform{})
		case f > knock:
			*(*ecs.Velocity)(r.w.Arche().Get(bob, r.w.IDs.Velocity)) = ecs.Velocity{X: 5 * 60}
			r.apply(bob, f, ecs.Transform{X: 5 * float64(f-knock)})
		}
	}, func(time.Duration) {
		if r.ip.RenderFrame() < 150 {
			return
		}
		if s, ok := tr.Get(bob); ok {
			worst = max(worst, math.Abs(s.S-7))
		}
	})
	if worst > 1e-9 {
		t.Fatalf("the Track of 7 was drawn %.3f off around the knock", worst)
	}
}

// An entity whose Velocity says more than its Transform moves (one
// sliding along a wall, or a Velocity that means something else) and that
// was never still is drawn through lost states as before: blended from its
// last state, not held and then dashing.
func TestAFastVelocityDoesNotHoldAMover(t *testing.T) {
	worst := map[bool]float64{}
	for _, ignore := range []bool{false, true} {
		r := newRig(t, Config{IgnoreVelocity: ignore})
		e := r.spawnMoving(ecs.Transform{}, ecs.Velocity{X: 6 * 60}) // three times the 2 a frame it moves
		r.play(link{latency: 30 * time.Millisecond}.sends(2, 300, 2), 120, 300*step, func(f ecs.Frame) {
			if f >= 200 && f < 206 {
				return // three sends lost
			}
			r.apply(e, f, ecs.Transform{X: 2 * float64(f)})
		}, func(time.Duration) {
			if rf := r.ip.RenderFrame(); rf > 150 && rf < 250 {
				worst[ignore] = max(worst[ignore], math.Abs(r.pose(e).X-2*rf))
			}
		})
	}
	if worst[false] > worst[true]+0.01 {
		t.Fatalf("drawn %.2f units off with its Velocity, %.2f without", worst[false], worst[true])
	}
}

// A unit its owner is sent at every send, at rest in alike states, that
// moves while three of those sends are lost is drawn as one whose resting
// states differ by a hair: alike states a send apart say nothing of when it
// set off (only those sent in turn, further apart, do).
func TestAlikeStatesASendApartHoldNothing(t *testing.T) {
	worst := map[bool]float64{}
	for _, alike := range []bool{true, false} {
		r := newRig(t, Config{IgnoreVelocity: true})
		e := r.spawn(ecs.HostPeer, true, ecs.Transform{})
		truth := func(f float64) float64 { return max(0, 5*(f-199)) }
		r.play(link{latency: 30 * time.Millisecond}.sends(2, 300, 2), 120, 300*step, func(f ecs.Frame) {
			if f >= 200 && f < 206 {
				return // three sends lost
			}
			x := truth(float64(f))
			if !alike && f < 200 {
				x = 1e-6 * float64(f)
			}
			r.apply(e, f, ecs.Transform{X: x})
		}, func(time.Duration) {
			if rf := r.ip.RenderFrame(); rf > 190 && rf < 210 {
				worst[alike] = max(worst[alike], math.Abs(r.pose(e).X-truth(rf)))
			}
		})
	}
	if worst[true] > worst[false]+0.01 {
		t.Fatalf("drawn up to %.2f units off after alike states, %.2f after states a hair apart", worst[true], worst[false])
	}
}
