package tandem

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// The pushes of predicted bodies. A body pressed against something (a
// wall it walks into, the floor under gravity) is pushed out of it at
// every step besides its velocity: cp's bias velocity, from the step
// before's contacts. A replay puts a predicted body back where a recorded
// frame had it; its first replayed step needs that frame's push, which the
// present's (kept) is not when the body touched then what it does not now.
// The client records each predicted body's push at every frame it steps,
// and a replay gives back the push of its first replayed frame.

// pushRing is one body's pushes by frame, the last pushFrames of them.
type pushRing [pushFrames]framePush

// framePush is the push a body's step of frame f took.
type framePush struct {
	f           ecs.Frame
	x, y, angle float64
}

// pushFrames is how many frames of pushes a body keeps: more than a replay
// goes back (the round trip and the lead), and than the prediction keeps
// by default (predict.ClientConfig.History, 128). A replay from a frame
// not kept keeps the present's push (physics.Space.MoveKeepingPush).
const pushFrames = 256

// recordPushes records the push of each body this client predicts at
// frame f, just stepped.
func (n *netPhysics) recordPushes(w *ecs.World, f ecs.Frame) {
	sp := n.w.Physics
	for _, e := range w.Owned(n.local()) {
		if !n.predictsBody(w, e) {
			continue
		}
		r := n.pushes[e]
		if r == nil {
			if n.pushes == nil {
				n.pushes = map[arche.Entity]*pushRing{}
			}
			r = new(pushRing)
			n.pushes[e] = r
		}
		x, y, angle := sp.Push(e)
		r[f%pushFrames] = framePush{f: f, x: x, y: y, angle: angle}
	}
	if f%pushFrames == 0 {
		for e := range n.pushes {
			if !w.Alive(e) {
				delete(n.pushes, e)
			}
		}
	}
}

// givePush gives predicted body e, put back where frame from had it, the
// push its step of frame from+1 took, if recorded.
func (n *netPhysics) givePush(e arche.Entity, from ecs.Frame) {
	r := n.pushes[e]
	if r == nil {
		return
	}
	if p := r[(from+1)%pushFrames]; p.f == from+1 {
		n.w.Physics.SetPush(e, p.x, p.y, p.angle)
	}
}
