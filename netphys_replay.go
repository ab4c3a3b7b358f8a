package tandem

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
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

// heldBody is a remote body held (simulated by the client alone) as a
// replay began, and its state then, which the replay gives back.
type heldBody struct {
	e    arche.Entity
	pose ecs.Transform
	vel  ecs.Velocity
}

// predictedPrev is a body this client predicts and its Interpolated.Prev as
// a replay began: the replayed steps set Prev, which the correction's
// smoothing moves from where it was.
type predictedPrev struct {
	e    arche.Entity
	prev ecs.Transform
}

// replayBegin puts each body this client predicts where the restored
// prediction of frame from says (its Transform and Velocity), lists the
// remote bodies, and keeps the state of those held, which the replayed
// steps would move on again.
func (n *netPhysics) replayBegin(w *ecs.World, from ecs.Frame) {
	sp := n.w.Physics
	a := w.Arche()
	n.replaying = n.replaying[:0]
	n.held = n.held[:0]
	for s := range n.slots {
		st := &n.slots[s]
		if !st.body {
			continue
		}
		n.replaying = append(n.replaying, int32(s))
		if st.touched == 0 {
			continue
		}
		if e, _, ok := w.SlotEntity(int32(s)); ok {
			if b := sp.BodyOf(e); b != nil {
				p, v := b.Position(), b.Velocity()
				n.held = append(n.held, heldBody{e: e,
					pose: ecs.Transform{X: p.X, Y: p.Y, Angle: b.Angle()},
					vel:  ecs.Velocity{X: v.X, Y: v.Y, Angular: b.AngularVelocity()}})
			}
		}
	}
	n.prevs = n.prevs[:0]
	for _, e := range w.Owned(n.local()) {
		if a.Has(e, w.IDs.HostMoved) || sp.BodyOf(e) == nil {
			continue
		}
		if ip := (*ecs.Interpolated)(a.GetUnchecked(e, w.IDs.Interpolated)); ip != nil {
			n.prevs = append(n.prevs, predictedPrev{e: e, prev: ip.Prev})
		}
		sp.Move(e, *n.transforms.Get(e))
		sp.SetVelocity(e, *n.velocities.Get(e))
	}
}

// replayFrame steps the physics for replayed frame f, after the game's
// Replay pushed the bodies: every remote body first where the host had it
// at the frame before, carried forward.
func (n *netPhysics) replayFrame(w *ecs.World, f ecs.Frame) {
	n.placeRemote(w, f-1)
	n.w.Physics.Update(w)
}

// placeRemote puts every remote body listed by replayBegin where the host
// had it, carried forward to frame f.
func (n *netPhysics) placeRemote(w *ecs.World, f ecs.Frame) {
	for _, s := range n.replaying {
		st := &n.slots[s]
		if e, _, ok := w.SlotEntity(s); ok && st.body && n.w.Physics.BodyOf(e) != nil {
			n.put(e, st, f)
		}
	}
}

// replayEnd puts the remote bodies back where the frame the replay ran in
// starts them (carried forward to the frame before it; those held as they
// were), and gives the predicted bodies their Prev back.
func (n *netPhysics) replayEnd(w *ecs.World) {
	sp := n.w.Physics
	n.placeRemote(w, w.Frame()-1)
	for _, h := range n.held {
		if !w.Alive(h.e) || sp.BodyOf(h.e) == nil {
			continue
		}
		st := n.slot(h.e)
		sp.Move(h.e, h.pose)
		sp.SetVelocity(h.e, h.vel)
		if st != nil {
			// Between steps a remote entity's components hold the host's
			// state; its body is the client's.
			*n.transforms.Get(h.e) = st.pose
			*n.velocities.Get(h.e) = st.vel
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
	clear(n.held)
	n.held = n.held[:0]
}
