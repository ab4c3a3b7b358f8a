package tandem

import (
	"math"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/physics"
)

// Remote bodies a client predicts (ecs.Predicted): the game's systems move
// them on the client as on the host, in the client's present, and the
// engine only checks them against the host's states. Each step's end
// records where the body is (recordPredicted); a host state of frame f is
// compared with the record of frame f (checkPredicted). A difference past
// the wire's precision is waited on, and a state of a frame recorded since
// that still shows one puts the body on the host's state carried forward;
// a body at rest off the host's resting state half a second on is put
// there too (settlePredicted). The body is drawn in the present (the
// bodies drawn so, netphys_draw.go), its corrections sliding. Memory: a
// ring of predictedRing states (about 7 KB) per predicted body.

// predictedRing is how many frames of a predicted body's states a client
// keeps: two seconds at 60 Hz, more than its lead and a round trip.
const predictedRing = 128

// predictedBody is a remote body this client predicts.
type predictedBody struct {
	e    arche.Entity
	slot int32
	ring [predictedRing]bodyState // by frame % predictedRing
	// informed is the first frame whose record the client made knowing
	// what the host's last differing state told it: a state of an earlier
	// frame is compared with a record made without that (the lever the
	// host pulled, arriving with the state) and is not looked at.
	// waiting: a state differed, and the next one of a frame from informed
	// on that still differs is corrected; one that agrees ends the wait
	// (the client's own systems mended it: a path they steer onto).
	informed ecs.Frame
	waiting  bool
	// own and ownVel are what the client last left in the entity's
	// Transform and Velocity, its own state: a host state that leaves
	// another there brought it. heard is the client's frame as the newest
	// host state came.
	own    ecs.Transform
	ownVel ecs.Velocity
	heard  ecs.Frame
}

// broughtState says which of a predicted entity's pose and velocity a host
// state brought.
type broughtState struct{ pose, vel bool }

// hostValues tells, as a host state of frame f of predicted entity e
// (record st) is applied, which of its Transform and Velocity the state
// brought (wrote, as the replicator told Wrote; without word of it, those
// that differ from what the client left there), and gives those it did not
// bring their values at f, so that the interpolator, which records them
// next, is given the entity at f: where the client had it then, which the
// host did too unless a state says otherwise (the host's newest without a
// record of f). (Told by the values alone, a state that stopped the body
// where the client's had stopped it too went unheard: the host's moving
// velocity stayed the newest, and the body was never settled where the
// host's rests.)
func (n *netPhysics) hostValues(e arche.Entity, st *remoteState, f ecs.Frame) broughtState {
	pb := &n.preds[st.pred-1]
	t, v := n.transforms.Get(e), n.velocities.Get(e)
	b := broughtState{pose: *t != pb.own, vel: *v != pb.ownVel}
	if n.wroteTo == e {
		b = broughtState{pose: n.wrote.Has(n.poseC), vel: n.wrote.Has(n.velC)}
	}
	r := &pb.ring[f%predictedRing]
	recorded := r.frame == f && f != 0
	switch {
	case b.pose:
	case recorded:
		*t = r.pose
	default:
		*t = st.pose
	}
	switch {
	case b.vel:
	case recorded:
		*v = r.vel
	default:
		*v = st.vel
	}
	return b
}

// predictedAt returns the pose and velocity body e had at the end of frame
// f if this client predicts it (predicted) and its ring holds that frame
// (recorded).
func (n *netPhysics) predictedAt(e arche.Entity, f ecs.Frame) (pose ecs.Transform, vel ecs.Velocity, recorded, predicted bool) {
	s, ok := n.w.ECS.NetSlot(e)
	if !ok || int(s) >= len(n.slots) || n.slots[s].pred == 0 {
		return ecs.Transform{}, ecs.Velocity{}, false, false
	}
	r := &n.preds[n.slots[s].pred-1].ring[f%predictedRing]
	if r.frame != f || f == 0 {
		return ecs.Transform{}, ecs.Velocity{}, false, true
	}
	return r.pose, r.vel, true, true
}

// bodyState is a predicted body's state at the end of a frame.
type bodyState struct {
	frame ecs.Frame // 0: none
	pose  ecs.Transform
	vel   ecs.Velocity
}

// predictedTolerance is how far, in world units (radians for the angle),
// a predicted body may be from the host's state of the same frame without
// being corrected: two steps of the wire's precision.
const predictedTolerance = 2.0 / replicate.PositionScale

// predictedAngleTolerance is predictedTolerance's for the angle;
// predictedSpeedTolerance and predictedSpinTolerance are the velocity's
// (world units and radians a second).
const (
	predictedAngleTolerance = 2 * math.Pi / (1 << 12)
	predictedSpeedTolerance = 2.0 / replicate.VelocityScale
	predictedSpinTolerance  = 2.0 / replicate.AngularScale
)

