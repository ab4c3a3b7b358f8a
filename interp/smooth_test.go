package interp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// An entity moving at constant speed, updated at 30 Hz over a jittery link, is
// drawn moving smoothly at any display rate: between two drawn frames it never
// moves more than its speed allows (plus the render clock's bounded
// dilation), never backwards, and it is always interpolated, never held.
func TestDrawnMotionIsSmooth(t *testing.T) {
	for _, tc := range []struct {
		hz     float64
		jitter time.Duration
		loss   float64
		seed   uint64
	}{
		{60, 20 * time.Millisecond, 0, 1},
		{144, 20 * time.Millisecond, 0, 2},
		{240, 20 * time.Millisecond, 0, 3},
		{144, 30 * time.Millisecond, 0.05, 4},
		{240, 30 * time.Millisecond, 0.05, 5},
	} {
		t.Run(fmt.Sprintf("%gHz-jitter%v-loss%g", tc.hz, tc.jitter, tc.loss), func(t *testing.T) {
			r := newRig(t, Config{})
			r.ip.SetLoss(tc.loss)
			m := mover{x0: 10, y0: 20, vx: 300, vy: -150, w: 4}
			e := r.spawn(ecs.HostPeer, true, m.at(0))
			l := link{latency: 50 * time.Millisecond, jitter: tc.jitter, loss: tc.loss, rng: rand.New(rand.NewPCG(tc.seed, 7))}
			arrivals := l.sends(2, 60*20, 2)
			dt := 1 / tc.hz
			const margin = 0.12 // render clock dilation (10%) and rounding
			warm := 3 * time.Second
			var prev ecs.Transform
			var prevRender float64
			var applied ecs.Transform
			frames := 0
			r.play(arrivals, tc.hz, 19*time.Second, func(f ecs.Frame) {
				if f > r.ip.Stats().Newest || r.ip.Stats().States == 0 {
					applied = m.at(f)
					r.apply(e, f, applied) // the replicator applies only fresh states
				} else {
					r.ip.Applied(e, f) // a reordered one: Transform keeps the newer state
				}
			}, func(now time.Duration) {
				p := r.pose(e)
				st := r.ip.Stats()
				if *r.transform(e) != applied && st.States > 0 {
					t.Fatalf("Update wrote Transform: %v, want %v", *r.transform(e), applied)
				}
				if now > warm {
					frames++
					if st.Interpolating != 1 {
						t.Fatalf("at %v: entity not interpolated: %+v", now, st)
					}
					d := dist(p, prev)
					if limit := m.speed() * dt * (1 + margin); d > limit {
						t.Fatalf("at %v: drawn pose moved %.3f in one frame, limit %.3f (%v → %v)", now, d, limit, prev, p)
					}
					if p.X < prev.X {
						t.Fatalf("at %v: drawn pose went backwards: %v → %v", now, prev, p)
					}
					if da := math.Abs(ecs.AngleDiff(prev.Angle, p.Angle)); da > m.w*dt*(1+margin) {
						t.Fatalf("at %v: drawn angle turned %.4f in one frame, limit %.4f", now, da, m.w*dt*(1+margin))
					}
					if adv := (st.RenderFrame - prevRender) * step.Seconds() / dt; adv < 1-margin || adv > 1+margin {
						t.Fatalf("at %v: render clock ran at %.3f× real time", now, adv)
					}
					// Drawn where the host was at the render frame.
					want := ecs.Blend(m.at(0), m.at(1), st.RenderFrame)
					if d := dist(p, want); d > 1e-6 {
						t.Fatalf("at %v: drawn %v, host was at %v at frame %.3f", now, p, want, st.RenderFrame)
					}
				}
				prev = p
				prevRender = st.RenderFrame
			})
			if frames < int(15*tc.hz) {
				t.Fatalf("only %d frames checked", frames)
			}
			t.Logf("%+v", r.ip.Stats())
			if st := r.ip.Stats(); st.Extrapolations != 0 || st.Holds != 0 || st.Resyncs != 0 {
				t.Errorf("extrapolated or held on a healthy link: %+v", st)
			}
		})
	}
}
