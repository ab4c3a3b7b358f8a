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
// a Body. Called during the physics step (from a cp callback: a pickup's
// sensor), it takes effect when the step ends, as cp allows.
func (s *Space) SetSolid(e arche.Entity, solid bool) {
	b := s.mustBody(e, "SetSolid")
	if s.stepping {
		s.cp.AddPostStepCallback(func(_ *cp.Space, _, data any) {
			if s.BodyOf(e) == b { // not removed meanwhile
				s.setSolid(b, data.(bool))
			}
		}, nil, solid)
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