// markedPredicted reports whether remote entity e is one this client
// predicts: marked ecs.Predicted, with a body.
func (n *netPhysics) markedPredicted(e arche.Entity) bool {
	return n.w.ECS.Arche().Has(e, n.w.ECS.IDs.Predicted)
}

// startPredicted begins predicting remote body e (slot s): its body is put
// on the host's newest state carried forward to frame now, and drawn in the
// present from there on.
func (n *netPhysics) startPredicted(e arche.Entity, st *remoteState, s int32, now ecs.Frame) {
	n.preds = append(n.preds, predictedBody{e: e, slot: s})
	st.pred = int32(len(n.preds))
	n.put(e, st, now, false)
	n.drawPredicted(e)
	n.takeBody(e)
}

// stopPredicted stops predicting the remote body of slot s (its mark taken
// away, or the entity gone): it is put on the host's states again, drawn
// in the past.
func (n *netPhysics) stopPredicted(st *remoteState) {
	i := int(st.pred) - 1
	st.pred = 0
	last := len(n.preds) - 1
	if i != last {
		n.preds[i] = n.preds[last]
		if s := n.preds[i].slot; int(s) < len(n.slots) {
			n.slots[s].pred = int32(i + 1)
		}
	}
	n.preds[last] = predictedBody{}
	n.preds = n.preds[:last]
}

// checkPredicted compares predicted body e's host state of frame f (st,
// just received) with what the client had at the end of that frame. A
// difference past the wire's precision, in pose or velocity, is first
// waited on: the state that shows it often brings what caused it (a lever
// the host pulled), which the client's own systems take from then on, and
// a system that steers the body onto a path mends it by itself (moved by
// an old frame's difference, the body was steered back, and the next state
// differed the other way, for seconds). A state of a frame recorded since,
// that still differs, puts the body on it, carried forward to now (a host
// that stopped the body, the client learning it late, has it still there,
// and sends nothing more once it is still). A teleport of the host's (snap)
// moves it there too, drawn as a jump. A state of a frame the client has
// no record of (older than predictedRing frames, or before it began
// predicting the body, which put it on the host's state) is not looked at.
func (n *netPhysics) checkPredicted(e arche.Entity, st *remoteState, f, now ecs.Frame, snap bool) {
	pb := &n.preds[st.pred-1]
	if n.w.Physics.BodyOf(e) == nil {
		return
	}
	if snap {
		n.clearRing(pb)
		pb.waiting, pb.informed = false, now+1
		n.put(e, st, now, true)
		n.takeBody(e)
		return
	}
	r := &pb.ring[f%predictedRing]
	if r.frame != f || f == 0 || f > now || f < pb.informed {
		n.takeBody(e)
		return
	}
	d := poseDiff(st.pose, r.pose)
	if st.frame != f {
		d = ecs.Transform{} // no new pose: a velocity, or another value
	}
	dv := ecs.Velocity{X: st.vel.X - r.vel.X, Y: st.vel.Y - r.vel.Y, Angular: st.vel.Angular - r.vel.Angular}
	if math.Hypot(d.X, d.Y) <= predictedTolerance && math.Abs(d.Angle) <= predictedAngleTolerance &&
		math.Hypot(dv.X, dv.Y) <= predictedSpeedTolerance && math.Abs(dv.Angular) <= predictedSpinTolerance {
		pb.waiting = false
		n.takeBody(e)
		return
	}
	// The records up to now were made before the client knew what this
	// state says: none is compared again.
	waited := pb.waiting
	pb.waiting, pb.informed = !waited, now+1
	if !waited {
		n.takeBody(e)
		return
	}
	// Where the host has it now: its state carried forward, as its steps
	// slow it if it coasts (a crate the host knocked, carried in a
	// straight line, overshot the host's by up to 23 units at 50 ms each
	// way).
	pose, vel := n.carry(e, st.pose, st.vel, float64(now-f)*n.step, isKinematic(n.w.Physics.BodyOf(e)))
	n.absorbPut(e, pose) // drawn sliding from where it was
	n.w.Physics.Move(e, pose)
	n.w.Physics.SetVelocity(e, vel)
	n.stats.Corrected++
	n.takeBody(e)
}

// clearRing forgets a predicted body's records: a teleport of the host's
// made them another path's.
func (n *netPhysics) clearRing(pb *predictedBody) {
	for i := range pb.ring {
		pb.ring[i] = bodyState{}
	}
}

// takeBody gives predicted entity e's Transform and Velocity its body's
// state: between steps, as after them, a predicted entity's components say
// where the client has it now, for the game's systems (the host's state
// went to the interpolator, which does not draw it).
func (n *netPhysics) takeBody(e arche.Entity) {
	b := n.w.Physics.BodyOf(e)
	if b == nil {
		return
	}
	v := b.Velocity()
	*n.transforms.Get(e) = bodyPose(b)
	*n.velocities.Get(e) = ecs.Velocity{X: v.X, Y: v.Y, Angular: b.AngularVelocity()}
	n.noteOwn(e)
}

