package interp

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// hitchSends returns the arrivals over link l of a host that sends every
// second frame and stalls for stall after frame at, then runs maxCatchUp
// frames at once and goes on from there: its later frames arrive
// stall − maxCatchUp steps later than before, for good.
func hitchSends(l link, at, last ecs.Frame, stall time.Duration, maxCatchUp ecs.Frame) []arrival {
	var out []arrival
	for _, a := range l.sends(2, last, 2) {
		switch f := a.f; {
		case f > at+maxCatchUp:
			a.at += stall - time.Duration(maxCatchUp)*step
		case f > at:
			a.at += time.Duration(at)*step + stall - time.Duration(f)*step
		}
		out = append(out, a)
	}
	sortArrivals(out)
	return out
}

// After a host stall longer than its catch-up, its frames arrive later for
// good: remote entities move again right after the stall, not seconds later,
// without a jump, and the render delay does not take the shift for jitter.
func TestHostHitchRecoversQuickly(t *testing.T) {
	for _, tc := range []struct {
		stall, jitter time.Duration
	}{
		{400 * time.Millisecond, 0},
		{700 * time.Millisecond, 0},
		{1500 * time.Millisecond, 0},
		{400 * time.Millisecond, 10 * time.Millisecond},
		{700 * time.Millisecond, 10 * time.Millisecond},
	} {
		t.Run(fmt.Sprintf("stall%v-jitter%v", tc.stall, tc.jitter), func(t *testing.T) {
			r := newRig(t, Config{})
			m := mover{vx: 120, vy: 30}
			e := r.spawn(ecs.HostPeer, true, m.at(0))
			const at, catchUp, hz = 600, 8, 144
			l := link{latency: 50 * time.Millisecond, jitter: tc.jitter, rng: rand.New(rand.NewPCG(21, 22))}
			resumed := time.Duration(at)*step + tc.stall + l.latency + tc.jitter
			var prev ecs.Transform
			var stuckSince, longest time.Duration
			var maxMove float64
			r.play(hitchSends(l, at, 1800, tc.stall, catchUp), hz, 30*time.Second, r.arrivals(e, m), func(now time.Duration) {
				p := r.pose(e)
				st := r.ip.Stats()
				if now > resumed {
					if st.Interpolating == 1 {
						stuckSince = 0
					} else if stuckSince == 0 {
						stuckSince = now
					} else {
						longest = max(longest, now-stuckSince)
					}
					maxMove = max(maxMove, dist(p, prev))
				}
				prev = p
			})
			st := r.ip.Stats()
			t.Logf("longest not interpolating after the stall %v; largest step %.2f; %+v", longest, maxMove, st)
			if longest > 250*time.Millisecond {
				t.Errorf("not drawn between states for %v after the host's stall ended", longest)
			}
			if limit := 2 * m.speed() / hz; maxMove > limit {
				t.Errorf("moved %.2f in one frame after the stall, limit %.2f", maxMove, limit)
			}
			if st.Reanchors != 1 {
				t.Errorf("Reanchors = %d, want 1", st.Reanchors)
			}
			if want := 2*2*step + 2*tc.jitter + 5*time.Millisecond; st.RenderDelay > want {
				t.Errorf("render delay %v long after the stall, want at most %v", st.RenderDelay, want)
			}
			if want := ecs.Blend(m.at(0), m.at(1), st.RenderFrame); dist(r.pose(e), want) > 1e-6 {
				t.Errorf("drawn %v, host path %v", r.pose(e), want)
			}
		})
	}
}

// A link that holds the host's datagrams for a while and then delivers them
// all at once delayed them; it did not shift the host's frames: the
// timeline is not set anew and the render clock does not jump.
func TestNetworkBurstIsNoHostHitch(t *testing.T) {
	r := newRig(t, Config{})
	m := mover{vx: 120}
	e := r.spawn(ecs.HostPeer, true, m.at(0))
	l := link{latency: 50 * time.Millisecond}
	arr := l.sends(2, 1200, 2)
	held := 10*time.Second + 400*time.Millisecond
	for i := range arr {
		if a := &arr[i]; a.at > 10*time.Second && a.at < held {
			a.at = held
		}
	}
	sortArrivals(arr)
	r.play(arr, 144, 20*time.Second, func(f ecs.Frame) { r.apply(e, f, m.at(f)) }, func(time.Duration) {})
	if st := r.ip.Stats(); st.Reanchors != 0 || st.Resyncs != 0 {
		t.Errorf("a delivery burst taken for a host hitch: %+v", st)
	}
	if want := ecs.Blend(m.at(0), m.at(1), r.ip.RenderFrame()); dist(r.pose(e), want) > 1e-6 {
		t.Errorf("drawn %v, host path %v", r.pose(e), want)
	}
}
