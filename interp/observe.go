package interp

import (
	"math"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Applied records the state of entity e that the replicator has just set from
// host frame f: e's current ecs.Transform becomes e's state at f. It is the
// replicate.Observer method. Entities without ecs.Interpolated, and those owned
// by the local peer (SetLocal) but the ones marked ecs.HostMoved, are not
// recorded; one without an ecs.Transform
// is recorded for the Tracks alone, when there are any (it has no pose to draw:
// Pose says false, Remote true), and when it gains or loses one its states
// start again, drawn where the new one is. A state older than e's newest is
// ignored (Stats.Stale), except that frames far below the newest of any entity
// (more than Config.Resync or Config.MaxDelay worth), arriving at two sends
// with no newer frame between, show that the host started its frames again: the
// second Resets the Interpolator and is recorded (Stats.Restarts). If
// Interpolated.Snap is set, the state is a teleport: it is never blended from
// the states before it, and Snap is cleared (this is the one write the
// Interpolator makes to the world).
func (ip *Interpolator) Applied(e arche.Entity, f ecs.Frame) {
	w := ip.w
	jumpAt := ip.jumpAt // the teleport's frame, if Jumped told it of e
	if ip.jumpOf != e {
		jumpAt = 0
	}
	ip.jumpOf = arche.Entity{}
	s, ok := w.NetSlot(e)
	if !ok {
		return
	}
	ip.Heard(f)
	ip.grow(s)
	st, frames, poses := ip.view(s)
	if st.ent != e {
		ip.clearSlot(s)
		st.ent = e
		for _, t := range ip.tracks {
			t.clear(s)
		}
	}
	if st.flags&flagLeaving != 0 && f > ip.leaving[s] {
		// A state past its removal: it came back (into the client's
		// scope), and is drawn on.
		st.flags &^= flagLeaving
		delete(ip.leaving, s)
	}
	a := w.Arche()
	ic := (*ecs.Interpolated)(a.Get(e, w.IDs.Interpolated))
	tp := (*ecs.Transform)(a.Get(e, w.IDs.Transform))
	// One without a pose is drawn only for what the Tracks blend.
	remote := ic != nil && (tp != nil || len(ip.tracks) > 0)
	if remote && ip.localSet {
		if id, ok := w.Identity(e); ok && id.Owner == ip.local && !a.Has(e, w.IDs.HostMoved) {
			remote = false
		}
	}
	if !remote {
		ip.unsettle(st)
		st.flags &^= flagRemote | flagEarly
		st.n = 0
		st.seldom = 0
		return
	}
	if noPose := tp == nil; noPose != (st.flags&flagNoPose != 0) && st.n > 0 {
		// A pose came or went: the states start again from this one,
		// drawn where it is, not blended from the origin.
		st.n, st.off = 0, ecs.Transform{}
	}
	// None: every state at the origin, for the Tracks alone (Snap still
	// holds a blend back; the replicator sets it with a pose only).
	var pose ecs.Transform
	st.flags |= flagNoPose
	if tp != nil {
		pose = *tp
		st.flags &^= flagNoPose
	}
	snap := ic.Snap
	ic.Snap = false
	st.flags |= flagRemote
	ip.activate(s)
	ip.stats.States++
	// Whether e stood still at its newest state before this one, and at this
	// one (its Velocity says so), for the next (setOff); whether it moved
	// at the one before and at this one, and stopped here. A stale state
	// (the world holds the newest's values as it comes) changes none.
	wasStill := st.flags&flagStill != 0
	if st.n == 0 || f >= frames[st.head] {
		v := ip.velocityOf(e)
		if standing(v) {
			st.flags |= flagStill
		} else {
			st.flags &^= flagStill
		}
		ip.observeMotion(st, s, v, st.n > 0 && f == frames[st.head])
	}
	wasMoving := st.motion&motionBefore != 0

	if st.n == 0 {
		k := ip.push(s, f, pose, true)
		ip.record(s, k, e)
		ip.keepFirstVel(s, e)
		st.raw = pose
		st.mode = modeNone
		return
	}
	h := int(st.head)
	newest := frames[h]
	if f < newest {
		ip.stats.Stale++
		return
	}
	if !snap && ip.cfg.SnapDistance > 0 {
		p := &poses[h]
		snap = math.Hypot(pose.X-p.X, pose.Y-p.Y) > ip.cfg.SnapDistance
	}
	if snap {
		ip.stats.Snaps++
		switch {
		case f == newest:
			poses[h] = pose
			st.snaps |= 1 << h
			ip.record(s, h, e)
		case jumpAt > newest && jumpAt < f:
			// The teleport was at jumpAt, its first state sent later: drawn
			// there from then, walking on to this state.
			at := pose
			if v := ip.velocityOf(e); v != nil && finiteVel(*v) {
				at = ip.moved(pose, v, -float64(f-jumpAt))
			}
			ip.record(s, ip.push(s, jumpAt, at, true), e)
			ip.record(s, ip.push(s, f, pose, false), e)
		default:
			ip.record(s, ip.push(s, f, pose, true), e)
		}
		st.off = ecs.Transform{}
		st.seldom = 0
		st.mode = modeNone // nothing to carry on from: the teleport is drawn as a jump
		return
	}
	// Drawn past the newest state, or before the oldest: the new one changes
	// what the last frame would have shown; keep the difference as an offset
	// so the drawn pose goes on from where it was.
	past := !ip.disabled && st.mode >= modeExtrapolating
	if f == newest {
		poses[h] = pose
		ip.record(s, h, e)
		if st.n == 1 {
			ip.keepFirstVel(s, e) // more of the first state
		}
	} else {
		// The host leaves a moving entity out of its sends for up to
		// MaxDeferral (small changes wait; a datagram of the tick may be
		// lost), twice that far from what this client owns: within that, e
		// is blended straight from its previous state.
		// After a longer silence, with states of other entities received in
		// it, e was still until at least MaxDeferral before f: it is drawn
		// still until the newest such frame.
		// An entity whose newest two states are alike was at rest at the
		// newest: one the host sends even at rest, in turn (an owner's
		// unit, in its AuthState), goes at every send once it moves, so it
		// began to within the send before f: it is drawn still until then.
		// One whose Velocity said it moved at its last state is left out
		// twice as long far from what this client owns (see sample).
		send := ecs.Frame(math.Round(ip.interval))
		from := newest // the frame e is drawn still until
		prev := (h - 1) & (ringSize - 1)
		still := ip.stillGap
		if wasMoving {
			still = ecs.Frame(ip.drift)
		}
		walked := wasMoving && f-newest > still && ip.walkedOn(e, poses[h], pose, f-newest)
		if walked {
			st.seldom = uint8(min(f-newest, 255))
		} else {
			st.seldom = 0 // states come as often as others again, or it did not walk on
		}
		switch {
		case f-newest > still && !walked:
			k, ok := ip.tl.receivedBetween(newest, f-still+1)
			if wasStill && ip.starving(f) {
				if off := ip.setOff(e, poses[h], pose, f); off > newest+send && (!ok || off < k) {
					// The host's budget held changes back meanwhile: the
					// silence was not rest, and its velocity says it set
					// off sooner than MaxDeferral before this state.
					k, ok = off, true
				}
			}
			if ok {
				ip.hold(s, h, ip.push(s, k, poses[h], false))
				from = k
			}
		case st.n >= 2 && poses[prev] == poses[h] && frames[prev] < newest &&
			newest-frames[prev] > send && f-newest > send && f-newest <= newest-frames[prev]:
			// Alike states further apart than a send, and this one within
			// that again: sent at rest in turn, not at every send (where a
			// gap is a loss, and blending from the last is right).
			ip.hold(s, h, ip.push(s, f-send, poses[h], false))
			from = f - send
		}
		// Standing still at its last state (its Velocity said so) and
		// moving at its new velocity now, e covered the way from its last
		// pose in so many frames: it set off no sooner (a player knocked
		// back, or starting to walk), and is drawn still until then rather
		// than creeping from the last state.
		if k := ip.setOff(e, poses[h], pose, f); wasStill && k > from+send && k < f {
			held := int(st.head) // before the push moves it
			ip.hold(s, held, ip.push(s, k, poses[h], false))
		}
		ip.record(s, ip.push(s, f, pose, false), e)
	}
	if past {
		old := st.raw
		nw, mode, a, b, alpha := ip.sample(st, s, frames, poses, ip.lastRender, ip.tl.newest)
		if st.flags&flagLeaving != 0 {
			nw, mode, _, _, _ = ip.leave(s, st, frames, poses, ip.lastRender, nw, mode, a, b, alpha)
		}
		ip.addOffset(s, diff(old, nw))
		st.raw = nw
		st.mode = mode
	}
}

// Born records that the host made entity e in play, at host frame f, and
// that the state Applied just recorded is its first (it is the
// replicate.BirthObserver method): e is not drawn (Pose says false, Stats
// counts it Early) until the render frame reaches its making, so that it
// appears when the world drawn around it comes to its making (a shot leaves
// the muzzle of a gun drawn firing it) instead of waiting, still, where it
// will be: made between two sends, it is moved back from its first state
// by the velocity it had there until the render frame reaches that state
// (without a velocity, or with extrapolation off, it waits for that state). One made before the render frame (its spawn late, or bringing it
// into the client's interest after its making) was there already in the
// world drawn: it is drawn at once, as entities a join brings and those
// entering the client's interest are, moved back from their first state by
// the velocity they had there until the render frame reaches it (see
// Config.IgnoreVelocity). Born after a second state, or for an entity not
// drawn from received states, changes nothing.
func (ip *Interpolator) Born(e arche.Entity, f ecs.Frame) {
	s, ok := ip.w.NetSlot(e)
	if !ok || float64(f) <= ip.lastRender {
		return
	}
	if st := ip.find(s, e); st != nil && st.flags&flagRemote != 0 && st.n == 1 {
		st.flags |= flagEarly
		if frames, _ := ip.ring(s); f < frames[st.head] {
			st.born = uint8(min(frames[st.head]-f, 255))
		}
	}
}

// Jumped records that the state about to be Applied of entity e is of a
// teleport the host made at frame f (it is the replicate.JumpObserver
// method). Where f is older than the state, the host sent its first state
// after the teleport later (its budget's priorities), and e is drawn
// jumping at f, not held where it was until the render frame reaches the
// state: from f on it is drawn moved back from that state by its velocity,
// walking on to it. The next Applied reads it and lets it go, whichever
// entity that Applied is of (the replicator calls Jumped just before it).
func (ip *Interpolator) Jumped(e arche.Entity, f ecs.Frame) {
	ip.jumpOf, ip.jumpAt = e, f
}

// Drawing reports whether entity e, which the host removed at frame f, is
// still to be drawn before its removal (it is the replicate.DrawnObserver
// method): a remote entity drawn from received states whose render frame
// (the last Update's) has not reached f. The client keeps it in its world
// meanwhile; Update moves it on along its last two states, whatever newer
// frames came without it, up to f, and Pose says false past f, so a shot
// flies on to where the host removed it instead of vanishing a render
// delay before, or resting short of it. Bounded: once the newest frame
// heard is past f by more than the render delay and two send intervals,
// where a client that draws has drawn it, or no Update ran for that long
// (a client that stopped drawing, in a world that fell quiet too), the
// answer is false, drawn or not. One not
// drawn yet (Born, ahead of the render frame) is kept too: a spark that
// lives ten frames is drawn for those ten, from its making to its removal,
// however long the render delay.
func (ip *Interpolator) Drawing(e arche.Entity, f ecs.Frame) bool {
	s, ok := ip.w.NetSlot(e)
	if !ok || ip.disabled || !ip.tl.started {
		return false
	}
	st := ip.find(s, e)
	if st == nil || st.flags&flagRemote == 0 || st.n == 0 {
		return false
	}
	if st.flags&flagLeaving == 0 || ip.leaving[s] != f {
		st.flags |= flagLeaving
		ip.leaving[s] = f
		ip.activate(s) // one at rest moves on to its removal
	}
	tl := &ip.tl
	keep := tl.delay + 2*tl.interval // seconds: how far behind the newest a drawing reaches
	if ip.clk.Now().Sub(ip.lastNow).Seconds() > keep {
		return false // the client stopped drawing (in a quiet world no newer frame comes)
	}
	return ip.lastRender < float64(f) && float64(tl.newest) <= float64(f)+keep/tl.step
}

// Heard records that a state of host frame f arrived (it is the
// replicate.FrameObserver method): an entity whose newest state is older,
// left out of it, is taken as resting once f is as far past that state as
// its states were apart (at most MaxDeferral), rather than extrapolated. A
// host whose world falls still sends empty states for this. Applied hears
// the frame of each state it records itself.
func (ip *Interpolator) Heard(f ecs.Frame) {
	if ip.tl.have && f == ip.tl.newest {
		// The newest frame again (each entity of a state or a join page
		// hears it): already marked, neither new nor a restart, and no
		// reading of the clock, which would cost a join of 100,000
		// entities about 6 ms.
		return
	}
	now := ip.clk.Now()
	if ip.tl.restarted(f, now) {
		// The host started its frames again: what was kept belongs to the
		// old run of frames.
		ip.Reset()
	}
	if ip.tl.isNew(f) {
		ip.tl.arrive(f, now)
	} else {
		ip.tl.mark(f)
	}
}

// HeldBack records the host's word of its budget for this client (it is
// the replicate.BacklogObserver method): at host frame f it had held held
// changes back lately (0: it has room again), and says so every every host
// frames while it stays full. The word stands for four of those intervals
// as the host's frames go, and as long (a second at least) on this
// client's clock since it came: a link gone dark brings no newer frame,
// and ends it so. While it stands, what the host leaves out may be waiting
// its turn rather than at rest: an entity whose Velocity says it moves, as
// its states moved or as it turned at its newest, is dead-reckoned by it
// until its next state comes, not taken to rest after twice MaxDeferral,
// nor held after MaxExtrapolation (a Tandem host sends a stop, its
// Velocity zero, ahead of every change its budget holds back, and again
// first if it is lost); and one that stood still and comes moving after a
// silence set off when its velocity says (its way over its speed), not
// MaxDeferral before the new state, which drew it rushing to it and then
// on past it at that speed.
func (ip *Interpolator) HeldBack(f ecs.Frame, held, every int) {
	switch {
	case held <= 0:
		ip.heldAt, ip.heldFor, ip.starved = 0, 0, false
	case f >= ip.heldAt:
		ip.heldAt, ip.heldFor = f, ecs.Frame(4*max(every, 1))
		ip.heldSince = ip.clk.Now()
		ip.heldLife = max(time.Duration(ip.heldFor)*ip.cfg.Step, time.Second)
	}
}

// starving reports whether the host's word that its budget for this client
// holds changes back stands at host frame g (HeldBack), as frames go.
func (ip *Interpolator) starving(g ecs.Frame) bool {
	return ip.heldAt != 0 && g <= ip.heldAt+ip.heldFor
}

// noteStarved sets starved for an Update at now with g the newest host
// frame heard: the word stands as frames go and on this client's clock.
func (ip *Interpolator) noteStarved(now time.Time, g ecs.Frame) {
	ip.starved = ip.starving(g) && now.Sub(ip.heldSince) <= ip.heldLife
}

// Removed forgets entity e before the replicator removes it; its slot starts
// clean for the next entity. It is the replicate.Observer method.
func (ip *Interpolator) Removed(e arche.Entity) {
	s, ok := ip.w.NetSlot(e)
	if !ok || ip.find(s, e) == nil {
		return
	}
	ip.clearSlot(s)
	for _, t := range ip.tracks {
		t.clear(s)
	}
}

// velocityOf returns e's ecs.Velocity, nil when it has none or velocities
// are not used (IgnoreVelocity).
func (ip *Interpolator) velocityOf(e arche.Entity) *ecs.Velocity {
	if ip.cfg.IgnoreVelocity {
		return nil
	}
	w := ip.w
	return (*ecs.Velocity)(w.Arche().Get(e, w.IDs.Velocity))
}

// walkedOn reports whether entity e, moving at its state at pose from,
// went on at the velocity it has now all the way to pose to, gap frames
// later: the way it covered is what that velocity covers in the gap, within
// a quarter. Such an entity, sent seldom (an owner's unit in AuthStates
// that share a full budget), did not stand still in the gap.
func (ip *Interpolator) walkedOn(e arche.Entity, from, to ecs.Transform, gap ecs.Frame) bool {
	v := ip.velocityOf(e)
	if v == nil {
		return false
	}
	dt := float64(gap) * ip.cfg.Step.Seconds()
	ex, ey := v.X*dt, v.Y*dt
	d := math.Hypot(to.X-from.X-ex, to.Y-from.Y-ey)
	return d <= 0.25*math.Hypot(ex, ey)
}

// standing reports whether v (velocityOf) is a velocity of no speed.
func standing(v *ecs.Velocity) bool { return v != nil && v.X == 0 && v.Y == 0 }

// observeMotion records what the Velocity v (velocityOf) of the entity of
// slot s says at its newest state (slotState.motion), and the velocity it
// moves by (lastVel); again, when more of that state came.
func (ip *Interpolator) observeMotion(st *slotState, s int32, v *ecs.Velocity, again bool) {
	before := st.motion & motionBefore
	if !again {
		before = 0
		if st.n > 0 && st.motion&motionMoving != 0 {
			before = motionBefore
		}
	}
	turned := st.motion & motionTurned
	st.motion = before
	switch {
	case movingBy(v):
		st.motion |= motionMoving
		last := ip.lastVel(s)
		if again {
			st.motion |= turned // the turn was told with the state's first part
		} else if before != 0 && math.Hypot(v.X-last.X, v.Y-last.Y) > turnShare*math.Hypot(last.X, last.Y) {
			st.motion |= motionTurned
		}
		*last = *v
	case before != 0 && v != nil && *v == ecs.Velocity{}:
		st.motion |= motionStopped
	}
}

// lastVel returns the velocity slot s's entity had at its newest state,
// kept while it moves (motionMoving).
func (ip *Interpolator) lastVel(s int32) *ecs.Velocity {
	return &ip.blocks[s>>blockBits].last[s&blockMask]
}

// movingBy reports whether v (velocityOf) is a velocity of some speed,
// finite.
func movingBy(v *ecs.Velocity) bool {
	return v != nil && finiteVel(*v) && (v.X != 0 || v.Y != 0 || v.Angular != 0)
}

// setOff returns the frame entity e, found at pose at frame f and moving
// at its Velocity, would have left from: f less the frames its speed takes
// over the way from from to pose; 0 (no estimate) without a Velocity (or
// with Config.IgnoreVelocity), one not finite or of no speed, or nothing
// covered.
func (ip *Interpolator) setOff(e arche.Entity, from, pose ecs.Transform, f ecs.Frame) ecs.Frame {
	w := ip.w
	v := (*ecs.Velocity)(w.Arche().Get(e, w.IDs.Velocity))
	if v == nil || ip.cfg.IgnoreVelocity {
		return 0
	}
	perFrame := math.Hypot(v.X, v.Y) * ip.cfg.Step.Seconds()
	way := math.Hypot(pose.X-from.X, pose.Y-from.Y)
	if !(perFrame > 1e-9) || math.IsInf(perFrame, 0) || !(way > 0) || math.IsInf(way, 0) {
		return 0
	}
	frames := math.Ceil(way/perFrame - 1e-6) // a whole number of frames' way stays whole
	if frames >= float64(f) {
		return 0
	}
	return f - ecs.Frame(frames)
}
