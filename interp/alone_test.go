package interp

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// spawnMoving creates a remote entity at pose with an ecs.Velocity, as the
// client replicator does for one whose Velocity the host replicates.
func (r *rig) spawnMoving(pose ecs.Transform, v ecs.Velocity) arche.Entity {
	e := r.spawn(ecs.HostPeer, true, pose)
	a := r.w.Arche()
	a.Add(e, r.w.IDs.Velocity)
	*(*ecs.Velocity)(a.Get(e, r.w.IDs.Velocity)) = v
	return e
}

// entered is what entering saw of an entity that came into the client's
// interest: over the drawn frames before the render frame reached its
// first state, how far the drawn pose was from where the host had it at
// the render frame (the most), how many drew it where the frame before did,
// and Stats.Before (the most); over the whole run, the largest step between
// two drawn frames, and the largest step back along x (it walks +x) of its
// pose and of a Track that follows its x.
type entered struct {
	worst            float64
	still, before    int
	leap, back, bank float64
}

// entering plays a mover that comes into the client's interest at frame
// in, with a Track of its x, drawing at 120 Hz.
func entering(t *testing.T, cfg Config, withVelocity bool) (m entered) {
	r := newRig(t, cfg)
	tr := NewTrack(r.ip, blendScale)
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	walker := mover{x0: -300, vx: 60, vy: 30} // 1 unit a host frame, and a half
	const in = ecs.Frame(300)
	l := link{latency: 40 * time.Millisecond}
	var e arche.Entity
	var last ecs.Transform
	var lastS scale
	drawn := 0
	r.play(l.sends(2, 500, 2), 120, 500*step, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		if f == in {
			if withVelocity {
				e = r.spawnMoving(walker.at(f), ecs.Velocity{X: walker.vx, Y: walker.vy})
			} else {
				e = r.spawn(ecs.HostPeer, true, walker.at(f))
			}
			r.w.Arche().Add(e, tr.id)
		}
		if f >= in {
			(*scale)(r.w.Arche().Get(e, tr.id)).S = walker.at(f).X
			r.apply(e, f, walker.at(f))
		}
	}, func(time.Duration) {
		if e == (arche.Entity{}) {
			return
		}
		p, ok := r.ip.Pose(e, 0)
		if !ok {
			t.Fatal("an entity that entered the client's interest is not drawn")
		}
		sc, _ := tr.Get(e)
		rf := r.ip.Stats().RenderFrame
		if rf < float64(in) {
			m.before = max(m.before, r.ip.Stats().Before)
			want := walker.at(0)
			want.X += walker.vx * rf * step.Seconds()
			want.Y += walker.vy * rf * step.Seconds()
			m.worst = max(m.worst, dist(p, want))
			if drawn > 0 && p == last {
				m.still++
			}
		}
		if drawn > 0 {
			m.leap = max(m.leap, dist(p, last))
			m.back = max(m.back, last.X-p.X)
			m.bank = max(m.bank, lastS.S-sc.S)
		}
		last, lastS = p, sc
		drawn++
	})
	if drawn < 100 {
		t.Fatalf("the entity was drawn %d times, want more", drawn)
	}
	return m
}

// An entity that comes into the client's interest moving is drawn coming
// in, where the host had it at the render frame, from its first drawn
// frame: moved back from its first state by its velocity (it stood there,
// still, for the render delay). One without a velocity stands at its first
// state until the render frame reaches it, then moves on without a jump.
// (An entity's drawn step between frames at 120 Hz: 0.56 units.)
func TestAnEntityEnteringIsDrawnComingIn(t *testing.T) {
	m := entering(t, Config{}, true)
	worst, still, before, leap := m.worst, m.still, m.before, m.leap
	if worst > 0.01 || still != 0 || before != 1 || leap > 0.6 {
		t.Fatalf("with a velocity, before its first state the entity was drawn up to %.2f units off, still in %d frames, counted Before %d (want 1); largest step %.2f", worst, still, before, leap)
	}
	m = entering(t, Config{}, false)
	worst, still, leap = m.worst, m.still, m.leap
	if still == 0 || leap > 0.6 {
		t.Fatalf("without a velocity the entity was drawn still in %d frames before its first state (want some, until its second came), largest step %.2f", still, leap)
	}
	t.Logf("without a velocity: up to %.2f units off before the first state", worst)
	m = entering(t, Config{IgnoreVelocity: true}, true)
	still, before = m.still, m.before
	if still == 0 || before != 1 {
		t.Fatalf("with IgnoreVelocity the entity was drawn still in %d frames (want some), counted Before %d", still, before)
	}
}

