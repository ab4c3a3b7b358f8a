package interp

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// A slow walker, whose small changes the host sends every few sends (here
// every sixth frame, beside other entities' states every send), that is
// heard to stop (its newest state says its Velocity is zero) is drawn
// stopping where it stopped: not carried on past its stop along its last two
// states until the rest rule catches it, then slid back.
func TestASlowWalkerHeardToStopIsNotDrawnPastItsStop(t *testing.T) {
	for _, spin := range []float64{0, 1} {
		r := newRig(t, Config{})
		m := mover{vx: -40, vy: -40, w: spin}
		v := ecs.Velocity{X: m.vx, Y: m.vy, Angular: m.w}
		e := r.spawnMoving(m.at(0), v)
		const stop = ecs.Frame(360)
		final := m.at(stop)
		l := link{latency: 75 * time.Millisecond}
		var maxPast float64
		r.play(l.sends(2, stop+60, 2), 144, time.Duration(stop+120)*step, func(f ecs.Frame) {
			switch {
			case f > stop || f%6 != 0:
				r.ip.Heard(f) // the states of the others
			default:
				if f == stop {
					v = ecs.Velocity{}
				}
				*(*ecs.Velocity)(r.w.Arche().Get(e, r.w.IDs.Velocity)) = v
				r.apply(e, f, m.at(f))
			}
		}, func(time.Duration) {
			p := r.pose(e)
			// Past the stop along the walk (-1, -1).
			if past := ((final.X - p.X) + (final.Y - p.Y)) / math.Sqrt2; past > maxPast {
				maxPast = past
			}
		})
		if p := r.pose(e); dist(p, final) > 1e-3 {
			t.Errorf("spin %v: drawn at %v at the end, %.3f from where it stopped", spin, p, dist(p, final))
		}
		if maxPast > 1e-6 {
			t.Errorf("spin %v: drawn %.2f units past where it stopped", spin, maxPast)
		}
	}
}

// A shot flying at constant speed far from what the client owns, which the
// host sends only every twelfth send (its change is what its Velocity
// predicts, and its interest weighs it; other entities' states come every
// send), is drawn flying on by its velocity between its states: never
// moved back, never stopped.
func TestAFarShotSentRarelyIsNeverDrawnGoingBack(t *testing.T) {
	r := newRig(t, Config{})
	m := mover{x0: -500, vx: 600, vy: 0}
	e := r.spawnMoving(m.at(0), ecs.Velocity{X: m.vx})
	l := link{latency: 60 * time.Millisecond}
	var prev ecs.Transform
	var back, still int
	var last ecs.Frame
	drawn := 0
	r.play(l.sends(2, 600, 2), 120, 620*step, func(f ecs.Frame) {
		if f%24 == 0 {
			r.apply(e, f, m.at(f))
			last = f
		} else {
			r.ip.Heard(f)
		}
	}, func(now time.Duration) {
		p := r.pose(e)
		if drawn > 0 && now > time.Second && last < 600 {
			switch d := p.X - prev.X; {
			case d < 0:
				back++
			case d < 1e-9:
				still++
			}
		}
		prev = p
		drawn++
	})
	if back != 0 || still != 0 {
		t.Fatalf("of %d frames drawn, %d moved the shot back and %d drew it still", drawn, back, still)
	}
}

// A walker heard to stop stays stopped when an older state of it arrives
// late (reordered: the replicator reports it while the world holds the
// newest values) or more of its newest state comes: neither is news of its
// motion.
func TestALateStateKeepsTheStop(t *testing.T) {
	for _, late := range []ecs.Frame{6, 0} {
		r := newRig(t, Config{})
		m := mover{vx: -40, vy: -40}
		v := ecs.Velocity{X: m.vx, Y: m.vy}
		e := r.spawnMoving(m.at(0), v)
		const stop = ecs.Frame(360)
		final := m.at(stop)
		var maxPast float64
		r.play(link{latency: 75 * time.Millisecond}.sends(2, stop+60, 2), 144, time.Duration(stop+120)*step, func(f ecs.Frame) {
			switch {
			case f > stop || f%6 != 0:
				r.ip.Heard(f)
			default:
				if f == stop {
					v = ecs.Velocity{}
				}
				*(*ecs.Velocity)(r.w.Arche().Get(e, r.w.IDs.Velocity)) = v
				r.apply(e, f, m.at(f))
				if f == stop {
					r.ip.Applied(e, stop-late) // the state six frames before, or the stop's again
				}
			}
		}, func(time.Duration) {
			p := r.pose(e)
			maxPast = max(maxPast, ((final.X-p.X)+(final.Y-p.Y))/math.Sqrt2)
		})
		if maxPast > 1e-6 {
			t.Errorf("a state %d frames before the stop arriving after it: drawn %.2f units past the stop", late, maxPast)
		}
	}
}

