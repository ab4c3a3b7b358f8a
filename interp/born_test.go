package interp

import (
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// An entity the host made in play (Born) is not drawn before the render
// frame reaches its first state, then drawn moving from there, never held
// still at it; one that entered the client's interest (no Born) is drawn at
// once.
func TestBornEntityIsDrawnFromItsMaking(t *testing.T) {
	r := newRig(t, Config{})
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	shot := mover{x0: -1000, vx: 600} // 10 units a host frame
	const made = ecs.Frame(300)
	l := link{latency: 40 * time.Millisecond}
	var fired, entered arche.Entity
	hidden, early, drawn, still, enteredHidden := 0, 0, 0, 0, 0
	var last ecs.Transform
	r.play(l.sends(2, 600, 2), 120, 6*time.Second, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		switch {
		case f == made:
			fired = r.spawn(ecs.HostPeer, true, shot.at(f))
			r.apply(fired, f, shot.at(f))
			r.ip.Born(fired, f)
			entered = r.spawn(ecs.HostPeer, true, shot.at(f))
			r.apply(entered, f, shot.at(f))
		case f > made:
			r.apply(fired, f, shot.at(f))
			r.apply(entered, f, shot.at(f))
		}
	}, func(time.Duration) {
		if fired == (arche.Entity{}) {
			return
		}
		rf := r.ip.Stats().RenderFrame
		if _, ok := r.ip.Pose(entered, 0); !ok {
			enteredHidden++
		}
		p, ok := r.ip.Pose(fired, 0)
		if !ok {
			if rf >= float64(made) {
				t.Fatalf("at render frame %.2f, past its making (%d), the shot is not drawn", rf, made)
			}
			hidden++
			early = max(early, r.ip.Stats().Early)
			return
		}
		if rf < float64(made) {
			t.Fatalf("at render frame %.2f the shot, made at %d, is drawn at %v", rf, made, p)
		}
		want := shot.at(0)
		want.X += shot.vx * rf * step.Seconds()
		if d := dist(p, want); d > 0.01 {
			t.Fatalf("at render frame %.2f the shot is drawn at x = %.2f, %.2f from where it was then", rf, p.X, d)
		}
		if drawn > 0 && p == last {
			still++
		}
		last = p
		drawn++
	})
	if hidden == 0 || drawn < 100 {
		t.Fatalf("the shot was hidden for %d drawn frames and drawn for %d: want some of each", hidden, drawn)
	}
	if early != 1 {
		t.Fatalf("Stats.Early counted %d entities while the shot waited, want 1", early)
	}
	if still != 0 {
		t.Fatalf("the shot was drawn still for %d drawn frames while it flew", still)
	}
	if enteredHidden != 0 {
		t.Fatalf("the entity that entered (no Born) was hidden for %d drawn frames, want drawn at once", enteredHidden)
	}
	if got := r.ip.Stats().Early; got != 0 {
		t.Fatalf("Stats.Early is %d once the render frame passed the making, want 0", got)
	}
}

// A removed entity is drawn (Drawing) until the render frame reaches its
// removal, and no longer once the newest frame heard is past it by more
// than the render delay and two send intervals, drawn or not; one
// simulated here is not drawn to a removal.
func TestDrawingToARemoval(t *testing.T) {
	r := newRig(t, Config{})
	e := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	local := r.spawn(1, false, ecs.Transform{})
	const gone = ecs.Frame(300)
	l := link{latency: 40 * time.Millisecond}
	sawDrawing, sawDone := false, false
	r.play(l.sends(2, 400, 2), 60, 400*step, func(f ecs.Frame) {
		r.apply(e, f, ecs.Transform{X: float64(f)})
	}, func(time.Duration) {
		rf := r.ip.Stats().RenderFrame
		if rf == 0 {
			return // the render clock not started yet
		}
		drawing := r.ip.Drawing(e, gone)
		if drawing != (rf < float64(gone)) {
			t.Fatalf("at render frame %.2f Drawing says %v of an entity removed at %d", rf, drawing, gone)
		}
		sawDrawing, sawDone = sawDrawing || drawing, sawDone || !drawing
		if r.ip.Drawing(local, gone) {
			t.Fatal("an entity simulated here is drawn to a removal")
		}
	})
	if !sawDrawing || !sawDone {
		t.Fatalf("Drawing was true %v, false %v: want both in turn", sawDrawing, sawDone)
	}
	// Frames heard far past a removal, nothing drawn since: it goes.
	r.ip.Heard(600)
	if r.ip.Drawing(e, 570) {
		t.Fatal("an entity removed 30 frames (half a second) before the newest heard is still drawn to it")
	}
	if !r.ip.Drawing(e, 598) {
		t.Fatal("an entity removed 2 frames before the newest heard, not drawn to it, is not kept")
	}
}

// An entity made before the render frame (Born with a frame the render
// frame passed: a young entity entering the client's scope) is drawn at
// once, not held back as one made ahead of the drawn world.
func TestBornBeforeTheRenderFrameIsDrawnAtOnce(t *testing.T) {
	r := newRig(t, Config{})
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	var entered arche.Entity
	l := link{latency: 40 * time.Millisecond}
	hidden, drawn := 0, 0
	r.play(l.sends(2, 400, 2), 60, 400*step, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		if f == 300 {
			entered = r.spawn(ecs.HostPeer, true, ecs.Transform{X: 5})
			r.apply(entered, f, ecs.Transform{X: 5})
			r.ip.Born(entered, 200) // made a hundred frames before it entered
		}
	}, func(time.Duration) {
		if entered == (arche.Entity{}) {
			return
		}
		if _, ok := r.ip.Pose(entered, 0); ok {
			drawn++
		} else {
			hidden++
		}
	})
	if hidden != 0 || drawn == 0 {
		t.Fatalf("an entity made before the render frame was hidden %d drawn frames, drawn %d", hidden, drawn)
	}
}

// An entity the host removed, kept while drawn (Drawing), moves on along
// its last two states up to its removal, though newer frames came without
// it, and is not drawn past the removal. (It rested at its last state, and
// was drawn there, still, until the client removed it: a shot stopped short
// of where it hit.)
func TestDrawnOnToItsRemoval(t *testing.T) {
	r := newRig(t, Config{})
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	shot := mover{vx: 600} // 10 units a host frame
	e := r.spawn(ecs.HostPeer, true, shot.at(2))
	const last, gone = ecs.Frame(290), ecs.Frame(294) // removed before its next state was due, and a send interval
	l := link{latency: 40 * time.Millisecond}
	onTo, after, worst := 0, 0, 0.0
	r.play(l.sends(2, 400, 2), 120, 400*step, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		if f <= last {
			r.apply(e, f, shot.at(f))
		}
	}, func(time.Duration) {
		rf := r.ip.Stats().RenderFrame
		if rf == 0 || !r.ip.Drawing(e, gone) && rf < float64(gone) {
			return
		}
		p, ok := r.ip.Pose(e, 0)
		switch {
		case rf >= float64(gone):
			if ok {
				t.Fatalf("at render frame %.2f, past the removal (%d), the shot is drawn at %v", rf, gone, p)
			}
			after++
		case rf > float64(last):
			want := shot.at(0)
			want.X += shot.vx * rf * step.Seconds()
			worst = max(worst, dist(p, want))
			onTo++
		}
	})
	if onTo == 0 || after == 0 || worst > 0.01 {
		t.Fatalf("between its last state and its removal the shot was drawn %d times, at most %.2f off its way; past the removal %d times", onTo, worst, after)
	}
}
