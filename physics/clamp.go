package physics

import (
	"math"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// ClampPose returns the part of a correction of entity e's pose by dx, dy
// (world units) that does not sink its body into a static or kinematic body
// it touches past where it touches it now: along each such contact's
// normal, the correction goes no further into it than the gap there (0
// where they overlap). A body with no such contact, or none, takes the
// whole. A correction that would take the body's centre past the contact's
// surface is taken whole too: the host has the body in it or beyond it,
// not resting a little deeper against it (a player squeezed through a thin
// wall on a client, the host's state on the near side, was held outside by
// every correction for seconds). Given where the host's body was,
// ClampPoseFrom tells these apart better. It allocates nothing.
func (s *Space) ClampPose(e arche.Entity, dx, dy float64) (float64, float64) {
	b := s.BodyOf(e)
	if b == nil {
		return dx, dy
	}
	d := s.clampInto(b, cp.Vector{X: dx, Y: dy}, true)
	return d.X, d.Y
}

// ClampDrawn returns the part of a drawn offset dx, dy (world units) of
// entity e, the drawn pose less the simulated one, that does not draw its
// body further into a static or kinematic body it touches than it is:
// ClampPose's rule for the bodies it touches, to the last unit (no part of
// it passes through). A client keeps so a body it predicts from being
// drawn sinking into the floor it landed on, where a correction that
// lifted it as it fell left it drawn (interp.Interpolator.ClampOffset). It
// runs every frame an offset is left, and allocates nothing.
func (s *Space) ClampDrawn(e arche.Entity, dx, dy float64) (float64, float64) {
	b := s.BodyOf(e)
	if b == nil {
		return dx, dy
	}
	d := s.clampInto(b, cp.Vector{X: dx, Y: dy}, false)
	return d.X, d.Y
}

// clampInto takes out of move d of body b, along the normal of each static
// or kinematic body it touches, what goes further into it than the gap
// there; through: a move that takes b's centre past that body's surface is
// left whole.
func (s *Space) clampInto(b *cp.Body, d cp.Vector, through bool) cp.Vector {
	for _, c := range s.supports(b) {
		into := d.Dot(c.n)
		allowed := max(0, c.gap)
		if into <= allowed || through && into >= c.gap+extentAlong(b, c.n) {
			continue
		}
		d = d.Sub(c.n.Mult(into - allowed))
	}
	return d
}

// ClampPoseFrom is ClampPose for a correction of entity e's pose by dx, dy
// (world units) that the host's state of a past frame gives: its body at
// pose host then, with velocity v (world units a second), dt seconds ago.
// Knowing where the host's body was, it tells a body beyond a static or
// kinematic body from one a difference of a past frame would put through
// it:
//   - Into such a body e's body touches, the correction goes past the gap
//     only if the host's body was beyond that body's surface then (a
//     player squeezed through a thin wall on this client, the host's on
//     the near side, is taken back through it).
//   - Along the path of its centre, it stops at the edge of each such
//     body's surface the host's body was on the near side of (touched or
//     not, thick or thin). A difference of a frame the body still fell
//     in, carried to the present where it has landed, put a player who
//     jumped off a moving platform over a 100 ms link 21 units into a
//     thick floor, and a rider who hopped off a lift through a thin one,
//     out of the world. It stops short by the body's next step towards
//     the surface: put on it at the speed it fell at, a body went a step
//     into a thin floor and through it.
//   - Lifting it off such a body it touches, the correction goes only as
//     far as v did not close towards it in dt: a host's body that fell
//     towards it that fast has landed on it since too. (A player whose
//     client landed a frame early was lifted 4 units off the floor by each
//     of ten states, to fall back each time.)
//
// It is the physics side of predict.HostClamper. cp's query of the shapes
// along the centre's path allocates a few small objects: it is a
// correction's, not a step's.
func (s *Space) ClampPoseFrom(e arche.Entity, dx, dy float64, host ecs.Transform, v ecs.Velocity, dt float64) (float64, float64) {
	b := s.BodyOf(e)
	if b == nil {
		return dx, dy
	}
	d := cp.Vector{X: dx, Y: dy}
	c, hp, hv := b.Position(), cp.Vector{X: host.X, Y: host.Y}, cp.Vector{X: v.X, Y: v.Y}
	step := b.Velocity().Mult(s.dt) // where its next step takes it
	for _, sp := range s.supports(b) {
		into, allowed := d.Dot(sp.n), max(0, sp.gap-max(0, step.Dot(sp.n)))
		switch {
		case into > allowed:
			if hp.Sub(c).Dot(sp.n) >= sp.gap+extentAlong(b, sp.n) {
				continue // the host's body was beyond it
			}
			d = d.Sub(sp.n.Mult(into - allowed))
		case into < 0 && hv.Dot(sp.n)*dt >= -into:
			d = d.Sub(sp.n.Mult(into)) // the landing took the lift
		}
	}
	if d == (cp.Vector{}) {
		return 0, 0
	}
	d = s.stopAtSurfaces(b, d, hp, step)
	return d.X, d.Y
}

// stopAtSurfaces returns correction d of body b stopped, along the normal
// of each static or kinematic body's surface its centre's path from where
// it is now meets (on past d's end by the body's reach and its next step),
// where b's edge reaches that surface less what its next step (step) takes
// it towards it, if the host's body's centre hp was on the near side of it
// (ClampPoseFrom).
func (s *Space) stopAtSurfaces(b *cp.Body, d, hp, step cp.Vector) cp.Vector {
	filter, ok := filterOf(b)
	if !ok {
		return d
	}
	c := b.Position()
	dir := d.Normalize()
	// The centre's path, on by the body's reach along it and its next
	// step's move.
	end := c.Add(d).Add(dir.Mult(extentAlong(b, dir) + step.Length()))
	s.cp.SegmentQuery(c, end, 0, filter, func(sh *cp.Shape, at, normal cp.Vector, _ float64, _ any) {
		o := sh.Body()
		if o == b || sh.Sensor() || o.GetType() == cp.BODY_DYNAMIC || normal.Dot(d) >= 0 || hp.Sub(at).Dot(normal) < 0 {
			return // passed, or the host's body was beyond it
		}
		n := normal.Neg() // from b's centre towards the surface
		gap := at.Sub(c).Dot(n) - extentAlong(b, n)
		if into, allowed := d.Dot(n), max(0, gap-max(0, step.Dot(n))); into > allowed {
			d = d.Sub(n.Mult(into - allowed))
		}
	}, nil)
	return d
}

// filterOf returns the filter of body b's first shape that is not a
// sensor, which its queries use.
func filterOf(b *cp.Body) (cp.ShapeFilter, bool) {
	var filter cp.ShapeFilter
	found := false
	b.EachShape(func(sh *cp.Shape) {
		if !found && !sh.Sensor() {
			filter, found = sh.Filter, true
		}
	})
	return filter, found
}

// ClampVelocity returns the part of a correction of entity e's velocity by
// dx, dy (world units a second) that does not change how fast its body
// moves towards or away from a static or kinematic body it touches: the
// contact decides that, and a difference of a past frame carried into it
// (a bounce since landed) would throw the body off what carries it, or
// press it in. A body with no such contact takes the whole
// (predict.ContactClamper). It allocates nothing.
func (s *Space) ClampVelocity(e arche.Entity, dx, dy float64) (float64, float64) {
	b := s.BodyOf(e)
	if b == nil {
		return dx, dy
	}
	for _, c := range s.supports(b) {
		along := dx*c.n.X + dy*c.n.Y
		dx -= c.n.X * along
		dy -= c.n.Y * along
	}
	return dx, dy
}

// extentAlong returns how far body b's shapes reach from its centre along
// unit vector n, at most (from their bounding boxes).
func extentAlong(b *cp.Body, n cp.Vector) float64 {
	p := b.Position()
	ext := 0.0
	b.EachShape(func(sh *cp.Shape) {
		bb := sh.BB()
		x := max(bb.R-p.X, p.X-bb.L)
		y := max(bb.T-p.Y, p.Y-bb.B)
		ext = max(ext, math.Abs(n.X)*x+math.Abs(n.Y)*y)
	})
	return ext
}

// support is a contact of a body with a static or kinematic body: the
// normal from the body towards the other (unit length) and the gap
// (negative: overlap).
type support struct {
	n   cp.Vector
	gap float64
}

// supports returns the contacts of body b with static or kinematic bodies,
// as of the last step. The slice is the Space's, valid until the next call.
func (s *Space) supports(b *cp.Body) []support {
	s.sup, s.supBody = s.sup[:0], b
	b.EachArbiter(s.supportOf)
	s.supBody = nil
	return s.sup
}

// addSupport is supports' arbiter callback (made once as s.supportOf: a
// method value allocates).
func (s *Space) addSupport(arb *cp.Arbiter) {
	b := s.supBody
	a, o := arb.Bodies()
	n := arb.Normal() // from a towards o
	if o == b {
		a, o = o, a
		n = n.Neg()
	}
	if a != b || o.GetType() == cp.BODY_DYNAMIC {
		return
	}
	set := arb.ContactPointSet()
	if set.Count == 0 {
		return
	}
	gap := math.Inf(1)
	for i := 0; i < set.Count; i++ {
		gap = min(gap, set.Points[i].Distance)
	}
	s.sup = append(s.sup, support{n: n, gap: gap})
}