// An entity that turns at its newest state (its Velocity now +y, its last
// two states along +x) and whose next states do not come goes on by its
// new velocity, not along its old line.
func TestATurnGoesOnByTheNewVelocity(t *testing.T) {
	r := newRig(t, Config{})
	e := r.spawnMoving(ecs.Transform{}, ecs.Velocity{X: 600})
	const turn = ecs.Frame(200)
	at := func(f float64) ecs.Transform {
		if f <= float64(turn) {
			return ecs.Transform{X: 10 * f}
		}
		return ecs.Transform{X: 10 * float64(turn), Y: 10 * (f - float64(turn))}
	}
	var alongX float64
	r.play(link{latency: 50 * time.Millisecond}.sends(2, 300, 2), 120, 320*step, func(f ecs.Frame) {
		switch {
		case f < turn:
			r.apply(e, f, at(float64(f)))
		case f == turn:
			*(*ecs.Velocity)(r.w.Arche().Get(e, r.w.IDs.Velocity)) = ecs.Velocity{Y: 600}
			r.apply(e, f, at(float64(f)))
		case f < turn+30:
			r.ip.Heard(f) // left out: it moves as its velocity says
		default:
			r.apply(e, f, at(float64(f)))
		}
	}, func(time.Duration) {
		if rf := r.ip.RenderFrame(); rf >= float64(turn) && rf <= float64(turn+30) {
			alongX = max(alongX, r.pose(e).X-10*float64(turn))
		}
	})
	if alongX > 1e-6 {
		t.Fatalf("after its turn to +y the entity was carried %.1f units on along +x", alongX)
	}
}

// An entity whose Velocity says it moves after it stopped (a game that did
// not zero it: the host sends nothing more of it) is dead-reckoned past
// its stop, then slides back, as an offset decays, never jumping.
func TestADeadReckonedEntitySlidesBack(t *testing.T) {
	r := newRig(t, Config{})
	m := mover{vx: 600}
	e := r.spawnMoving(m.at(0), ecs.Velocity{X: m.vx})
	const stop = ecs.Frame(200)
	final := m.at(stop)
	const hz = 120
	var prev ecs.Transform
	var back, past float64
	drawn := 0
	r.play(link{latency: 50 * time.Millisecond}.sends(2, 400, 2), hz, 420*step, func(f ecs.Frame) {
		if f <= stop {
			r.apply(e, f, m.at(f))
		} else {
			r.ip.Heard(f)
		}
	}, func(time.Duration) {
		p := r.pose(e)
		if drawn > 0 {
			back = max(back, prev.X-p.X)
		}
		past = max(past, p.X-final.X)
		prev = p
		drawn++
	})
	halfLife := r.ip.Config().HalfLife.Seconds()
	if limit := past * (1 - math.Exp2(-1.0/hz/halfLife)) * 1.01; back > limit {
		t.Errorf("after %.0f units past its stop, it went back %.1f in one frame: more than a slide's %.1f", past, back, limit)
	}
	if p := r.pose(e); dist(p, final) > 1e-3 {
		t.Errorf("drawn at %v at the end, %.3f from its stop", p, dist(p, final))
	}
}

// A shot made between two sends with no velocity to move it back by
// (IgnoreVelocity, or none) is not drawn before its first state: drawn
// there, it would wait still where it will be.
func TestAShotMadeBetweenSendsWithoutVelocityWaits(t *testing.T) {
	r := newRig(t, Config{IgnoreVelocity: true})
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	shot := mover{x0: -1000, vx: 600}
	const made, first = ecs.Frame(299), ecs.Frame(300)
	fired := r.spawn(ecs.HostPeer, true, shot.at(first))
	seen, early := false, 0
	r.play(link{latency: 40 * time.Millisecond}.sends(2, 600, 2), 120, 6*time.Second, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		if f >= first {
			r.apply(fired, f, shot.at(f))
		}
		if f == first {
			r.ip.Born(fired, made)
			seen = true
		}
	}, func(time.Duration) {
		if _, ok := r.ip.Pose(fired, 0); seen && ok && r.ip.RenderFrame() < float64(first) {
			early++
		}
	})
	if early > 0 {
		t.Fatalf("drawn %d frames before its first state, still where it will be", early)
	}
}