// A shot that lives less than a send interval reaches the client as one
// state and a removal; it is drawn from its making to where it was removed,
// moving by its velocity, not still at its one state.
func TestAShotOfOneStateFliesToItsRemoval(t *testing.T) {
	for _, cfg := range []Config{{}, {IgnoreVelocity: true}} {
		r := newRig(t, cfg)
		anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
		shot := mover{vx: 600} // 10 units a host frame
		const made, gone = ecs.Frame(300), ecs.Frame(303)
		l := link{latency: 40 * time.Millisecond}
		var e arche.Entity
		drawn, worst, moved := 0, 0.0, 0.0
		var first ecs.Transform
		r.play(l.sends(2, 400, 2), 120, 400*step, func(f ecs.Frame) {
			r.apply(anchor, f, ecs.Transform{})
			if f == made {
				e = r.spawnMoving(shot.at(f), ecs.Velocity{X: shot.vx})
				r.apply(e, f, shot.at(f))
				r.ip.Born(e, f)
			}
		}, func(time.Duration) {
			if e == (arche.Entity{}) || !r.ip.Drawing(e, gone) {
				return
			}
			p, ok := r.ip.Pose(e, 0)
			if !ok {
				return
			}
			rf := r.ip.Stats().RenderFrame
			want := shot.at(0)
			want.X += shot.vx * rf * step.Seconds()
			worst = max(worst, dist(p, want))
			if drawn == 0 {
				first = p
			}
			moved = max(moved, dist(p, first))
			drawn++
		})
		switch {
		case drawn < 3:
			t.Fatalf("%+v: the shot was drawn %d times in its three frames of life at 120 Hz", cfg, drawn)
		case !cfg.IgnoreVelocity && worst > 0.01:
			t.Fatalf("the shot was drawn up to %.2f units off its way", worst)
		case !cfg.IgnoreVelocity && moved < 20:
			t.Fatalf("the shot moved %.2f units as drawn, want about its 30 of flight", moved)
		case cfg.IgnoreVelocity && moved != 0:
			t.Fatalf("with IgnoreVelocity the shot moved %.2f units as drawn, want still", moved)
		}
	}
}

// A new entity whose second state is late moves on by its velocity while
// that state is due, and a late state ends the guess without a jump.
func TestAOneStateEntityMovesOnWhileItsNextIsLate(t *testing.T) {
	r := newRig(t, Config{})
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	shot := mover{vx: 300} // 5 units a host frame
	const made = ecs.Frame(300)
	var e arche.Entity
	// Every send arrives 40 ms after its frame, but the shot's second and
	// third states (302, 304) come late, with 306's.
	l := link{latency: 40 * time.Millisecond}
	arrivals := l.sends(2, 500, 2)
	for i := range arrivals {
		if f := arrivals[i].f; f == 302 || f == 304 {
			arrivals[i].at = time.Duration(306)*step + l.latency
		}
	}
	sortArrivals(arrivals)
	drawn, still := 0, 0
	leap := 0.0
	var last ecs.Transform
	r.play(arrivals, 120, 500*step, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		if f == made {
			e = r.spawnMoving(shot.at(f), ecs.Velocity{X: shot.vx})
			r.apply(e, f, shot.at(f))
			r.ip.Born(e, f)
		} else if f > made {
			r.apply(e, f, shot.at(f))
		}
	}, func(time.Duration) {
		if e == (arche.Entity{}) {
			return
		}
		p, ok := r.ip.Pose(e, 0)
		if !ok {
			return
		}
		if rf := r.ip.Stats().RenderFrame; drawn > 0 && rf < 320 {
			if p == last {
				still++
			}
			leap = max(leap, dist(p, last))
		}
		last = p
		drawn++
	})
	if still != 0 || leap > 3 {
		t.Fatalf("while its second state was late the shot was drawn still %d times, its largest step %.2f units (2.5 a drawn frame)", still, leap)
	}
}

