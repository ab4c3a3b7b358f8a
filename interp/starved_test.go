package interp

import (
	"fmt"
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// Units a full budget holds back (the host saying so every 16 frames,
// HeldBack) are drawn walking on, never moved back: one walking whose
// states come further and further apart (its turn later each time), and
// one that stood still and comes walking after a long silence, whose
// velocity says it set off long before MaxDeferral ahead of that state.
// Without the host's word (the budget's silence taken for rest), each was
// drawn still at its last state once twice MaxDeferral passed, then slid
// back to it; and the one that set off was drawn still until MaxDeferral
// before its state, rushing to it and on past the host's at that speed.
func TestUnitsAFullBudgetHoldsBackAreNeverDrawnGoingBack(t *testing.T) {
	for _, told := range []bool{true, false} {
		for _, c := range []struct {
			name  string
			still bool        // it stood until frame 100, then walked
			sent  []ecs.Frame // its states, past its first
		}{
			{"walking", false, []ecs.Frame{40, 120, 240, 400, 600, 840}},
			{"setting-off", true, []ecs.Frame{260, 420, 600, 840}},
		} {
			t.Run(fmt.Sprintf("%s/told-%v", c.name, told), func(t *testing.T) {
				r := newRig(t, Config{})
				const speed = 2.0 // units a frame
				truth := func(f ecs.Frame) float64 {
					if c.still {
						return speed * float64(max(f, 100)-100)
					}
					return speed * float64(f)
				}
				v0 := ecs.Velocity{X: speed * 60}
				if c.still {
					v0 = ecs.Velocity{}
				}
				e := r.spawnMoving(ecs.Transform{X: truth(2)}, v0)
				r.apply(e, 2, ecs.Transform{X: truth(2)})
				next := 0
				back, worst, ahead := 0, 0.0, 0.0
				prev := -1.0
				r.play(link{latency: 40 * time.Millisecond}.sends(4, 900, 2), 60, 920*step, func(f ecs.Frame) {
					if told && f%16 == 0 {
						r.ip.HeldBack(f, 500, 16)
					}
					if next < len(c.sent) && f == c.sent[next] {
						*(*ecs.Velocity)(r.w.Arche().Get(e, r.w.IDs.Velocity)) = ecs.Velocity{X: speed * 60}
						r.apply(e, f, ecs.Transform{X: truth(f)})
						next++
						return
					}
					r.ip.Heard(f) // the state of frame f came, without it
				}, func(now time.Duration) {
					rf := r.ip.RenderFrame()
					if rf < 10 || rf > 840 {
						return
					}
					x := r.pose(e).X
					if prev >= 0 && x < prev-1e-9 {
						back++
						worst = max(worst, prev-x)
					}
					ahead = max(ahead, x-truth(ecs.Frame(rf+1)))
					prev = x
				})
				switch {
				case told && (back != 0 || ahead > 1):
					t.Fatalf("drawn going back %d times (%.2f units at most), and up to %.2f units ahead of the host", back, worst, ahead)
				case !told && back == 0:
					t.Fatal("without the host's word the unit was never drawn going back: the test does not show the silence taken for rest")
				}
			})
		}
	}
}

// A link that goes dark while the host's word that its budget is full
// stands ends the word on the client's clock: no newer frame comes to end
// it, and a walking entity is then held where its guess ended, as without
// the word, not carried on for as long as the link stays dark. A word of 0
// ends it at once.
func TestAFullBudgetsWordEndsWhenTheLinkGoesDark(t *testing.T) {
	for _, zero := range []bool{false, true} {
		r := newRig(t, Config{})
		e := r.spawnMoving(ecs.Transform{}, ecs.Velocity{X: 2 * 60})
		r.apply(e, 2, ecs.Transform{X: 4})
		most := 0.0
		r.play(link{latency: 40 * time.Millisecond}.sends(4, 300, 2), 60, 1200*step, func(f ecs.Frame) {
			if f%16 == 0 {
				held := 500
				if zero && f >= 288 {
					held = 0
				}
				r.ip.HeldBack(f, held, 16)
			}
			if f%80 == 0 {
				r.apply(e, f, ecs.Transform{X: 2 * float64(f)})
				return
			}
			r.ip.Heard(f)
		}, func(time.Duration) {
			most = max(most, r.pose(e).X)
		})
		// Its last state is of frame 240: at most its states' gap and
		// twice MaxDeferral on, and the word's second, past it.
		if limit := 2 * float64(240+80+32+64); most > limit {
			t.Fatalf("word of 0 at the end: %v; the walking entity was carried to x = %.0f after the link went dark; want at most %.0f", zero, most, limit)
		}
	}
}
