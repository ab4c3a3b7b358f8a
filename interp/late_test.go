package interp

import (
	"math"
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// When the states stop coming, a moving entity goes on along its last
// velocity for MaxExtrapolation, then holds where that took it; when they
// come again it slides onto the host's path without a jump. (It slid back
// to its newest state, going back while the host's went on.)
func TestLateUpdateExtrapolatesThenHolds(t *testing.T) {
	r := newRig(t, Config{})
	m := mover{vx: 240, vy: 60, w: 1}
	e := r.spawn(ecs.HostPeer, true, m.at(0))
	l := link{latency: 40 * time.Millisecond}
	const lastBefore, firstAfter = 300, 360 // one second without states
	arr := append(l.sends(2, lastBefore, 2), l.sends(firstAfter, 900, 2)...)
	maxExt := r.ip.Config().MaxExtrapolation.Seconds() / step.Seconds()
	var prev ecs.Transform
	var maxStep float64
	sawExtrapolating, sawHolding := false, false
	newest := m.at(lastBefore)
	limit := ecs.Blend(m.at(0), m.at(1), lastBefore+maxExt)
	r.play(arr, 144, 15*time.Second, func(f ecs.Frame) { r.apply(e, f, m.at(f)) }, func(now time.Duration) {
		p := r.pose(e)
		st := r.ip.Stats()
		rf := st.RenderFrame
		switch {
		case rf > lastBefore && rf <= lastBefore+maxExt && st.Newest == lastBefore:
			sawExtrapolating = true
			if st.Extrapolating != 1 {
				t.Fatalf("render frame %.2f, newest %d: not extrapolating: %+v", rf, st.Newest, st)
			}
			if want := ecs.Blend(m.at(0), m.at(1), rf); dist(p, want) > 1e-6 {
				t.Fatalf("extrapolated to %v, want %v on the same line", p, want)
			}
		case rf > lastBefore+maxExt && st.Newest == lastBefore:
			if st.Holding != 1 {
				t.Fatalf("render frame %.2f: not holding: %+v", rf, st)
			}
			// Where the extrapolation ended, not going back.
			if dist(p, limit) > 1e-6 {
				t.Fatalf("drawn at %v, %.2f from where the extrapolation ended %v (the newest state %v)", p, dist(p, limit), limit, newest)
			}
			sawHolding = true
		}
		if now > time.Second {
			maxStep = max(maxStep, dist(p, prev))
		}
		prev = p
	})
	if !sawExtrapolating || !sawHolding {
		t.Fatalf("extrapolating seen %v, holding seen %v", sawExtrapolating, sawHolding)
	}
	st := r.ip.Stats()
	if st.Extrapolations != 1 || st.Holds != 1 {
		t.Errorf("extrapolations %d, holds %d, want 1 each", st.Extrapolations, st.Holds)
	}
	// Back on the host's path once the offset has decayed.
	if want := ecs.Blend(m.at(0), m.at(1), st.RenderFrame); dist(r.pose(e), want) > 1e-3 || st.Offsets != 0 {
		t.Errorf("drawn %v, host path %v, offsets %d", r.pose(e), want, st.Offsets)
	}
	// The catch-up after the gap (the host went a second further than the
	// held pose) is spread over frames: no frame jumps a large part of it.
	gap := m.speed() * float64(firstAfter-lastBefore) * step.Seconds()
	if maxStep > gap/8 {
		t.Errorf("largest step between drawn frames %.1f units; the gap of %.1f was not smoothed", maxStep, gap)
	}
}

// An entity that stops is not extrapolated past where it stopped: newer
// states of other entities show that it did not move.
func TestStoppedEntityDoesNotOvershoot(t *testing.T) {
	r := newRig(t, Config{})
	busy := mover{vx: 100}
	stopper := mover{vx: 300, vy: 100}
	const stopAt = 240
	a := r.spawn(ecs.HostPeer, true, busy.at(0))
	b := r.spawn(ecs.HostPeer, true, stopper.at(0))
	final := stopper.at(stopAt)
	l := link{latency: 50 * time.Millisecond}
	var prev ecs.Transform
	r.play(l.sends(2, 1200, 2), 144, 15*time.Second, func(f ecs.Frame) {
		r.apply(a, f, busy.at(f))
		if f <= stopAt { // the host sends b only while it changes
			r.apply(b, f, stopper.at(f))
		}
	}, func(now time.Duration) {
		p := r.pose(b)
		if p.X > final.X+1e-9 || p.Y > final.Y+1e-9 {
			t.Fatalf("at %v (render frame %.2f): stopped entity drawn at %v, beyond where it stopped %v", now, r.ip.RenderFrame(), p, final)
		}
		if now > time.Second && dist(p, prev) > stopper.speed()/144*1.12 {
			t.Fatalf("at %v: moved %.3f in a frame", now, dist(p, prev))
		}
		prev = p
	})
	if p := r.pose(b); p != final {
		t.Errorf("stopped entity drawn at %v, want %v", p, final)
	}
	if st := r.ip.Stats(); st.Resting != 1 || st.Extrapolations != 0 {
		t.Errorf("want one entity resting and none extrapolated: %+v", st)
	}
}

// An entity that rested (nothing sent for it) and starts to move is drawn at
// rest until at most MaxDeferral before its first new state (the host may
// have held its first small changes back that long), not creeping across the
// whole silence.
func TestEntityStartingFromRestDoesNotCreep(t *testing.T) {
	r := newRig(t, Config{})
	busy := mover{vx: 100}
	const startAt = 300 // b moves from this frame on
	b0 := ecs.Transform{X: 500, Y: 500}
	bAt := func(f ecs.Frame) ecs.Transform {
		if f <= startAt {
			return b0
		}
		return ecs.Transform{X: b0.X + 200*float64(f-startAt)*step.Seconds(), Y: b0.Y}
	}
	a := r.spawn(ecs.HostPeer, true, busy.at(0))
	b := r.spawn(ecs.HostPeer, true, b0)
	l := link{latency: 50 * time.Millisecond}
	deferral := ecs.Frame(r.ip.Config().MaxDeferral / step)
	const first = startAt + 2 // b's first state after its rest
	var prev ecs.Transform
	r.play(l.sends(2, 900, 2), 144, 12*time.Second, func(f ecs.Frame) {
		r.apply(a, f, busy.at(f))
		if f == 2 || f > startAt {
			r.apply(b, f, bAt(f))
		}
	}, func(now time.Duration) {
		p := r.pose(b)
		rf := r.ip.RenderFrame()
		if rf <= float64(first-deferral) && p != b0 {
			t.Fatalf("render frame %.2f: resting entity drawn at %v, want %v", rf, p, b0)
		}
		// Its speed, plus what an offset catching up with its first move
		// (drawn still while the host may already have moved it) decays by.
		catchUp := dist(bAt(first), b0) * (1 - math.Exp2(-1.0/144/r.ip.Config().HalfLife.Seconds()))
		if now > time.Second && dist(p, prev) > 200.0/144*1.12+catchUp {
			t.Fatalf("render frame %.2f: moved %.3f in a frame", rf, dist(p, prev))
		}
		prev = p
	})
	if p, want := r.pose(b), bAt(0); p == want {
		t.Errorf("entity never moved")
	}
}

// A teleport (Interpolated.Snap) is drawn as exactly one jump, when the
// render frame reaches it; Snap is consumed.
func TestSnapIsNotBlended(t *testing.T) {
	for _, byDistance := range []bool{false, true} {
		cfg := Config{}
		if byDistance {
			cfg.SnapDistance = 300
		}
		r := newRig(t, cfg)
		m := mover{vx: 120}
		const snapAt = 400
		at := func(f ecs.Frame) ecs.Transform {
			p := m.at(f)
			if f >= snapAt {
				p.X -= 1000
			}
			return p
		}
		e := r.spawn(ecs.HostPeer, true, at(0))
		l := link{latency: 50 * time.Millisecond}
		var prev ecs.Transform
		var prevRF float64
		jumps := 0
		r.play(l.sends(2, 900, 2), 240, 12*time.Second, func(f ecs.Frame) {
			*r.transform(e) = at(f)
			if f == snapAt && !byDistance {
				r.interpolated(e).Snap = true
			}
			r.ip.Applied(e, f)
			if r.interpolated(e).Snap {
				t.Fatal("Snap not cleared by Applied")
			}
		}, func(now time.Duration) {
			p := r.pose(e)
			rf := r.ip.RenderFrame()
			if now > time.Second {
				if d := dist(p, prev); d > m.speed()/240*1.12 {
					jumps++
					if d < 990 || !(prevRF < snapAt && rf >= snapAt) {
						t.Fatalf("jump of %.1f between render frames %.3f and %.3f; want one of ~1000 crossing %d", d, prevRF, rf, snapAt)
					}
				}
			}
			prev, prevRF = p, rf
		})
		if jumps != 1 {
			t.Errorf("snap by distance %v: %d jumps, want exactly 1", byDistance, jumps)
		}
		if st := r.ip.Stats(); st.Snaps != 1 {
			t.Errorf("Snaps = %d, want 1", st.Snaps)
		}
	}
}

// A state older than the newest one held is ignored.
func TestStaleStateIgnored(t *testing.T) {
	r := newRig(t, Config{})
	e := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	r.apply(e, 10, ecs.Transform{X: 10})
	r.apply(e, 12, ecs.Transform{X: 12})
	*r.transform(e) = ecs.Transform{X: 12} // the replicator does not apply the old state
	r.ip.Applied(e, 11)
	if st := r.ip.Stats(); st.Stale != 1 || st.States != 3 {
		t.Fatalf("stats %+v, want 1 stale of 3", st)
	}
	s, _ := r.w.NetSlot(e)
	sl := *r.ip.slot(s)
	if frames, _ := r.ip.ring(s); sl.n != 2 || frames[sl.head] != 12 {
		t.Fatalf("ring %+v changed by a stale state", sl)
	}
}

func TestReceivedBetween(t *testing.T) {
	c := Config{}
	c.defaults()
	tl := newTimeline(&c)
	for _, f := range []ecs.Frame{2, 4, 8, 10} {
		tl.arrive(f, t0)
	}
	tl.arrive(6, t0) // reordered
	for _, tc := range []struct {
		lo, hi ecs.Frame
		want   ecs.Frame
		ok     bool
	}{
		{2, 10, 8, true}, {2, 8, 6, true}, {2, 4, 0, false}, {4, 6, 0, false}, {0, 3, 2, true}, {8, 10, 0, false},
	} {
		got, ok := tl.receivedBetween(tc.lo, tc.hi)
		if got != tc.want || ok != tc.ok {
			t.Errorf("receivedBetween(%d, %d) = %d, %v; want %d, %v", tc.lo, tc.hi, got, ok, tc.want, tc.ok)
		}
	}
	// Far ahead: old frames are forgotten, not mistaken for new ones.
	tl.arrive(10+window+2, t0)
	if k, ok := tl.receivedBetween(0, 10+window+2); ok {
		t.Errorf("frame %d still remembered after the window moved on", k)
	}
	if math.IsNaN(tl.offset) {
		t.Fatal("offset NaN")
	}
}

// An entity extrapolated through a stall that turns out to have stopped
// (later states come without it) slides back to where it stopped instead of
// jumping there.
func TestExtrapolatedEntityThatStoppedSlidesBack(t *testing.T) {
	r := newRig(t, Config{})
	busy := mover{vx: 100}
	stopper := mover{vx: 300}
	const stopAt, resume = 300, 360
	a := r.spawn(ecs.HostPeer, true, busy.at(0))
	b := r.spawn(ecs.HostPeer, true, stopper.at(0))
	l := link{latency: 50 * time.Millisecond}
	arr := append(l.sends(2, stopAt, 2), l.sends(resume, 900, 2)...)
	overshoot := stopper.speed() * r.ip.Config().MaxExtrapolation.Seconds()
	var prev ecs.Transform
	var maxStep, maxX float64
	r.play(arr, 144, 10*time.Second, func(f ecs.Frame) {
		r.apply(a, f, busy.at(f))
		if f <= stopAt {
			r.apply(b, f, stopper.at(f))
		}
	}, func(now time.Duration) {
		p := r.pose(b)
		if now > time.Second {
			maxStep = max(maxStep, dist(p, prev))
		}
		maxX = max(maxX, p.X)
		prev = p
	})
	final := stopper.at(stopAt)
	if maxX < final.X+overshoot*0.99 {
		t.Fatalf("never extrapolated through the stall: max x %.1f, stop %.1f", maxX, final.X)
	}
	if p := r.pose(b); dist(p, final) > 1e-3 {
		t.Errorf("drawn at %v, want %v where it stopped", p, final)
	}
	if maxStep > overshoot/4 {
		t.Errorf("jumped %.1f in one frame going back over the %.1f it was extrapolated", maxStep, overshoot)
	}
}