// noteOwn notes what predicted entity e's Transform and Velocity hold
// now, the client's own state, so that the next host state is told from
// it (Applied).
func (n *netPhysics) noteOwn(e arche.Entity) {
	if st := n.slot(e); st != nil && st.pred != 0 {
		pb := &n.preds[st.pred-1]
		pb.own, pb.ownVel = *n.transforms.Get(e), *n.velocities.Get(e)
	}
}

// recordPredicted records each predicted body's state at the end of frame
// f: a step's, after the physics. A body whose mark the game took away
// goes back on the host's state, drawn from its states again.
func (n *netPhysics) recordPredicted(f ecs.Frame) {
	for i := len(n.preds) - 1; i >= 0; i-- {
		e, s := n.preds[i].e, n.preds[i].slot
		alive := n.w.ECS.Alive(e)
		if alive && n.markedPredicted(e) || int(s) >= len(n.slots) {
			continue
		}
		st := &n.slots[s]
		n.stopPredicted(st)
		n.forgetDrawn(e)
		n.forgetCarried(e)
		st.ahead = false
		if alive && st.body && n.w.Physics.BodyOf(e) != nil {
			n.put(e, st, f, false)
		}
	}
	for i := range n.preds {
		pb := &n.preds[i]
		b := n.w.Physics.BodyOf(pb.e)
		if b == nil {
			continue
		}
		if int(pb.slot) < len(n.slots) {
			n.settlePredicted(pb, &n.slots[pb.slot], b, f)
		}
		if ic := (*ecs.Interpolated)(n.w.ECS.Arche().GetUnchecked(pb.e, n.w.ECS.IDs.Interpolated)); ic != nil {
			// A mark of a teleport left now is the step's own SetPose of
			// the body (the host's was taken as its state was applied):
			// the client moved it, and the host's next state must not be
			// read as a teleport of the host's (snapped).
			ic.Snap = false
		}
		v := b.Velocity()
		pb.ring[f%predictedRing] = bodyState{frame: f, pose: bodyPose(b), vel: ecs.Velocity{X: v.X, Y: v.Y, Angular: b.AngularVelocity()}}
		if n.transforms.Has(pb.e) && n.velocities.Has(pb.e) {
			n.noteOwn(pb.e)
		}
	}
}

// restWait is how long, in seconds, the host's newest state of a predicted
// body must have been at rest, with no newer one, before the body, at
// rest too, is put on it if they differ: the host sends nothing of a body
// that stays still, so no state of a frame the client recorded knowing why
// it stopped (a lever, arriving after the stop itself) may come to show
// the difference.
const restWait = 0.5

// settlePredicted puts predicted body b (record pb, slot st) on the host's
// newest state of it, at the end of frame f, if that state is at rest and
// came restWait ago or more, the body is at rest too, and they differ past
// the wire's precision.
func (n *netPhysics) settlePredicted(pb *predictedBody, st *remoteState, b *cp.Body, f ecs.Frame) {
	if st.vel != (ecs.Velocity{}) || float64(f-pb.heard)*n.step < restWait || pb.heard == 0 {
		return
	}
	v := b.Velocity()
	if math.Hypot(v.X, v.Y) > predictedSpeedTolerance || math.Abs(b.AngularVelocity()) > predictedSpinTolerance {
		return
	}
	d := poseDiff(st.pose, bodyPose(b))
	if math.Hypot(d.X, d.Y) <= predictedTolerance && math.Abs(d.Angle) <= predictedAngleTolerance {
		return
	}
	n.absorbPut(pb.e, st.pose) // drawn sliding from where it was
	n.w.Physics.Move(pb.e, st.pose)
	n.w.Physics.SetVelocity(pb.e, ecs.Velocity{})
	pb.waiting, pb.informed = false, f+1
	n.stats.Corrected++
}

// placeRecorded puts predicted body e where the client had it at the end
// of frame f, for a replay's step; with no record of f, on the host's
// state carried forward.
func (n *netPhysics) placeRecorded(e arche.Entity, st *remoteState, f ecs.Frame) bool {
	r := &n.preds[st.pred-1].ring[f%predictedRing]
	if r.frame != f || f == 0 {
		return false
	}
	n.w.Physics.Move(e, r.pose)
	n.w.Physics.SetVelocity(e, r.vel)
	n.noteOwn(e)
	return true
}