// A shot whose first state is all a full budget let through for a while
// (the others' states come at every send) flies on by its velocity until
// its next: not held after MaxExtrapolation, then hurried forward.
func TestAShotOfOneStateLeftOutFliesOn(t *testing.T) {
	r := newRig(t, Config{})
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	m := mover{x0: -1000, vx: 600}
	var e arche.Entity
	var prev ecs.Transform
	back, still, drawn := 0, 0, 0
	r.play(link{latency: 40 * time.Millisecond}.sends(2, 400, 2), 120, 420*step, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		switch {
		case f == 100:
			e = r.spawnMoving(m.at(f), ecs.Velocity{X: m.vx})
			r.apply(e, f, m.at(f))
		case f >= 128:
			r.apply(e, f, m.at(f))
		}
	}, func(time.Duration) {
		rf := r.ip.RenderFrame()
		if e == (arche.Entity{}) || rf < 101 || rf > 140 {
			return
		}
		p := r.pose(e)
		if drawn > 0 {
			switch d := p.X - prev.X; {
			case d < 0:
				back++
			case d < 1e-9:
				still++
			}
		}
		prev = p
		drawn++
	})
	if drawn == 0 || back != 0 || still != 0 {
		t.Fatalf("of %d frames drawn, %d moved the shot back and %d drew it still", drawn, back, still)
	}
}

// A Track (a turret angle, a scale) blended beside the pose of an entity
// that moves as its Velocity says goes on with it while its states are
// left out (deferred, or lost) and the pose is dead-reckoned: extrapolated
// (alpha past 1), not frozen at the newest value and jumping when the next
// state comes.
func TestATrackGoesOnWhileItsEntityIsDeadReckoned(t *testing.T) {
	r := newRig(t, Config{})
	tr := NewTrack(r.ip, blendScale)
	a := r.w.Arche()
	id := tr.id
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	m := mover{vx: 600} // 10 units a frame
	e := r.spawnMoving(m.at(0), ecs.Velocity{X: m.vx})
	a.Add(e, id)
	const gap0, gap1 = ecs.Frame(200), ecs.Frame(216) // states 202..214 left out
	var worstOff, worstJump, prev float64
	drawn := 0
	r.play(link{latency: 40 * time.Millisecond}.sends(2, 400, 2), 120, 420*step, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		if f > gap0 && f < gap1 {
			return
		}
		(*scale)(a.Get(e, id)).S = m.at(f).X / 10
		r.apply(e, f, m.at(f))
	}, func(time.Duration) {
		rf := r.ip.RenderFrame()
		s, _ := tr.Get(e)
		if rf > 150 && rf < 260 {
			want := m.at(0).X/10 + m.vx*rf*step.Seconds()/10 // where the host had it
			worstOff = max(worstOff, math.Abs(s.S-want))
			if drawn > 0 {
				worstJump = max(worstJump, math.Abs(s.S-prev))
			}
			drawn++
			prev = s.S
		}
	})
	// At 120 Hz a drawn frame moves the value 0.5.
	if worstJump > 1.5 {
		t.Fatalf("the Track froze while the pose was dead-reckoned: off by up to %.2f, then jumped %.2f in one drawn frame (a normal step is 0.5)", worstOff, worstJump)
	}
}

// A shot moving as its Velocity says, left out by the host (far from the
// client) for twice MaxDeferral and removed a send later, rests slid back
// to its newest state and stays there: its removal does not draw it
// extrapolated again from there, its slide-back offset still on (a jump).
func TestAShotRemovedAfterItsDriftDoesNotJump(t *testing.T) {
	r := newRig(t, Config{})
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	m := mover{vx: 600} // 10 units a frame, 5 a drawn frame at 120 Hz
	e := r.spawnMoving(m.at(2), ecs.Velocity{X: m.vx})
	const last = ecs.Frame(200)
	gone := last + ecs.Frame(r.ip.drift) + 2
	var prev ecs.Transform
	var fwd, back float64
	drawn := 0
	r.play(link{latency: 40 * time.Millisecond}.sends(2, 400, 2), 120, 420*step, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		if f <= last {
			r.apply(e, f, m.at(f))
		}
		if f == gone {
			r.ip.Drawing(e, gone)
		}
	}, func(time.Duration) {
		p, ok := r.ip.Pose(e, 0)
		if !ok {
			return
		}
		if drawn > 0 {
			fwd = max(fwd, p.X-prev.X)
			back = max(back, prev.X-p.X)
		}
		prev = p
		drawn++
	})
	if fwd > 7.5 {
		t.Fatalf("drawn %.1f units forward in one drawn frame (a frame's way is 5)", fwd)
	}
}

