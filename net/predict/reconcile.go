package predict

import (
	"iter"
	"math"
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// AuthState implements replicate.AuthHandler: the host's state st of owned
// entity e at frame f.
//
// A state older than the newest handled is ignored. In Correct mode each
// tracked component that differs from the prediction for f beyond its
// tolerance is corrected at once (see Correction), and the prediction
// recorded for f and the frames after it is moved by the same correction
// (HostValue: f takes the host's value, the frames after it are no longer
// compared), so a later AuthState does not correct it twice; a body
// knocked from rest is corrected by what the host's body travelled since
// too (see VelocityCarrier and TravelClamper). In Replay mode the differing
// values replace the prediction for f, and the next "predict.begin"
// replays from f. After Rebase, the states of the first AuthState frame are
// taken as they are instead (see Rebase). Allocates nothing itself (a
// TravelClamper's sweep of a knocked body may).
func (c *Client[I]) AuthState(f ecs.Frame, e arche.Entity, st replicate.State) {
	if _, ok := c.local(); !ok {
		return
	}
	c.stats.AuthStates++
	if f > c.observed {
		c.observe(f, c.clk.Now())
	}
	if f < c.newestAuth {
		c.stats.Stale++
		return
	}
	if c.rebased(f, e, st) {
		return
	}
	c.newestAuth = f
	s, ok := c.hist.find(f, recState)
	if !ok || f > c.lastRecorded {
		c.stats.Unmatched++
		return
	}
	k := c.hist.index(s, e, c.hint)
	if k < 0 {
		c.stats.Unmatched++
		return
	}
	c.hint = k + 1
	at := s*c.hist.stride + k
	c.hist.compared[at] = true
	snap := c.teleported(f, e, st)
	if c.cfg.Reconcile == Replay {
		if c.replayable(f) {
			c.markReplay(f, k, at, e, st, snap)
			return
		}
		c.stats.ReplayFallbacks++
	}
	c.correct(f, k, at, e, st, snap)
}

// teleported reports whether the AuthState st of entity e, of frame f, is
// the first compared that says e's pose is of a teleport: its correction is
// then drawn as a jump. The teleports of entities no AuthState said so of
// for 256 frames are forgotten (the host says so for 128).
func (c *Client[I]) teleported(f ecs.Frame, e arche.Entity, st replicate.State) bool {
	t, ok := st.Teleport()
	if !ok || c.teleports[e] == t {
		return false
	}
	c.noteTeleport(f, e, t)
	return true
}

// noteTeleport keeps the teleport of frame t as entity e's, drawn as a jump
// by the AuthState of frame f, and forgets, once a frame, those no
// AuthState names any more.
func (c *Client[I]) noteTeleport(f ecs.Frame, e arche.Entity, t ecs.Frame) {
	if c.teleports == nil {
		c.teleports = map[arche.Entity]ecs.Frame{}
	}
	if f != c.prunedAt {
		c.prunedAt = f
		for k, old := range c.teleports {
			if f > old+2*teleportWindow {
				delete(c.teleports, k)
			}
		}
	}
	c.teleports[e] = t
}

// dropSnaps forgets the teleports whose jump a replay was to draw and did
// not (the replay was dropped): the next AuthState that names one draws
// it.
func (c *Client[I]) dropSnaps() {
	c.dropDrifts() // the replay's drifts go with it
	for _, e := range c.snaps {
		delete(c.teleports, e)
	}
	c.snaps = c.snaps[:0]
}

// teleportWindow is how many frames after a teleport the host says so in
// the entity's AuthStates.
const teleportWindow = 128

// snapped tells the Smoother, if it is a Snapper, that entity e's pose
// jumped (its correction is no error to hide).
func (c *Client[I]) snapped(e arche.Entity) {
	if s, ok := c.cfg.Smoother.(Snapper); ok {
		s.SnapCorrection(e)
	}
}

// differs loads the host's value of t from s and reports whether it
// differs from the prediction at history entry at. A value recorded before
// a HostValue correction of an earlier frame is not compared.
func (c *Client[I]) differs(t *tracker, at int, s replicate.State) bool {
	return c.compared(t, at, s) && !t.equal(t.host, t.store.at(at))
}

// compared loads the host's value of t from s and reports whether it is
// compared with the prediction at history entry at (see differs).
func (c *Client[I]) compared(t *tracker, at int, s replicate.State) bool {
	h := &c.hist
	img := s.Image(t.comp)
	if img == nil || h.masks[at]&t.bit == 0 || h.skip[at]&t.bit != 0 {
		return false
	}
	t.dequant(img, t.host)
	return true
}

// correct applies Correct mode to entity e, entry k of frame f (history
// entry at); snap: the pose's correction is a teleport's, drawn as a jump.
func (c *Client[I]) correct(f ecs.Frame, k, at int, e arche.Entity, st replicate.State, snap bool) {
	a := c.w.Arche()
	var jump snapMotion // a teleport's change of velocity, if any
	if snap {
		jump = c.snapMotion(at, st)
	}
	kn, knocked := c.knockOf(f, e, at, st, snap || jump.changed)
	var dr driftNote
	for _, t := range c.tracks {
		differs := c.differs(t, at, st)
		if !differs && !(knocked && c.movesKnocked(&kn, t, at)) {
			continue
		}
		if differs && t.agree != nil {
			t.agree(t.host, t.store.at(at)) // the members that agree stay exact
		}
		if t.corr == HostOnly {
			c.takeHostOnly(f, k, e, t)
			continue
		}
		present := a.Has(e, t.id)
		var cc contactClamp // the clamped correction, reckoned once
		if present && !snap && !jump.changed {
			if cc = c.contactDecides(f, e, t, at, st); cc.decides {
				dr.other = dr.other || t.corr == Pose
				continue // what differs is what the entity rests on decides
			}
		}
		c.countCorrection()
		switch t.corr {
		case Pose:
			hp, pp := (*ecs.Transform)(t.host), (*ecs.Transform)(t.store.at(at))
			d := ecs.Transform{X: hp.X - pp.X, Y: hp.Y - pp.Y, Angle: ecs.AngleDiff(pp.Angle, hp.Angle)}
			dr.pose(d, snap, jump.changed || knocked && t == kn.pose || cc.reckoned && (cc.x != d.X || cc.y != d.Y))
			if jump.changed {
				from := *pp
				last, turn := c.shiftJumpPose(f, k, e, t, d, from, jump)
				if present {
					now := *(*ecs.Transform)(a.Get(e, t.id))
					travel := ecs.Transform{X: now.X - from.X, Y: now.Y - from.Y, Angle: turn + ecs.AngleDiff(last.Angle, now.Angle)}
					d = jump.pose(d, travel, c.since(f))
				}
			} else if knocked && t == kn.pose {
				d = c.carryPose(&kn, f, k, t)
			} else {
				if cc.reckoned {
					d.X, d.Y = cc.x, cc.y
				}
				c.shift(f, k, e, t, d.X, d.Y, d.Angle)
			}
			if present {
				c.movePose(e, t, d.X, d.Y, d.Angle)
				switch {
				case snap:
					c.snapped(e)
				case c.cfg.Smoother != nil:
					c.cfg.Smoother.AddCorrection(e, d.X, d.Y, d.Angle)
				}
			}
			if snap {
				c.stats.Teleports++
			} else {
				c.countPose(math.Hypot(d.X, d.Y))
			}
		case Velocity:
			hv, pv := (*ecs.Velocity)(t.host), (*ecs.Velocity)(t.store.at(at))
			d := ecs.Velocity{X: hv.X - pv.X, Y: hv.Y - pv.Y, Angular: hv.Angular - pv.Angular}
			if jump.changed {
				c.shiftJumpVelocity(f, k, e, t, jump)
				if present {
					d = jump.velocity(*(*ecs.Velocity)(a.Get(e, t.id)))
				}
			} else {
				clamped := false
				if cc.reckoned {
					clamped = cc.x != d.X || cc.y != d.Y
					d.X, d.Y = cc.x, cc.y
				}
				rests := clamped && c.gripped(e)
				vc, carried := c.correctorFor(e).(VelocityCarrier)
				carried = carried && present && !snap && !clamped
				var kv *knock // the knock whose velocity this is, if any
				if knocked && t == kn.vel {
					kv = &kn
				}
				if carried {
					d = c.carryVelocity(vc, f, k, e, t, *hv, *pv, nil, nil)
				}
				var cut ecs.Velocity // what noRunaway took of the correction
				if present {
					lim := noRunaway(d, *(*ecs.Velocity)(a.Get(e, t.id)), *hv)
					cut = ecs.Velocity{X: d.X - lim.X, Y: d.Y - lim.Y, Angular: d.Angular - lim.Angular}
					d = lim
					if carried && kv != nil && kv.stopped {
						// The host's body met what the pose's
						// correction stopped at: so did its velocity.
						v := *(*ecs.Velocity)(a.Get(e, t.id))
						s := kv.stop(ecs.Velocity{X: v.X + d.X, Y: v.Y + d.Y})
						d.X, d.Y = s.X-v.X, s.Y-v.Y
					}
				}
				switch {
				case carried:
					c.carryVelocity(vc, f, k, e, t, *hv, *pv, &cut, kv)
				case rests:
					// Held to what it rests on, the body's velocity is
					// what the contact and its friction make of it frame
					// by frame: a difference of frame f does not last
					// into the frames recorded since, which are left as
					// they are (shifted, the next state found the
					// difference the other way, and so on). One sliding
					// along it keeps the difference: shifted below.
					c.shiftVelocityAt(f, k, e, t, d.X, d.Y, d.Angular)
				default:
					c.shift(f, k, e, t, d.X, d.Y, d.Angular)
				}
			}
			if present {
				c.moveVelocity(e, t, d.X, d.Y, d.Angular)
			}
			c.stats.VelocityCorrections++
			dr.vel = true
			size := math.Hypot(d.X, d.Y)
			c.velSum += size
			c.stats.MaxVelocity = max(c.stats.MaxVelocity, size)
		default:
			c.shift(f, k, e, t, 0, 0, 0)
			if present {
				t.assign(a.Get(e, t.id), t.host)
			}
			c.stats.ValueCorrections++
		}
	}
	if pose, vel := c.poseAndVelocity(); dr.trims() {
		if n, ok := c.driftVelocity(f, e, at, vel, st, dr.d); ok {
			c.carryDrift(f, k, e, pose, vel, n)
		}
	}
	c.noteDrift(&dr, f, e)
}

// movePose moves entity e's present pose (of Pose tracker t, which e has)
// by dx, dy, da, through its Corrector where it has one.
func (c *Client[I]) movePose(e arche.Entity, t *tracker, dx, dy, da float64) {
	if cr := c.correctorFor(e); cr != nil {
		cr.CorrectPose(e, dx, dy, da)
		return
	}
	v := (*ecs.Transform)(c.w.Arche().Get(e, t.id))
	v.X += dx
	v.Y += dy
	v.Angle += da
}

// moveVelocity is movePose for entity e's present velocity (of Velocity
// tracker t).
func (c *Client[I]) moveVelocity(e arche.Entity, t *tracker, dx, dy, da float64) {
	if cr := c.correctorFor(e); cr != nil {
		cr.CorrectVelocity(e, dx, dy, da)
		return
	}
	v := (*ecs.Velocity)(c.w.Arche().Get(e, t.id))
	v.X += dx
	v.Y += dy
	v.Angular += da
}

// carryVelocity returns the difference the host's velocity of entity e at
// frame f (host) and the prediction's (pred) come to by the present,
// coasting (VelocityCarrier): the correction of the present velocity. With
// cut, it also shifts the velocities recorded for e (entry k of frame f,
// Velocity t) at f and after by the difference they come to by each frame,
// less cut (what noRunaway took of the present's, which the next states
// then find); with knock kn too, from the frame the host's body met what
// the knock's pose correction stopped at, without their part into it.
func (c *Client[I]) carryVelocity(vc VelocityCarrier, f ecs.Frame, k int, e arche.Entity, t *tracker, host, pred ecs.Velocity, cut *ecs.Velocity, kn *knock) ecs.Velocity {
	cs := c.coastFrom(vc, e, f, host, pred)
	if cut != nil {
		for g, i := range c.recorded(f, k, e, t) {
			cs.to(g)
			d := cs.apartNow()
			v := (*ecs.Velocity)(t.store.at(i))
			v.X += d.X - cut.X
			v.Y += d.Y - cut.Y
			v.Angular += d.Angular - cut.Angular
			if kn == nil {
				continue
			}
			if _, wall := kn.atWall(kn.travelled(cs)); wall {
				*v = kn.stop(*v)
			}
		}
	}
	cs.to(c.lastRecorded)
	return cs.apartNow()
}

// noRunaway returns velocity correction d of a body whose velocity is now
// v, shortened where it would make the body faster than v's speed and the
// host's velocity's (host) together, and spin it faster than both v's spin
// and the host's. The game's own forces and a contact's friction decide a
// body's velocity and spin from frame to frame (a grip that takes the
// sideways speed, a disc rubbing along a wall that rolls), so the
// difference of a past frame carried into the present is no longer the
// difference there, and adding it whole fed a loop that grew each round
// trip: a disc its player pressed into the corner of a goal spun up to
// 10^23 radians a second on her client and the contact threw it at 10^7
// units a second; a rammed vehicle with grip was left at 1,909 units a
// second by one correction, the host's never past 338. The speed's bound
// binds only where the velocity changed since the compared frame by more
// than its speed now (v + d is v less the record plus the host's, each
// carried to the present where the Corrector carries velocities). What is
// left of the difference shows in the next states.
func noRunaway(d, v, host ecs.Velocity) ecs.Velocity {
	x, y := v.X+d.X, v.Y+d.Y
	if s, limit := math.Hypot(x, y), math.Hypot(v.X, v.Y)+math.Hypot(host.X, host.Y); s > limit {
		k := limit / s
		d.X, d.Y = x*k-v.X, y*k-v.Y
	}
	if w, limit := v.Angular+d.Angular, max(math.Abs(v.Angular), math.Abs(host.Angular)); math.Abs(w) > limit {
		d.Angular = math.Copysign(limit, w) - v.Angular
	}
	return d
}

// contactClamp is what contactDecides reckoned of a Pose or Velocity
// correction: the part of it the body's contacts leave (x, y; reckoned
// false when no ContactClamper moves the entity), and whether that part is
// within the component's tolerance (decides: not corrected at all).
type contactClamp struct {
	x, y              float64
	reckoned, decides bool
}

// contactDecides clamps the difference of entity e's Pose or Velocity t
// (history entry at, of frame f; the host's state st) from the host's by
// what its Corrector's contacts decide (ContactClamper, HostClamper), and
// reports whether what remains is within the component's tolerance: a
// body resting on a platform, a hair deeper in it on this client than on
// the host, is not corrected (at every state, the history shifted by
// nothing each time). The correction applied otherwise is the clamped one,
// reckoned here once (a HostClamper's queries are not cheap).
func (c *Client[I]) contactDecides(f ecs.Frame, e arche.Entity, t *tracker, at int, st replicate.State) contactClamp {
	cl, ok := c.correctorFor(e).(ContactClamper)
	if !ok {
		return contactClamp{}
	}
	switch t.corr {
	case Pose:
		hp, pp := (*ecs.Transform)(t.host), (*ecs.Transform)(t.store.at(at))
		dx, dy := hp.X-pp.X, hp.Y-pp.Y
		cx, cy := c.clampPose(cl, f, e, at, st, hp, dx, dy)
		v := ecs.Transform{X: pp.X + cx, Y: pp.Y + cy, Angle: hp.Angle}
		return contactClamp{x: cx, y: cy, reckoned: true,
			decides: (cx != dx || cy != dy) && t.equal(unsafe.Pointer(pp), unsafe.Pointer(&v))}
	case Velocity:
		hv, pv := (*ecs.Velocity)(t.host), (*ecs.Velocity)(t.store.at(at))
		dx, dy := hv.X-pv.X, hv.Y-pv.Y
		cx, cy := cl.ClampVelocity(e, dx, dy)
		v := ecs.Velocity{X: pv.X + cx, Y: pv.Y + cy, Angular: hv.Angular}
		return contactClamp{x: cx, y: cy, reckoned: true,
			decides: (cx != dx || cy != dy) && t.equal(unsafe.Pointer(pv), unsafe.Pointer(&v))}
	}
	return contactClamp{}
}

// clampPose returns the part of a correction dx, dy of entity e's pose,
// of the host's state st of frame f (history entry at) whose pose is host,
// that the contacts of cl's body leave: a HostClamper's ClampPoseFrom,
// given the host's velocity too where st has it, or ClampPose.
func (c *Client[I]) clampPose(cl ContactClamper, f ecs.Frame, e arche.Entity, at int, st replicate.State, host *ecs.Transform, dx, dy float64) (float64, float64) {
	hc, ok := cl.(HostClamper)
	if !ok {
		return cl.ClampPose(e, dx, dy)
	}
	var v ecs.Velocity
	a := c.w.Arche()
	for _, t := range c.tracks {
		if t.corr == Velocity && a.Has(e, t.id) {
			if c.compared(t, at, st) {
				v = *(*ecs.Velocity)(t.host)
			}
			break
		}
	}
	return hc.ClampPoseFrom(e, dx, dy, *host, v, c.since(f))
}

// gripped reports whether friction holds entity e to what it rests on
// (Gripper); true for a Corrector that cannot tell.
func (c *Client[I]) gripped(e arche.Entity) bool {
	g, ok := c.correctorFor(e).(Gripper)
	return !ok || g.Gripped(e)
}

// correctorFor returns the Corrector that moves entity e, or nil when e's
// components are written directly: no Corrector is set, or it does not take
// e (see Corrector).
func (c *Client[I]) correctorFor(e arche.Entity) Corrector {
	switch k := c.cfg.Corrector.(type) {
	case nil:
		return nil
	case SelectiveCorrector:
		if !k.Corrects(e) {
			return nil
		}
	case bodyCorrector:
		if !c.w.Arche().Has(e, k.BodyID()) {
			return nil
		}
	}
	return c.cfg.Corrector
}

// shift applies a correction to the prediction recorded for entity e (entry
// k of frame f) and every frame after f: Pose and Velocity add dx, dy, da.
// HostValue and HostOnly take the host's value at f and after, as the
// present does: a replay from a frame after f restores it (it restored the
// value recorded before the host's came, and a lap count went back). A
// HostValue's values recorded after f were predicted from the old value,
// so they are not compared with the host's any more (they are not recorded
// again: the frames since f are past). A HostOnly's are what the client
// would have recorded had the host's value come in time (its systems do
// not change it), so they are compared: the host's next values, of frames
// the client had already predicted, are taken as they come.
func (c *Client[I]) shift(f ecs.Frame, k int, e arche.Entity, t *tracker, dx, dy, da float64) {
	h := &c.hist
	for g, at := range c.recorded(f, k, e, t) {
		p := t.store.at(at)
		switch t.corr {
		case Pose:
			v := (*ecs.Transform)(p)
			v.X += dx
			v.Y += dy
			v.Angle += da
		case Velocity:
			v := (*ecs.Velocity)(p)
			v.X += dx
			v.Y += dy
			v.Angular += da
		default:
			t.assign(p, t.host)
			if g != f && t.corr != HostOnly {
				h.skip[at] |= t.bit
			}
		}
	}
}

// shiftVelocityAt is shift of a Velocity for frame f alone.
func (c *Client[I]) shiftVelocityAt(f ecs.Frame, k int, e arche.Entity, t *tracker, dx, dy, da float64) {
	for g, at := range c.recorded(f, k, e, t) {
		if g == f {
			v := (*ecs.Velocity)(t.store.at(at))
			v.X += dx
			v.Y += dy
			v.Angular += da
		}
		return
	}
}

// takeHostOnly takes the host's value of a HostOnly component t of entity e
// (its entry k of frame f), loaded by differs: for frame f, the frames
// recorded since (compared with the host's next states, see shift), and
// the present if e has it. It is news, not a correction.
func (c *Client[I]) takeHostOnly(f ecs.Frame, k int, e arche.Entity, t *tracker) {
	c.shift(f, k, e, t, 0, 0, 0)
	if a := c.w.Arche(); a.Has(e, t.id) {
		t.assign(a.Get(e, t.id), t.host)
	}
	c.stats.HostUpdates++
}

// recorded yields, for each frame g from f to the last recorded, the
// history entry of entity e's component t at g (its entry k of frame f, a
// hint for the next), where g recorded it.
func (c *Client[I]) recorded(f ecs.Frame, k int, e arche.Entity, t *tracker) iter.Seq2[ecs.Frame, int] {
	return func(yield func(ecs.Frame, int) bool) {
		h := &c.hist
		for g := f; g <= c.lastRecorded && g >= f; g++ {
			s, ok := h.find(g, recState)
			if !ok {
				continue
			}
			if k = h.index(s, e, k); k < 0 {
				k = 0
				continue
			}
			at := s*h.stride + k
			if h.masks[at]&t.bit == 0 {
				continue
			}
			if !yield(g, at) {
				return
			}
		}
	}
}

func (c *Client[I]) countCorrection() {
	c.stats.Corrections++
	c.secCount++
}

func (c *Client[I]) countPose(size float64) {
	c.stats.PoseCorrections++
	c.poseSum += size
	c.stats.MaxPose = max(c.stats.MaxPose, size)
}