// An entity without a Velocity that enters the client's interest walking,
// a Track on it, at render delays up to 150 ms: it is never drawn stepping
// back between two drawn frames, nor its Track. (Moved back along its first
// two states once they came, the jump hidden by a decaying offset, it was
// drawn walking backwards, and its Track jumped back.)
func TestAnEntityEnteringNeverWalksBackwards(t *testing.T) {
	for _, cfg := range []Config{{}, {MinDelay: 100 * time.Millisecond}, {MinDelay: 150 * time.Millisecond}} {
		if m := entering(t, cfg, false); m.back > 1e-9 || m.bank > 1e-9 {
			t.Errorf("MinDelay %v: a walker moving +x was drawn stepping back by up to %.3f units between two drawn frames, its Track by up to %.3f", cfg.MinDelay, m.back, m.bank)
		}
	}
}

// A Velocity that is not finite (a physics blow-up, a game's own codec)
// moves nothing: the entity is drawn at its finite Transform.
func TestANonFiniteVelocityMovesNothing(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1)} {
		r := newRig(t, Config{})
		anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
		var bad bool
		r.play(link{latency: 40 * time.Millisecond}.sends(2, 320, 2), 120, 320*step, func(f ecs.Frame) {
			r.apply(anchor, f, ecs.Transform{})
			if f == 300 {
				e := r.spawnMoving(ecs.Transform{X: 10}, ecs.Velocity{X: v})
				r.apply(e, f, ecs.Transform{X: 10})
			}
		}, func(time.Duration) {
			if e, ok := r.w.EntityOf(2); ok {
				p, ok := r.ip.Pose(e, 0)
				if ok && !finite(p) {
					bad = true
				}
			}
		})
		if bad {
			t.Errorf("Velocity.X = %v: an entity at a finite Transform was drawn at a non-finite pose", v)
		}
	}
}

// An entity that entered moving (drawn moving back from its first state by
// its velocity) and that the host then teleports is drawn jumping once,
// when the render frame reaches the teleport, not when the teleport's state
// arrives.
func TestAnEntityEnteringThenTeleportedJumpsOnlyAtTheTeleport(t *testing.T) {
	r := newRig(t, Config{MinDelay: 100 * time.Millisecond})
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	walker := mover{x0: -300, vx: 60}
	const in, tp = ecs.Frame(300), ecs.Frame(302)
	far := ecs.Transform{X: 5000}
	l := link{latency: 40 * time.Millisecond}
	var e arche.Entity
	var last ecs.Transform
	drawn, early := 0, 0
	worst, stillAfterMoving := 0.0, 0
	r.play(l.sends(2, 400, 2), 120, 400*step, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		switch {
		case f == in:
			e = r.spawnMoving(walker.at(f), ecs.Velocity{X: walker.vx})
			r.apply(e, f, walker.at(f))
		case f == tp:
			r.interpolated(e).Snap = true
			r.apply(e, f, far)
		case f > tp:
			r.apply(e, f, far)
		}
	}, func(time.Duration) {
		if e == (arche.Entity{}) {
			return
		}
		p, _ := r.ip.Pose(e, 0)
		rf := r.ip.Stats().RenderFrame
		if drawn > 0 && rf < float64(tp) {
			if d := dist(p, last); d > 1 {
				early++
				worst = max(worst, d)
			}
			if p == last {
				stillAfterMoving++
			}
		}
		last = p
		drawn++
	})
	if early != 0 {
		t.Fatalf("before the render frame reached the teleport (%d) the entity was drawn jumping %d times, by up to %.2f units; then still for %d drawn frames", tp, early, worst, stillAfterMoving)
	}
}

// With a render delay past MaxExtrapolation (200 ms here) an entity that
// enters moving still comes in moving, where the host had it: it is moved
// back from its first state as far as the render delay reaches.
func TestAnEntityEnteringUnderALongRenderDelayComesInMoving(t *testing.T) {
	m := entering(t, Config{MinDelay: 200 * time.Millisecond}, true)
	worst, still := m.worst, m.still
	if worst > 0.01 || still != 0 {
		t.Fatalf("with a Velocity and a 200 ms render delay, before its first state the entity was drawn still in %d drawn frames, up to %.2f units from where the host had it", still, worst)
	}
}
