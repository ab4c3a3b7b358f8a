package interp

import (
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
