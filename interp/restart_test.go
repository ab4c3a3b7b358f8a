package interp

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// A host that starts its frames again from a low number is followed: after
// a send interval or two the entities are drawn from the new frames again.
func TestHostRestartIsFollowed(t *testing.T) {
	r := newRig(t, Config{})
	m := mover{vx: 100}
	e := r.spawn(ecs.HostPeer, true, m.at(0))
	l := link{latency: 40 * time.Millisecond}
	const last = 600
	restart := time.Duration(last)*step + 300*time.Millisecond // the host's frame 0
	arr := l.sends(2, last, 2)
	for _, a := range l.sends(2, 600, 2) {
		a.at += restart
		arr = append(arr, a)
	}
	after := m // the restarted host's entity starts over elsewhere
	after.y0 = 500
	r.play(arr, 144, 19*time.Second, func(f ecs.Frame) {
		if r.clk.Now().Sub(t0) >= restart {
			*r.transform(e) = after.at(f)
			r.ip.Applied(e, f)
			return
		}
		r.apply(e, f, m.at(f))
	}, func(now time.Duration) {
		if now < restart+time.Second {
			return
		}
		st := r.ip.Stats()
		if st.Newest > last || st.Interpolating != 1 {
			t.Fatalf("at %v, %v after the restart: newest frame %d, %+v", now, now-restart, st.Newest, st)
		}
		if want := ecs.Blend(after.at(0), after.at(1), st.RenderFrame); dist(r.pose(e), want) > 1e-6 {
			t.Fatalf("at %v: drawn %v, want %v on the restarted host's path", now, r.pose(e), want)
		}
	})
}

// Old datagrams that arrive very late, even several at once, are stale
// states, not a restart: nothing is forgotten.
func TestLateOldStatesAreNotARestart(t *testing.T) {
	r := newRig(t, Config{})
	m := mover{vx: 100}
	e := r.spawn(ecs.HostPeer, true, m.at(0))
	l := link{latency: 40 * time.Millisecond}
	arr := l.sends(2, 1200, 2)
	for _, f := range []ecs.Frame{100, 102, 104, 300} { // 100..104 in one burst
		at := 10 * time.Second
		if f == 300 {
			at = 12 * time.Second
		}
		arr = append(arr, arrival{at: at, f: f})
	}
	sortArrivals(arr)
	r.play(arr, 144, 16*time.Second, r.arrivals(e, m), func(now time.Duration) {
		if now < 2*time.Second {
			return
		}
		st := r.ip.Stats()
		if st.Interpolating != 1 || st.Newest < 100 {
			t.Fatalf("at %v: %+v", now, st)
		}
		if want := ecs.Blend(m.at(0), m.at(1), st.RenderFrame); dist(r.pose(e), want) > 1e-6 {
			t.Fatalf("at %v: drawn %v, want %v", now, r.pose(e), want)
		}
	})
	if st := r.ip.Stats(); st.Stale != 4 {
		t.Errorf("Stale = %d, want the 4 late states", st.Stale)
	}
}
