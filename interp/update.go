package interp

import (
	"math"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// sweepPerUpdate is how many remote slots each Update checks against the
// world, to drop entities removed without Removed.
const sweepPerUpdate = 32

// Update is the interpolation system: call it once per drawn frame, before
// drawing, with the frame's time. It advances the render clock, decays
// offsets, and computes the drawn pose of every remote entity at the render
// frame. It reads the world and writes only the Interpolator. Cost: the
// remote entities not at rest, about ten nanoseconds each (one at rest, the
// host sending newer frames without it, is left where it is until its next
// state); allocates nothing.
func (ip *Interpolator) Update(now time.Time) {
	dt := 0.0
	if ip.updated {
		dt = max(now.Sub(ip.lastNow).Seconds(), 0)
	} else {
		// Nothing was drawn yet: the corrections made meanwhile moved
		// nothing on screen, and hide nothing.
		ip.decay(math.Inf(1))
	}
	ip.updated = true
	ip.lastNow = now
	jumped := ip.tl.advance(now)
	ip.decay(dt)
	ip.sweepSlots()
	st := &ip.stats
	st.Interpolating, st.Extrapolating, st.Holding, st.Resting, st.Remote, st.Early, st.Leaving, st.Before = 0, 0, 0, 0, 0, 0, 0, 0
	if !ip.tl.started {
		return
	}
	r := ip.tl.render
	g := ip.tl.newest
	ip.noteStarved(now, g)
	r0 := ip.lastRender
	ip.lastRender = r
	for k := 0; k < len(ip.active); k++ {
		s := ip.active[k]
		sl, frames, poses := ip.view(s)
		if sl.flags&flagRemote == 0 || sl.n == 0 {
			sl.flags &^= flagActive
			ip.dropActive(k)
			k--
			continue
		}
		st.Remote++
		if ip.disabled {
			h := int(sl.head)
			sl.raw = poses[h]
			sl.mode = modeNone
			for _, t := range ip.tracks {
				t.eval(s, h, h, 0)
			}
			continue
		}
		p, mode, a, b, alpha := ip.sample(sl, s, frames, poses, r, g)
		if sl.flags&flagLeaving != 0 {
			p, mode, a, b, alpha = ip.leave(s, sl, frames, poses, r, p, mode, a, b, alpha)
			st.Leaving++
		}
		switch mode {
		case modeGone:
			st.Remote--
		case modeEarly:
			st.Early++
			st.Remote--
		case modeInterpolating:
			st.Interpolating++
		case modeBefore:
			st.Before++
		case modeExtrapolating:
			st.Extrapolating++
			if sl.mode != modeExtrapolating {
				st.Extrapolations++
			}
		case modeHolding:
			st.Holding++
			if sl.mode != modeHolding {
				st.Holds++
			}
		case modeResting:
			st.Resting++
		}
		if mode != modeEarly {
			sl.flags &^= flagEarly // drawn from now on
		}
		switch {
		case mode == modeGone || sl.mode == modeNone || sl.mode == modeEarly:
		case jumped:
			// The render clock jumped: e goes on from where it was drawn,
			// unless the jump crosses a teleport.
			if !ip.snapWithin(s, r0, r) {
				ip.addOffset(s, diff(sl.raw, p))
			}
		case sl.mode == modeExtrapolating && (mode == modeHolding || mode == modeResting):
			// Newer states came without e (it stopped): slide back to its
			// newest state from where the guess left it. (Extrapolated as
			// far as it may be, it is held where the guess ended: no
			// offset.)
			ip.addOffset(s, diff(ip.guess(sl, s, frames, poses, r), p))
		case sl.mode == modeHolding && (mode == modeHolding || mode == modeResting):
			// Held where its guess ended, then newer states came without
			// it, or its removal: slide to where it is drawn now.
			ip.addOffset(s, diff(sl.raw, p))
		}
		sl.raw = p
		sl.mode = mode
		for _, t := range ip.tracks {
			t.eval(s, a, b, alpha)
		}
		if mode == modeResting {
			// At its newest state, known current: drawn there until a new
			// state comes (Applied activates it again).
			sl.flags = sl.flags&^flagActive | flagSettled
			ip.settled++
			st.Remote-- // counted with the settled ones below
			st.Resting--
			ip.dropActive(k)
			k--
		}
	}
	st.Remote += ip.settled
	st.Resting += ip.settled
}

// dropActive takes the k-th entry out of the active list (the last takes
// its place).
func (ip *Interpolator) dropActive(k int) {
	last := len(ip.active) - 1
	ip.active[k] = ip.active[last]
	ip.active = ip.active[:last]
}

// sample returns the pose of slot s (its record sl and its ring: view) at
// render frame r when g is the newest host frame received, how it was found, and the ring positions and fraction it
// blended (a == b: one state as is).
//
// Past e's newest state, at frame fn: the host sends e's next change within
// about as many frames as e's last two states were apart (a send interval at
// least, MaxDeferral at most), the longer the smaller the change. Once
// frames that much newer than fn arrived without e, e rests at fn; one whose
// ecs.Velocity at fn says it moved rests only once they are MaxDeferral
// newer (a datagram with its next state lost, or the host sending it less
// often, leaves frames without it that much newer while it moves on). Until
// then it moves on along its last two states (by its velocity, with one
// alone), for that long or MaxExtrapolation, whichever is longer; past that
// it is held where that took it, until a state comes. One whose Velocity at fn
// says it stopped there (it moved at the state before, not at all at fn) is
// drawn at fn at once: the host told it stop. Before its oldest state
// it is moved back from it the same way (see before).
func (ip *Interpolator) sample(sl *slotState, s int32, frames *[ringSize]ecs.Frame, poses *[ringSize]ecs.Transform, r float64, g ecs.Frame) (p ecs.Transform, mode uint8, a, b int, alpha float64) {
	h := int(sl.head)
	fn := frames[h]
	if r >= float64(fn) {
		past := r - float64(fn)
		if past == 0 {
			return poses[h], modeInterpolating, h, h, 0
		}
		moving, v, prev, byVel, due, reach := ip.onward(sl, s, frames, poses)
		rest := due
		if sl.motion&motionMoving != 0 {
			// Its Velocity says it moved at fn: the host sends the change
			// that stops or turns it at once, and leaves it out while it
			// moves as its velocity says, for up to MaxDeferral, twice that
			// far from what this client owns (a peer's interest weighs it).
			// Frames heard sooner without it say nothing: its next state
			// may have been lost, or the host sends it less often now.
			// One sent seldom as it walked on is carried as far as its
			// states came apart, and a send more.
			rest = max(ip.drift, float64(sl.seldom)+ip.interval)
			if ip.starved {
				// The host's budget holds changes back: frames without
				// it may be its turn not yet come (HeldBack).
				rest = math.Inf(1)
			}
		}
		if fn < g && float64(g-fn) >= rest {
			// Later frames arrived without a state of e: it has not moved.
			return poses[h], modeResting, h, h, 0
		}
		if !moving {
			return poses[h], modeHolding, h, h, 0
		}
		if past > reach {
			// No news of it past its reach (its states late, a link gone
			// dark): held where the guess ended, not slid back to its
			// newest state, which it left, as far as anyone here knows.
			p, a, b, alpha = ip.ahead(sl, frames, poses, v, prev, byVel, reach)
			return p, modeHolding, a, b, alpha
		}
		p, a, b, alpha = ip.ahead(sl, frames, poses, v, prev, byVel, past)
		return p, modeExtrapolating, a, b, alpha
	}
	for k := 1; k < int(sl.n); k++ {
		a = (h - k) & (ringSize - 1)
		fa := float64(frames[a])
		if r < fa {
			continue
		}
		b = (a + 1) & (ringSize - 1)
		if sl.snaps&(1<<b) != 0 {
			return poses[a], modeInterpolating, a, a, 0
		}
		alpha = (r - fa) / (float64(frames[b]) - fa)
		return blend(poses[a], poses[b], alpha), modeInterpolating, a, b, alpha
	}
	o := (h - int(sl.n) + 1) & (ringSize - 1)
	if sl.flags&flagEarly != 0 && (r < float64(frames[o])-float64(sl.born) || !ip.backable(ip.firstVel(s))) {
		// Made after the render frame: not there yet. (Made before its
		// first state, it is drawn from its making moved back from that
		// state by its velocity; without one, from that state.)
		return poses[o], modeEarly, o, o, 0
	}
	return ip.before(poses, ip.firstVel(s), o, float64(frames[o])-r), modeBefore, o, o, 0
}

// before returns a slot's pose (its ring's poses and first state's
// velocity) back frames before its oldest state (ring position o): moved
// back from that state by the velocity the entity had at its first state
// (ecs.Velocity, a world unit a second), for as long as the render delay
// reaches, so that an entity that came into the client's interest moving is
// drawn coming in; at that state if it had none, or extrapolation is off.
// It depends on nothing a later state brings, so a state arriving while the
// entity is drawn before its first changes nothing drawn.
func (ip *Interpolator) before(poses *[ringSize]ecs.Transform, v *ecs.Velocity, o int, back float64) ecs.Transform {
	if !ip.backable(v) || back <= 0 {
		return poses[o]
	}
	return ip.moved(poses[o], v, -min(back, ip.maxBack))
}

// backable reports whether an entity whose first state's velocity is v
// is moved back from that state before it: it has one, and extrapolation
// is on.
func (ip *Interpolator) backable(v *ecs.Velocity) bool {
	return *v != (ecs.Velocity{}) && ip.maxExt >= 0
}

// leave draws a slot the host removed (flagLeaving; p and the rest are
// what sample found) on to its removal: past its newest state it moves on
// along its last two, whatever frames came without it, if it was moving
// when it went (removed before its next state was due, a send interval of
// slack beside: a shot that hit something); one that stood still before
// (no state came for longer: it stopped, then went) is drawn where it
// stood. Either stays sampled, never settled, and once the render frame
// reaches the removal it is gone.
func (ip *Interpolator) leave(s int32, sl *slotState, frames *[ringSize]ecs.Frame, poses *[ringSize]ecs.Transform, r float64, p ecs.Transform, mode uint8, a, b int, alpha float64) (ecs.Transform, uint8, int, int, float64) {
	f := ip.leaving[s]
	if r >= float64(f) {
		return p, modeGone, a, b, alpha
	}
	if mode != modeResting && mode != modeHolding {
		return p, mode, a, b, alpha
	}
	h := int(sl.head)
	moving, v, prev, byVel, due, _ := ip.onward(sl, s, frames, poses)
	if !moving || f < frames[h] || float64(f-frames[h]) > due+ip.interval {
		return poses[h], modeHolding, h, h, 0
	}
	p, a, b, alpha = ip.ahead(sl, frames, poses, v, prev, byVel, r-float64(frames[h]))
	return p, modeExtrapolating, a, b, alpha
}

// onward returns how a slot (its record, its ring) is moved on past its
// newest state: whether it is at all, by which velocity and from which
// state before its newest (ahead), when its next change is due (lead) and
// how many host frames past its newest state it goes (reach). One whose
// Velocity says it stopped at its newest state is not moved on. One whose
// Velocity says it moves, and agrees with how it moved between its last
// two states (within turnShare), goes by it for twice MaxDeferral: the
// host leaves it out that long, far from what this client owns, while it
// moves as its velocity says; so does one with nothing else to go by (one
// state, or a teleport at its newest). One that turned at its newest state (its
// Velocity changed) goes by its new velocity; any other along its last two
// states (by its first state's velocity, with one alone: a Velocity that
// says more than its Transform moves, along a wall, is not trusted), for
// its due or MaxExtrapolation, the longer.
func (ip *Interpolator) onward(sl *slotState, s int32, frames *[ringSize]ecs.Frame, poses *[ringSize]ecs.Transform) (moving bool, v *ecs.Velocity, prev int, byVel bool, due, reach float64) {
	v = ip.firstVel(s)
	moving, prev, due = ip.lead(sl, frames, v)
	reach = ip.reach(due)
	if sl.motion&motionStopped != 0 {
		return false, v, prev, false, due, reach
	}
	if sl.motion&motionMoving == 0 || reach < 0 {
		return moving, v, prev, false, due, reach
	}
	h := int(sl.head)
	last := ip.lastVel(s)
	reckon := ip.drift // how far its velocity carries it
	if ip.starved {
		reckon = math.Inf(1) // its turn may not have come (HeldBack)
	}
	switch {
	case prev == h || sl.snaps&(1<<h) != 0:
		// Its velocity is all there is to go by: its first state, or one
		// after a teleport.
		return true, last, h, true, due, max(reach, reckon)
	case ip.agrees(last, poses[prev], poses[h], float64(frames[h]-frames[prev])):
		return true, last, prev, true, due, max(reach, reckon, float64(sl.seldom)+ip.interval)
	case sl.motion&motionTurned != 0:
		if ip.starved {
			// Its turn came (a lost one goes again first): what the
			// host leaves out now may be its turn not yet come
			// (HeldBack), as for one whose states agree.
			return true, last, prev, true, due, max(reach, reckon)
		}
		return true, last, prev, true, due, reach
	}
	return moving, v, prev, false, due, reach
}

// agrees reports whether velocity v (world units and radians a second)
// moves a pose as it moved from a to b in gap host frames, within
// turnShare of its speed.
func (ip *Interpolator) agrees(v *ecs.Velocity, a, b ecs.Transform, gap float64) bool {
	t := gap * ip.tl.step
	dx, dy := b.X-a.X-v.X*t, b.Y-a.Y-v.Y*t
	return math.Hypot(dx, dy) <= turnShare*math.Hypot(v.X, v.Y)*t
}

// lead returns whether a slot (its record and its ring's frames) can be
// extrapolated (it has two states and the newest is no teleport, or one
// alone and a velocity to move by), the ring position of the state before
// its newest (the newest's own, to move by the velocity), and how many host
// frames after its newest state its next change is due from the host.
func (ip *Interpolator) lead(sl *slotState, frames *[ringSize]ecs.Frame, v *ecs.Velocity) (moving bool, prev int, due float64) {
	h := int(sl.head)
	if sl.n == 1 {
		// Its first state (marked a teleport: nothing before it to blend).
		return *v != ecs.Velocity{}, h, ip.interval
	}
	prev = (h - 1) & (ringSize - 1)
	if sl.n < 2 || sl.snaps&(1<<h) != 0 {
		return false, prev, ip.interval
	}
	gap := float64(frames[h] - frames[prev])
	return true, prev, clamp(gap, ip.interval, ip.deferral)
}

// reach is how many host frames past its newest state an entity whose next
// change is due frames after it is extrapolated; negative: not at all.
func (ip *Interpolator) reach(due float64) float64 {
	if ip.maxExt <= 0 {
		return -1
	}
	return max(ip.maxExt, due)
}

// guess returns a slot's pose (its record and ring: view) extrapolated to
// render frame r, or as far
// towards it as extrapolation reaches; its newest pose if it cannot be
// extrapolated.
func (ip *Interpolator) guess(sl *slotState, s int32, frames *[ringSize]ecs.Frame, poses *[ringSize]ecs.Transform, r float64) ecs.Transform {
	h := int(sl.head)
	moving, v, prev, byVel, _, reach := ip.onward(sl, s, frames, poses)
	fn := frames[h]
	past := min(r-float64(fn), reach)
	if !moving || past <= 0 {
		return poses[h]
	}
	p, _, _, _ := ip.ahead(sl, frames, poses, v, prev, byVel, past)
	return p
}

// ahead returns a slot's pose (its record and ring: view) past host frames
// after its newest state, moved on as onward found (prev the newest itself:
// by its velocity; byVel: its position by velocity v, the rest along its
// last two states), and the ring positions and fraction its Tracks blend.
func (ip *Interpolator) ahead(sl *slotState, frames *[ringSize]ecs.Frame, poses *[ringSize]ecs.Transform, v *ecs.Velocity, prev int, byVel bool, past float64) (p ecs.Transform, a, b int, alpha float64) {
	h := int(sl.head)
	if prev == h {
		return ip.moved(poses[h], v, past), h, h, 0
	}
	alpha = 1 + past/float64(frames[h]-frames[prev])
	if !byVel {
		return blend(poses[prev], poses[h], alpha), prev, h, alpha
	}
	// Its position by its velocity. Its heading, as its Tracks, goes on
	// along its last two states if its last three moved alike (it turns
	// steadily by its Transform), else stays at its newest (a turn that
	// ended there is not spun on), unless its velocity turns it.
	q := ip.moved(poses[h], v, past)
	if !ip.steady(sl, frames, poses) {
		alpha = 1
	}
	p = blend(poses[prev], poses[h], alpha)
	p.X, p.Y = q.X, q.Y
	if v.Angular != 0 {
		p.Angle = q.Angle
	}
	return p, prev, h, alpha
}

// steady reports whether a slot's last three states (none after a
// teleport) moved alike: its position and its heading changed at the same
// rates, within turnShare, between the first two and the last two.
func (ip *Interpolator) steady(sl *slotState, frames *[ringSize]ecs.Frame, poses *[ringSize]ecs.Transform) bool {
	if sl.n < 3 {
		return false
	}
	c := int(sl.head)
	b := (c - 1) & (ringSize - 1)
	a := (c - 2) & (ringSize - 1)
	if sl.snaps&(1<<c|1<<b) != 0 {
		return false
	}
	g1, g2 := float64(frames[b]-frames[a]), float64(frames[c]-frames[b])
	// Rates a host frame; the wire rounds a position to 1/512 of a unit,
	// so within a couple of its steps a frame they are alike whatever the
	// direction.
	x1, y1 := (poses[b].X-poses[a].X)/g1, (poses[b].Y-poses[a].Y)/g1
	x2, y2 := (poses[c].X-poses[b].X)/g2, (poses[c].Y-poses[b].Y)/g2
	w1 := ecs.AngleDiff(poses[a].Angle, poses[b].Angle) / g1
	w2 := ecs.AngleDiff(poses[b].Angle, poses[c].Angle) / g2
	const posSlack, turnSlack = 2.0 / 512, 1e-3 // world units and radians a frame
	return math.Hypot(x2-x1, y2-y1) <= turnShare*math.Max(math.Hypot(x1, y1), math.Hypot(x2, y2))+posSlack &&
		math.Abs(w2-w1) <= turnShare*math.Max(math.Abs(w1), math.Abs(w2))+turnSlack
}

// moved returns pose p moved by velocity v for d host frames (back, for d
// negative).
func (ip *Interpolator) moved(p ecs.Transform, v *ecs.Velocity, d float64) ecs.Transform {
	t := d * ip.tl.step
	return ecs.Transform{X: p.X + v.X*t, Y: p.Y + v.Y*t, Angle: p.Angle + v.Angular*t}
}

// firstVel returns the velocity the entity of slot s had at its first
// state, kept since: zero if it had none, or a velocity not finite, or the
// Config says to ignore it, or the ring no longer holds that state (push).
func (ip *Interpolator) firstVel(s int32) *ecs.Velocity {
	return &ip.blocks[s>>blockBits].vels[s&blockMask]
}

// keepFirstVel keeps, as slot s's first state's, the velocity entity e has
// now (see firstVel).
func (ip *Interpolator) keepFirstVel(s int32, e arche.Entity) {
	v := ip.firstVel(s)
	*v = ecs.Velocity{}
	w := ip.w
	if ip.cfg.IgnoreVelocity {
		return
	}
	if p := (*ecs.Velocity)(w.Arche().GetUnchecked(e, w.IDs.Velocity)); p != nil && finiteVel(*p) {
		*v = *p
	}
}

// finiteVel reports whether every field of v is a finite number.
func finiteVel(v ecs.Velocity) bool {
	return !math.IsNaN(v.X-v.X) && !math.IsNaN(v.Y-v.Y) && !math.IsNaN(v.Angular-v.Angular)
}

// snapWithin reports whether slot s holds a teleport whose frame lies
// between render frames r0 and r1 (either order): drawing at r1 after r0
// jumps, and should.
func (ip *Interpolator) snapWithin(s int32, r0, r1 float64) bool {
	sl := ip.slot(s)
	if sl.snaps == 0 {
		return false
	}
	lo, hi := min(r0, r1), max(r0, r1)
	frames, _ := ip.ring(s)
	for k := range ringSize {
		if sl.snaps&(1<<k) == 0 {
			continue
		}
		if f := float64(frames[k]); f > lo && f <= hi {
			return true
		}
	}
	return false
}

// sweepSlots checks a few remote slots a frame against the world and drops
// those whose entity left it without Removed being called.
func (ip *Interpolator) sweepSlots() {
	n := int(ip.top)
	for range min(sweepPerUpdate, n) {
		if ip.sweep >= n {
			ip.sweep = 0
		}
		s := int32(ip.sweep)
		ip.sweep++
		sl := ip.slot(s)
		if sl.ent.IsZero() {
			continue
		}
		if e, _, ok := ip.w.SlotEntity(s); !ok || e != sl.ent {
			ip.clearSlot(s)
			for _, t := range ip.tracks {
				t.clear(s)
			}
		}
	}
}
