package physics

import (
	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"
)

// SetSolid takes the shapes of entity e's body out of the space (solid
// false) or puts them back (true). Out of it, nothing meets the body,
// queries (ClampTravel, cp's) do not find it, and the bodies resting on it
// or touching it wake; the body itself stays, moves on and keeps its
// pose, velocity and Body component. A client hides a body so while it
// predicts the entity's removal (a dead enemy's body does not block its
// player until the host's removal comes). Setting what already is does
// nothing; removing the entity or its Body forgets the shapes. e must have
// a Body. Called during the physics step (from a cp callback, a post-step
// one included: a pickup's sensor), it takes effect once cp's step has
// returned, as cp allows. Taking out the shapes of a body whose mass comes
// from its shapes (cp's Shape.SetMass or SetDensity) leaves it without
// mass, which cp cannot step: give such a body its mass (NewBody) instead.
func (s *Space) SetSolid(e arche.Entity, solid bool) {
	b := s.mustBody(e, "SetSolid")
	if s.stepping {
		op := deferUnsolid
		if solid {
			op = deferSolid
		}
		s.deferred = append(s.deferred, deferredOp{b: b, e: e, op: op})
		return
	}
	s.setSolid(b, solid)
}

// setSolid is SetSolid of body b, with the space unlocked.
func (s *Space) setSolid(b *cp.Body, solid bool) {
	shapes, out := s.unsolid[b]
	switch {
	case solid && out:
		delete(s.unsolid, b)
		for _, sh := range shapes {
			s.cp.AddShape(sh) // wakes a dynamic body
		}
		if b.GetType() == cp.BODY_STATIC {
			for _, sh := range shapes {
				s.wakeUnder(sh)
			}
		}
	case !solid && !out:
		b.EachShape(func(sh *cp.Shape) { shapes = append(shapes, sh) })
		for _, sh := range shapes {
			s.cp.RemoveShape(sh) // wakes what touches it
		}
		if s.unsolid == nil {
			s.unsolid = map[*cp.Body][]*cp.Shape{}
		}
		s.unsolid[b] = shapes
	}
}

// Solid reports whether entity e's body is in the space with its shapes:
// false for an entity without a Body, and after SetSolid(e, false).
func (s *Space) Solid(e arche.Entity) bool {
	b := s.BodyOf(e)
	if b == nil {
		return false
	}
	_, out := s.unsolid[b]
	return !out
}

// deferredOp is work asked of the Space while cp stepped (from its
// callbacks, post-step ones included), which cp does not allow then: a
// body's shapes to put back or take out (SetSolid), or the body to remove
// (its entity or Body removed). Update runs it once cp's step has returned,
// in the order asked.
type deferredOp struct {
	b  *cp.Body
	e  arche.Entity // SetSolid's entity: the op is dropped if it lost b meanwhile
	op uint8
}

// The deferred ops.
const (
	deferSolid uint8 = iota
	deferUnsolid
	deferRemove
)

// runDeferred runs what was asked while cp stepped; cp's step has returned.
func (s *Space) runDeferred() {
	for i := 0; i < len(s.deferred); i++ { // an op may not add more, but is indexed anew
		d := s.deferred[i]
		switch d.op {
		case deferRemove:
			if s.cp.ContainsBody(d.b) {
				s.remove(d.b)
			}
		default:
			if s.BodyOf(d.e) == d.b {
				s.setSolid(d.b, d.op == deferSolid)
			}
		}
	}
	clear(s.deferred)
	s.deferred = s.deferred[:0]
}