// An entity moving at its Velocity whose heading turns by its Transform
// alone (Velocity.Angular left 0, as many games do) turns on along its
// last two states while it is dead-reckoned through a gap in its states.
func TestAHeadingTurnsOnWhileDeadReckoned(t *testing.T) {
	// As sent exactly, and drifting very slowly in y (1.5 wire steps a
	// send, beside 600 units/s in x) with its states rounded as the wire
	// rounds them: just as steady.
	for _, wire := range []bool{false, true} {
		r := newRig(t, Config{})
		anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
		m := mover{vx: 600, w: 3} // 3 rad/s by Transform
		sent := func(p ecs.Transform) ecs.Transform { return p }
		if wire {
			m.vy, sent = 1.5*30/512.0, quant
		}
		e := r.spawnMoving(sent(m.at(0)), ecs.Velocity{X: m.vx, Y: m.vy})
		const gap0, gap1 = ecs.Frame(200), ecs.Frame(216)
		var worst float64
		r.play(link{latency: 40 * time.Millisecond}.sends(2, 400, 2), 120, 420*step, func(f ecs.Frame) {
			r.apply(anchor, f, ecs.Transform{})
			if f > gap0 && f < gap1 {
				return
			}
			r.apply(e, f, sent(m.at(f)))
		}, func(time.Duration) {
			rf := r.ip.RenderFrame()
			if rf > 150 && rf < 260 {
				want := wrap(m.w * rf * step.Seconds())
				worst = max(worst, math.Abs(ecs.AngleDiff(r.pose(e).Angle, want)))
			}
		})
		if worst > 0.05 {
			t.Fatalf("rounded as the wire does %v: the heading was drawn up to %.3f rad off during the gap", wire, worst)
		}
	}
}

// An entity moving straight at its Velocity (which agrees with its states)
// whose heading and a Track stepped once at its newest state (a turn of 0.2
// rad that ended, a scale 1 -> 2) and then stay, while its states are left
// out for 30 frames (the host leaves a far one out up to twice
// MaxDeferral), is not spun on: its last three states did not move alike.
func TestAnEndedTurnIsNotSpunOnWhileDeadReckoned(t *testing.T) {
	r := newRig(t, Config{})
	tr := NewTrack(r.ip, blendScale)
	a := r.w.Arche()
	id := tr.id
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	m := mover{vx: 600}
	e := r.spawnMoving(m.at(0), ecs.Velocity{X: m.vx})
	a.Add(e, id)
	const turn, gap0, gap1 = ecs.Frame(200), ecs.Frame(200), ecs.Frame(232)
	host := func(f ecs.Frame) (ecs.Transform, float64) {
		p := m.at(f)
		if f >= turn {
			return ecs.Transform{X: p.X, Y: p.Y, Angle: 0.2}, 2
		}
		return p, 1
	}
	var worstAngle, worstS, worstX float64
	r.play(link{latency: 40 * time.Millisecond}.sends(2, 400, 2), 120, 420*step, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		if f > gap0 && f < gap1 {
			return
		}
		p, s := host(f)
		(*scale)(a.Get(e, id)).S = s
		r.apply(e, f, p)
	}, func(time.Duration) {
		rf := r.ip.RenderFrame()
		if rf > 150 && rf < 280 {
			want, ws := host(ecs.Frame(rf))
			p := r.pose(e)
			worstAngle = max(worstAngle, math.Abs(ecs.AngleDiff(p.Angle, want.Angle)))
			worstX = max(worstX, math.Abs(p.X-m.at(0).X-m.vx*rf*step.Seconds()))
			s, _ := tr.Get(e)
			worstS = max(worstS, math.Abs(s.S-ws))
		}
	})
	if worstAngle > 0.25 || worstS > 1 {
		t.Fatalf("a turn that ended at the newest state was spun on: heading up to %.3f rad off (the turn was 0.2), the Track up to %.2f off (its step was 1)", worstAngle, worstS)
	}
}