// drawPredicted draws predicted body e in the present from now on.
func (n *netPhysics) drawPredicted(e arche.Entity) {
	b := n.w.Physics.BodyOf(e)
	if b == nil {
		return
	}
	n.forgetDrawn(e)
	p := bodyPose(b)
	if st := n.slot(e); st != nil {
		st.ahead = true
	}
	n.drawn = append(n.drawn, presentDraw{e: e, until: ^ecs.Frame(0), prev: p, cur: p, predicted: true})
}

// isKinematic reports whether b is a kinematic body.
func isKinematic(b *cp.Body) bool { return b != nil && b.GetType() == cp.BODY_KINEMATIC }

// Riders of predicted bodies. A remote body on a platform the client
// predicts (another player riding it) is drawn in the past, from the
// host's states, while the platform is drawn in the present: beside it,
// by as far as the platform moves in the client's lead and render delay.
// So while a predicted body touches a remote one in the client's physics
// (the remote one put on the host's state carried forward, the predicted
// one where it runs), the remote one is drawn carried: where the
// interpolator draws it, plus how far the carrier is drawn from where the
// interpolator would draw it. The touch is kept carryLinger frames past
// the last (a remote body carried forward past a turn loses it for a few),
// and the carrier's offset comes and goes over carryRamp frames.

// carriedDraw is a remote body a predicted body carries.
type carriedDraw struct {
	e, by arche.Entity
	until ecs.Frame // carried through this frame: its last touch's, and carryLinger more
	// prevW and curW are the weight of the carrier's offset at the end of
	// the last two steps.
	prevW, curW float64
}

const (
	carryLinger = 30 // frames
	carryRamp   = 8  // frames
)

// noteCarried finds, after a step, the remote bodies each predicted body
// touches, and moves every carried body's weight on by a frame.
func (n *netPhysics) noteCarried() {
	for i := range n.preds {
		b := n.w.Physics.BodyOf(n.preds[i].e)
		if b == nil {
			continue
		}
		n.carrier, n.carrierBody = n.preds[i].e, b
		b.EachArbiter(n.carryFn)
	}
	n.carrierBody = nil
	kept := n.carried[:0]
	for _, c := range n.carried {
		c.prevW = c.curW
		if n.frame <= c.until {
			c.curW = min(1, c.curW+1.0/carryRamp)
		} else {
			c.curW = max(0, c.curW-1.0/carryRamp)
		}
		if c.curW == 0 && c.prevW == 0 {
			if st := n.slot(c.e); st != nil {
				st.carried = false
			}
			continue
		}
		kept = append(kept, c)
	}
	clear(n.carried[len(kept):])
	n.carried = kept
}

// carryTouch is noteCarried's arbiter callback: the remote body at the
// other end of a contact of n.carrierBody is carried by n.carrier.
func (n *netPhysics) carryTouch(arb *cp.Arbiter) {
	a, o := arb.Bodies()
	if a == n.carrierBody {
		a = o
	}
	e, ok := physics.EntityOf(a)
	if !ok {
		return
	}
	st := n.slot(e)
	if st == nil || !st.body || st.pred != 0 {
		return
	}
	st.carried = true
	for i := range n.carried {
		if c := &n.carried[i]; c.e == e {
			c.by, c.until = n.carrier, n.frame+carryLinger
			return
		}
	}
	n.carried = append(n.carried, carriedDraw{e: e, by: n.carrier, until: n.frame + carryLinger})
}

// carriedPose returns where to draw remote body e if a predicted body
// carries it (see carriedDraw).
func (n *netPhysics) carriedPose(e arche.Entity, alpha float64) (ecs.Transform, bool) {
	if len(n.carried) == 0 || n.past == nil {
		return ecs.Transform{}, false
	}
	s, ok := n.w.ECS.NetSlot(e)
	if !ok || int(s) >= len(n.slots) || !n.slots[s].carried {
		return ecs.Transform{}, false
	}
	for i := range n.carried {
		c := &n.carried[i]
		if c.e != e {
			continue
		}
		base, ok1 := n.past(e)
		now, ok2 := n.drawnPose(c.by, alpha)
		then, ok3 := n.past(c.by)
		if !ok1 || !ok2 || !ok3 {
			return ecs.Transform{}, false
		}
		w := c.prevW + (c.curW-c.prevW)*min(max(alpha, 0), 1)
		return ecs.Transform{X: base.X + w*(now.X-then.X), Y: base.Y + w*(now.Y-then.Y), Angle: base.Angle}, true
	}
	return ecs.Transform{}, false
}

// forgetCarried stops drawing e carried, and what e carried.
func (n *netPhysics) forgetCarried(e arche.Entity) {
	kept := n.carried[:0]
	for _, c := range n.carried {
		if c.e == e || c.by == e {
			if st := n.slot(c.e); st != nil && c.e != e {
				st.carried = false
			}
			continue
		}
		kept = append(kept, c)
	}
	clear(n.carried[len(kept):])
	n.carried = kept
}
