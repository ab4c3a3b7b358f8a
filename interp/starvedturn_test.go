package interp

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// A unit that turned at its newest state (a creep at a corner), whose next
// states a full budget holds back (HeldBack) and a loss drops, is drawn
// walking on by its new velocity, as one whose states agree is: held after
// MaxExtrapolation, it was drawn standing a few units past its corner while
// the host walked it on (a tower-defense trial at 5% loss: 163 units
// behind).
func TestATurnedUnitAFullBudgetHoldsBackWalksOn(t *testing.T) {
	for _, told := range []bool{true, false} {
		t.Run(fmt.Sprintf("told-%v", told), func(t *testing.T) {
			r := newRig(t, Config{})
			const speed, corner = 2.0, ecs.Frame(100) // units a frame; the corner's frame
			truth := func(f float64) ecs.Transform {
				if f <= float64(corner) {
					return ecs.Transform{X: speed * f}
				}
				return ecs.Transform{X: speed * float64(corner), Y: speed * (f - float64(corner))}
			}
			e := r.spawnMoving(truth(2), ecs.Velocity{X: speed * 60})
			r.apply(e, 2, truth(2))
			worst := 0.0
			r.play(link{}.sends(4, 200, 2), 60, 200*step, func(f ecs.Frame) {
				if told && f%16 == 0 {
					r.ip.HeldBack(f, 500, 16)
				}
				switch {
				case f <= 96 || f == 104:
					if f == 104 {
						*(*ecs.Velocity)(r.w.Arche().Get(e, r.w.IDs.Velocity)) = ecs.Velocity{Y: speed * 60}
					}
					r.apply(e, f, truth(float64(f)))
				default:
					r.ip.Heard(f) // held back: the state of frame f came without it
				}
			}, func(now time.Duration) {
				if rf := r.ip.RenderFrame(); rf > 110 && rf < 150 {
					p, h := r.pose(e), truth(rf)
					worst = max(worst, math.Hypot(p.X-h.X, p.Y-h.Y))
				}
			})
			switch {
			case told && worst > 1:
				t.Fatalf("drawn up to %.1f units from the host's pose after its turn", worst)
			case !told && worst < 10:
				t.Fatalf("without the host's word drawn within %.1f units: the test does not show it held", worst)
			}
		})
	}
}
