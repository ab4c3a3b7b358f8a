package interp

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// A game that stops drawing for a few seconds (a minimized window, a
// loading screen) while states keep arriving, their latency changing
// meanwhile, draws remote entities at its render delay from the first
// frame it draws again, neither far in the past nor ahead of the host. (The render clock's speed-up or slow-down, up to
// 10%, was applied to the whole time since the last frame drawn: after 8 s
// a 40 ms error became 0.8 s, and a trial's client drew 36 frames behind
// the host for seconds.)
func TestDrawingAgainAfterAPauseDrawsAtTheRenderDelay(t *testing.T) {
	for _, tc := range []struct {
		pause time.Duration
		loss  float64
	}{{2 * time.Second, 0}, {8 * time.Second, 0}, {8 * time.Second, 0.05}} {
		t.Run(fmt.Sprintf("pause%v-loss%v", tc.pause, tc.loss), func(t *testing.T) {
			r := newRig(t, Config{})
			m := mover{vx: 120}
			e := r.spawn(ecs.HostPeer, true, m.at(0))
			l := link{latency: 50 * time.Millisecond, jitter: 8 * time.Millisecond, loss: tc.loss, rng: rand.New(rand.NewPCG(5, 6))}
			const from = 10 * time.Second
			arrivals := l.sends(2, 60*30, 2)
			for k := range arrivals {
				if arrivals[k].at > from+time.Second {
					arrivals[k].at += 40 * time.Millisecond // the route got longer meanwhile
				}
			}
			sortArrivals(arrivals)
			behind := func() float64 {
				st := r.ip.Stats()
				return float64(st.Newest) - st.RenderFrame
			}
			i := 0
			var before float64
			dt := time.Second / 60
			for now := dt; now <= from+tc.pause+2*time.Second; now += dt {
				for i < len(arrivals) && arrivals[i].at <= now {
					r.clk.Advance(arrivals[i].at - r.clk.Now().Sub(t0))
					if f := arrivals[i].f; f > r.ip.Stats().Newest {
						r.apply(e, f, m.at(f))
					}
					i++
				}
				r.clk.Advance(now - r.clk.Now().Sub(t0))
				if now > from && now <= from+tc.pause {
					continue // not drawn
				}
				r.ip.Update(r.clk.Now())
				if now <= from {
					before = behind()
					continue
				}
				delay := r.ip.Stats().RenderDelay.Seconds() / step.Seconds()
				if b := behind(); b < 0 || b > 1.5*delay+1 {
					t.Fatalf("%v after drawing again: drawn %.1f frames behind the newest state (%.1f before the pause; the render delay is %.1f)",
						now-from-tc.pause, b, before, delay)
				}
			}
		})
	}
}
