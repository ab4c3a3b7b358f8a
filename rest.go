package tandem

import (
	"math"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// AuthState implements replicate.AuthHandler for the rest lock (see
// NetPhysics). While the lock holds a body, its pose and velocity are the
// lock's to apply: the predictor, which would carry each difference into the
// frames it predicted since, gets the state without them (once its clock is
// in step: until then the host frames of AuthState are what it sets the
// clock by), but for the first state that names a teleport of the body
// (replicate.State.Teleport), which the predictor draws as a jump (and the
// lock too, if the predictor could not compare it). Every other host value
// goes on to the predictor.
func (n *netPhysics) AuthState(f ecs.Frame, e arche.Entity, s replicate.State) {
	if n.enabled && !n.cfg.NoRest && n.pose != nil && n.w.ECS.Arche().Has(e, n.bodyID) {
		r := n.rest(e)
		if f >= r.restFrame {
			v, q := s.Image(n.velC), s.Image(n.poseC)
			r.rest = v != nil && q != nil && allZero(v)
			r.restFrame = f
			if r.rest {
				n.pose(q, &r.restPose)
			}
			// A state that names a new teleport goes to the predictor
			// whole, and the lock's next move of the body is a jump:
			// kept until that move, through the states after it.
			tele, ok := s.Teleport()
			first := ok && tele != r.tele
			if ok {
				r.tele = tele
			}
			r.jump = r.jump || first
			if n.holds(r) && n.synced() && !first {
				s = s.Without(n.poseC).Without(n.velC)
			}
		}
	}
	n.auth.AuthState(f, e, s)
}

// allZero reports whether every integer of a wire image is zero.
func allZero(q []int32) bool {
	for _, v := range q {
		if v != 0 {
			return false
		}
	}
	return true
}

// rest returns e's rest state, adding one.
func (n *netPhysics) rest(e arche.Entity) *restState {
	for i := range n.rests {
		if n.rests[i].e == e {
			return &n.rests[i]
		}
	}
	n.rests = append(n.rests, restState{e: e})
	return &n.rests[len(n.rests)-1]
}

// holds reports whether the lock holds r's body: the host has it at rest, as
// of a frame after a moving kinematic body last pushed it, and no input was
// given since.
func (n *netPhysics) holds(r *restState) bool {
	return r.rest && n.neutral != 0 && n.neutral <= r.restFrame && r.restFrame > r.pushed
}

// input notes whether the input of frame f was the zero value.
func (n *netPhysics) input(f ecs.Frame, neutral bool) {
	switch {
	case !neutral:
		n.neutral = 0
	case n.neutral == 0:
		n.neutral = f
	}
}

// pushedByKinematic reports whether body b touches a kinematic body that
// moves (a door closing on it, a platform carrying it).
func (n *netPhysics) pushedByKinematic(b *cp.Body) bool {
	if b == nil {
		return false
	}
	n.kinBody, n.kinMoving = b, false
	b.EachArbiter(n.kinTouch)
	n.kinBody = nil
	return n.kinMoving
}

// kinematicTouch is pushedByKinematic's arbiter callback.
func (n *netPhysics) kinematicTouch(arb *cp.Arbiter) {
	a, o := arb.Bodies()
	if a == n.kinBody {
		a = o
	}
	if a.GetType() == cp.BODY_KINEMATIC && (a.Velocity() != (cp.Vector{}) || a.AngularVelocity() != 0) {
		n.kinMoving = true
	}
}

// holdRests puts every held predicted body on the host's resting pose.
func (n *netPhysics) holdRests() {
	if n.cfg.NoRest {
		return
	}
	w := n.w.ECS
	for i := range n.rests {
		r := &n.rests[i]
		jump := r.jump // a frame's chance: a body the lock does not hold moves on its own
		r.jump = false
		if !n.holds(r) || !w.Alive(r.e) || !w.Arche().Has(r.e, n.bodyID) || w.Arche().Has(r.e, w.IDs.HostMoved) {
			continue
		}
		if n.pushedByKinematic(n.w.Physics.BodyOf(r.e)) {
			// A door or a platform moving into it: on this client, ahead
			// of the host, it pushes before the host's does, and until the
			// host has it at rest after the push (a contact that breaks
			// for a frame does not put it back into the door).
			r.pushed = n.frame
			continue
		}
		tp := n.transforms.Get(r.e)
		t := *tp
		// What of its pose rounds as the host's does stays its own, exact
		// (a heading the host did not change).
		n.held = r.restPose
		if n.agree != nil {
			n.agree.Keep(&n.held, tp)
		}
		p := n.held
		dx, dy, da := p.X-t.X, p.Y-t.Y, ecs.AngleDiff(t.Angle, p.Angle)
		if dx != 0 || dy != 0 || da != 0 {
			n.w.Physics.Move(r.e, p)
			switch {
			case jump:
				n.snap(r.e) // a teleport: drawn as a jump
			case math.Hypot(dx, dy) > n.poseTol:
				n.smooth(r.e, dx, dy, da)
			}
			n.stats.Rests++
		}
		n.w.Physics.SetVelocity(r.e, ecs.Velocity{})
	}
}
