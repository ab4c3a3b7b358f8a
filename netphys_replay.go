package tandem

import (
	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// Replaying bodies. A client given ClientConfig.Replay replays a correction
// of a body it predicts by the physics itself: the body goes back to the
// host's state of the corrected frame, and each frame since is stepped
// again, the game's Replay pushing the bodies with the frame's input and
// the Space stepping them, every remote body put first where the host had
// it at the frame before (carried forward, as each step does). So what the
// body met since (a floor, a wall, a car) it meets again, and a force of the
// game's own that depends on the velocity (grip, drag) acts on the
// corrected velocity: the correction is what the frames since make of it,
// not the past frame's difference carried into the present as it was.

// keptBody is a body the replayed steps must not move on for good: a
// remote body held (simulated by the client alone) that the client has no
// record of at the frame replayed from (one it has, the replay steps:
// replayHeld), or one of the client's own that is not networked (debris);
// its state as the replay began, which the replay gives back.
type keptBody struct {
	b    *cp.Body
	e    arche.Entity // zero for a body of no entity's
	pose ecs.Transform
	vel  ecs.Velocity
	held bool // a remote body held: its components hold the host's state
}

// predictedPrev is a body this client predicts and its Interpolated.Prev as
// a replay began: the replayed steps set Prev, which the correction's
// smoothing moves from where it was.
type predictedPrev struct {
	e    arche.Entity
	prev ecs.Transform
}

// predictsBody reports whether this client predicts owned entity e's body:
// it has one, and the host does not move it (ecs.HostMoved).
func (n *netPhysics) predictsBody(w *ecs.World, e arche.Entity) bool {
	return !w.Arche().Has(e, w.IDs.HostMoved) && n.w.Physics.BodyOf(e) != nil
}

// willStep reports whether a replay beginning now steps the physics (what
// replayBegin sets n.stepping to): this client predicts a body drawn
// interpolated.
func (n *netPhysics) willStep(w *ecs.World) bool {
	a := w.Arche()
	for _, e := range w.Owned(n.local()) {
		if n.predictsBody(w, e) && a.Has(e, w.IDs.Interpolated) {
			return true
		}
	}
	return false
}

// replayBegin puts each body this client predicts where the restored
// prediction of frame from says (its Transform and Velocity), lists the
// remote bodies, and keeps the state of the bodies the replayed steps must
// not move on for good (see keptBody). Without a predicted body the replay
// leaves the physics alone (n.stepping false).
func (n *netPhysics) replayBegin(w *ecs.World, from ecs.Frame) {
	sp := n.w.Physics
	a := w.Arche()
	n.prevs = n.prevs[:0]
	for _, e := range w.Owned(n.local()) {
		if !n.predictsBody(w, e) {
			continue
		}
		if ip := (*ecs.Interpolated)(a.GetUnchecked(e, w.IDs.Interpolated)); ip != nil {
			n.prevs = append(n.prevs, predictedPrev{e: e, prev: ip.Prev})
		}
		sp.MoveKeepingPush(e, *n.transforms.Get(e))
		sp.SetVelocity(e, *n.velocities.Get(e))
	}
	n.stepping = len(n.prevs) > 0
	if n.stepping {
		for _, e := range w.Owned(n.local()) {
			if n.predictsBody(w, e) {
				n.givePush(e, from)
			}
		}
	}
	if n.stepping {
		n.drawnReplayBegin()
	}
	n.replaying = n.replaying[:0]
	n.kept = n.kept[:0]
	if !n.stepping {
		return
	}
	// The remote bodies the replayed steps move: those awake, or not on
	// the host's state (a remote body asleep there, still, stays asleep,
	// and costs the replay nothing); those a step wakes join them
	// (listMoved).
	for s := range n.slots {
		st := &n.slots[s]
		if !st.body {
			continue
		}
		if e, _, ok := w.SlotEntity(int32(s)); ok {
			if b := sp.BodyOf(e); b != nil && !n.asleepOnHost(b, st) {
				n.list(int32(s))
			}
		}
	}
	sp.CP().EachBody(n.keepBody)
	n.replayHeld(w, from)
}

// replayHeld puts each held remote body the client recorded at frame from
// where it had it then (its hold's record, which the host's states that
// agreed aligned), with the present's push, for the replayed steps to move
// as they move what pushes it; the replay keeps what they make of it
// (simulated). (Put on the host's state at each replayed frame instead, a
// heavy body the player pushes slowly, whose small moves the host sends
// seldom and which its friction stops where a state has it, stood behind
// where she pushed it, and every replay replayed her into it, to be
// corrected again.)
func (n *netPhysics) replayHeld(w *ecs.World, from ecs.Frame) {
	for _, s := range n.replaying {
		st := &n.slots[s]
		h := n.heldRecs[s]
		if st.touched == 0 || st.pred != 0 || h == nil {
			continue // not held, or this client's to predict
		}
		r := h.ring[from%heldRing]
		e, _, ok := w.SlotEntity(s)
		if r.frame != from || !ok {
			continue
		}
		n.w.Physics.MoveKeepingPush(e, r.pose)
		n.w.Physics.SetVelocity(e, r.vel)
		st.simulated = true
	}
}

// asleepOnHost reports whether remote body b (its record st) sleeps where
// the host has it, still: nothing to put, and a replay leaves it asleep.
func (n *netPhysics) asleepOnHost(b *cp.Body, st *remoteState) bool {
	if !b.IsSleeping() || st.vel != (ecs.Velocity{}) {
		return false
	}
	p := b.Position()
	return p.X == st.pose.X && p.Y == st.pose.Y && b.Angle() == st.pose.Angle
}

// list adds remote slot s to the replay's remote bodies.
func (n *netPhysics) list(s int32) {
	if st := &n.slots[s]; !st.replayed {
		st.replayed = true
		n.replaying = append(n.replaying, s)
	}
}

// listMoved lists the remote bodies the last step moved that the replay
// did not list: woken by what it stepped.
func (n *netPhysics) listMoved(w *ecs.World) {
	for _, e := range n.w.Physics.Moved() {
		if s, ok := w.NetSlot(e); ok && int(s) < len(n.slots) && n.slots[s].body {
			n.list(s)
		}
	}
}

// keepBody keeps the state of body b if the replayed steps must give it
// back (keptBody): a remote body held, asleep or not, and an awake one
// neither predicted nor remote (one asleep stays so unless a replayed step
// wakes it).
func (n *netPhysics) keepBody(b *cp.Body) {
	if b.GetType() == cp.BODY_STATIC {
		return
	}
	e, ok := physics.EntityOf(b)
	if ok {
		if st := n.slot(e); st != nil && st.body {
			if st.touched != 0 {
				n.keep(b, e, true)
			}
			return // else put on the host's state each frame, and after
		}
		if n.predicts(e) {
			return // the replay is for it
		}
	}
	if !b.IsSleeping() {
		n.keep(b, e, false)
	}
}

// keep keeps body b's state (of entity e, zero for none; held: a remote
// body held) for replayEnd.
func (n *netPhysics) keep(b *cp.Body, e arche.Entity, held bool) {
	p, v := b.Position(), b.Velocity()
	n.kept = append(n.kept, keptBody{b: b, e: e, held: held,
		pose: ecs.Transform{X: p.X, Y: p.Y, Angle: b.Angle()},
		vel:  ecs.Velocity{X: v.X, Y: v.Y, Angular: b.AngularVelocity()}})
}

// predicts reports whether this client predicts entity e: its own, not
// marked ecs.HostMoved.
func (n *netPhysics) predicts(e arche.Entity) bool {
	w := n.w.ECS
	if !w.Alive(e) {
		return false
	}
	id, networked := w.Identity(e)
	return networked && id.Owner == n.local() && !w.Arche().Has(e, w.IDs.HostMoved)
}

// replayFrame steps the physics for replayed frame f, after the game's
// Replay pushed the bodies: every remote body first where the host had it
// at the frame before, carried forward; then the remote entities'
// components go back to the host's state (a predicted body's to where the
// client had it), which the next frame's Replay reads, as a step's
// systems do.
func (n *netPhysics) replayFrame(w *ecs.World, f ecs.Frame) {
	if !n.stepping {
		return
	}
	n.placeRemote(w, f-1)
	n.w.Physics.Update(w)
	n.recordPushes(w, f)
	n.frame = f
	n.holdTouched(w)
	n.listMoved(w)
	for _, s := range n.replaying {
		st := &n.slots[s]
		e, _, ok := w.SlotEntity(s)
		switch {
		case !ok || !st.body:
		case st.pred != 0:
			n.takeBody(e) // where the client had it: a predicted body's are its own
		case st.simulated:
			n.recordHeld(e, f)
			*n.transforms.Get(e) = st.pose
			*n.velocities.Get(e) = st.vel
		default:
			*n.transforms.Get(e) = st.pose
			*n.velocities.Get(e) = st.vel
		}
	}
}

// placeRemote puts every remote body the replay lists where the host had
// it, carried forward to frame f; one asleep there, still, stays asleep.
func (n *netPhysics) placeRemote(w *ecs.World, f ecs.Frame) {
	for _, s := range n.replaying {
		st := &n.slots[s]
		e, _, ok := w.SlotEntity(s)
		if !ok || !st.body {
			continue
		}
		if st.simulated {
			continue
		}
		if b := n.w.Physics.BodyOf(e); b != nil && !n.asleepOnHost(b, st) {
			n.put(e, st, f, false)
		}
	}
}

// replayEnd puts the remote bodies back where the frame the replay ran in
// starts them (carried forward to the frame before it; those held as they
// were, but those the replay stepped, which stay where it left them), and
// gives the predicted bodies their Prev back.
func (n *netPhysics) replayEnd(w *ecs.World) {
	if !n.stepping {
		return
	}
	sp := n.w.Physics
	n.placeRemote(w, w.Frame()-1)
	for _, k := range n.kept {
		switch {
		case k.e == (arche.Entity{}):
			setBody(k.b, k.pose, k.vel)
		case !w.Alive(k.e) || sp.BodyOf(k.e) != k.b:
			// Gone since.
		case k.held && n.slot(k.e) != nil && n.slot(k.e).simulated:
			// Where the replayed steps left it; its components hold the
			// host's state, as between steps.
			st := n.slot(k.e)
			st.simulated = false
			*n.transforms.Get(k.e) = st.pose
			*n.velocities.Get(k.e) = st.vel
		default:
			sp.Move(k.e, k.pose)
			sp.SetVelocity(k.e, k.vel)
			if st := n.slot(k.e); k.held && st != nil {
				// Between steps a remote entity's components hold the
				// host's state; its body is the client's.
				*n.transforms.Get(k.e) = st.pose
				*n.velocities.Get(k.e) = st.vel
			}
		}
	}
	a := w.Arche()
	for _, p := range n.prevs {
		if w.Alive(p.e) {
			if ip := (*ecs.Interpolated)(a.GetUnchecked(p.e, w.IDs.Interpolated)); ip != nil {
				ip.Prev = p.prev
			}
		}
	}
	clear(n.kept)
	n.kept = n.kept[:0]
	for _, s := range n.replaying {
		n.slots[s].replayed, n.slots[s].simulated = false, false
	}
	n.replaying = n.replaying[:0]
	n.drawnReplayEnd()
	n.stepping = false
}

// setBody puts body b, of no entity's, at pose with velocity v.
func setBody(b *cp.Body, pose ecs.Transform, v ecs.Velocity) {
	b.SetPosition(cp.Vector{X: pose.X, Y: pose.Y})
	b.SetAngle(pose.Angle)
	b.SetVelocity(v.X, v.Y)
	b.SetAngularVelocity(v.Angular)
}
