package interp

import (
	"fmt"
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// A unit walking on at one velocity whose states come further apart than
// it is dead-reckoned (an owner's unit in AuthStates that share a full
// budget: one every 40 frames), with every other send heard, is drawn
// walking on: never moved back. (Each long gap had it drawn still at its
// last state until the newest frame heard in the gap, so the drawing, run
// ahead by its velocity, slid 18 units back and then rushed on.)
func TestAUnitWalkingOnSentSeldomIsNeverDrawnGoingBack(t *testing.T) {
	for _, every := range []ecs.Frame{40, 48} {
		t.Run(fmt.Sprintf("every-%d", every), func(t *testing.T) {
			r := newRig(t, Config{})
			m := mover{x0: -200, vx: 60}
			e := r.spawnMoving(m.at(0), ecs.Velocity{X: m.vx})
			l := link{latency: 60 * time.Millisecond}
			var prev ecs.Transform
			back, drawn := 0, 0
			worst := 0.0
			var last ecs.Frame
			r.play(l.sends(2, 1200, 2), 120, 1220*step, func(f ecs.Frame) {
				if f%every == 0 {
					r.apply(e, f, m.at(f))
					last = f
				} else {
					r.ip.Heard(f)
				}
			}, func(now time.Duration) {
				p := r.pose(e)
				if drawn > 0 && now > 2*time.Second && last < 1200 {
					if d := p.X - prev.X; d < -1e-9 {
						back++
						worst = max(worst, -d)
					}
				}
				prev = p
				drawn++
			})
			if back != 0 {
				t.Fatalf("of %d frames drawn, %d moved the unit back (%.2f units at most)", drawn, back, worst)
			}
		})
	}
}
