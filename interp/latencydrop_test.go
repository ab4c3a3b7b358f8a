package interp

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// A link whose latency falls (a route that got shorter, a congested queue
// that drained) brings the host's frames earlier for good: the timeline is
// set anew, and the render clock, now further behind its target than it
// need be, catches up within MaxDilation rather than jumping there: a
// remote body is drawn moving at its speed within that, never held for a
// frame and then hurried (a jump of the render clock forward is drawn as
// one, or as a rush toward where the clock now is). From further back than
// the states an entity keeps reach (a drop of 380 ms), the clock jumps to
// their reach first, and nothing is drawn from before its oldest state.
func TestLatencyDropIsCaughtUpNotJumped(t *testing.T) {
	for _, tc := range []struct {
		from, jitter time.Duration
		jumps        uint64 // the render clock's jumps: one to the states' reach from far behind
	}{
		{100 * time.Millisecond, 0, 0},
		{100 * time.Millisecond, 10 * time.Millisecond, 0},
		{400 * time.Millisecond, 0, 1},
	} {
		t.Run(fmt.Sprintf("from%v-jitter%v", tc.from, tc.jitter), func(t *testing.T) {
			r := newRig(t, Config{})
			m := mover{vx: 2400}
			e := r.spawn(ecs.HostPeer, true, m.at(0))
			const at, hz = 600, 60
			rng := rand.New(rand.NewPCG(31, 32))
			slow := link{latency: tc.from, jitter: tc.jitter, rng: rng}
			fast := link{latency: 20 * time.Millisecond, jitter: tc.jitter, rng: rng}
			arr := append(slow.sends(2, at, 2), fast.sends(at+2, 1800, 2)...)
			sortArrivals(arr)
			dropped := time.Duration(at)*step + fast.latency
			var prev ecs.Transform
			var prevFrame float64
			var jumps uint64
			slowest, fastest, before := m.speed(), 0.0, 0
			r.play(arr, hz, 30*time.Second, r.arrivals(e, m), func(now time.Duration) {
				p := r.pose(e)
				st := r.ip.Stats()
				if now > dropped-time.Second && now < dropped+5*time.Second {
					if st.Before > 0 {
						before++ // drawn from before its oldest state
					}
					if st.Resyncs > jumps {
						jumps = st.Resyncs // the one jump allowed: not a frame's motion
					} else {
						speed := dist(p, prev) * hz
						slowest, fastest = min(slowest, speed), max(fastest, speed)
						if d, limit := r.ip.RenderFrame()-prevFrame, 1.1/hz/step.Seconds()+1e-6; d > limit {
							t.Errorf("at %v the render clock moved %.2f frames in one of %v", now, d, time.Second/hz)
						}
					}
				}
				prev, prevFrame = p, r.ip.RenderFrame()
			})
			st := r.ip.Stats()
			t.Logf("drawn speed %.0f–%.0f (the body's %.0f); %+v", slowest, fastest, m.speed(), st)
			if st.Reanchors != 1 {
				t.Errorf("Reanchors = %d, want 1: the drop is to be taken as a shift, not jitter", st.Reanchors)
			}
			if st.Resyncs != tc.jumps {
				t.Errorf("the render clock jumped %d times, want %d", st.Resyncs, tc.jumps)
			}
			if before > 0 {
				t.Errorf("drawn from before its oldest state in %d frames: the clock stayed further back than the states reach", before)
			}
			// (After a jump, the body slides from where it was drawn to its
			// place, as after any jump of the clock: faster, for a while.)
			if lo, hi := (1-0.1)*m.speed()-1, (1+0.1)*m.speed()+1; tc.jumps == 0 && (slowest < lo || fastest > hi) {
				t.Errorf("drawn moving at %.0f–%.0f units/s across the drop, want within %.0f–%.0f (the body's %.0f, MaxDilation 0.1)", slowest, fastest, lo, hi, m.speed())
			}
			if want := 2*2*step + 2*tc.jitter + 5*time.Millisecond; st.RenderDelay > want {
				t.Errorf("render delay %v long after the drop, want at most %v", st.RenderDelay, want)
			}
			if want := ecs.Blend(m.at(0), m.at(1), st.RenderFrame); dist(r.pose(e), want) > 1e-6 {
				t.Errorf("drawn %v, host path %v", r.pose(e), want)
			}
		})
	}
}
