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
	return s.clampInto(e, dx, dy, true)
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
	return s.clampInto(e, dx, dy, false)
}

// clampInto takes out of a move dx, dy of entity e's body, along the normal
// of each static or kinematic body it touches, what goes further into it
// than the gap there; through: a move that takes the body's centre past
// that body's surface is left whole. An entity with no body moves whole.
func (s *Space) clampInto(e arche.Entity, dx, dy float64, through bool) (float64, float64) {
	b := s.BodyOf(e)
	if b == nil {
		return dx, dy
	}
	d := cp.Vector{X: dx, Y: dy}
	for _, c := range s.supports(b) {
		into := d.Dot(c.n)
		allowed := max(0, c.gap)
		if into <= allowed || through && into >= c.gap+extentAlong(b, c.n) {
			continue
		}
		d = d.Sub(c.n.Mult(into - allowed))
	}
	return d.X, d.Y
}

// ClampPoseFrom is ClampPose for a correction of entity e's pose by dx, dy
// (world units) that the host's state of a past frame gives: its body at
// pose host then, with velocity v (world units a second), dt seconds ago.
// Knowing where the host's body was, it tells a body beyond a static or
// kinematic body from one a difference of a past frame would put through
// it. A kinematic body is taken as moving at its velocity since: the
// host's body is compared with it where it was then.
//   - Into such a body e's body touches, the correction goes past the gap
//     only if the host's body was beyond that body's surface (a player
//     squeezed through a thin wall on this client, the host's on the near
//     side, is taken back through it).
//   - Into such a body e's body would meet, touched or not, thick or thin
//     (one its centre's path meets, or one its body would overlap where
//     the correction puts it), it stops where its edge, less its next
//     step's move towards the surface, reaches that surface, unless the
//     host's body was beyond it; met from the side (a low crate its
//     centre passes over), it is stopped along the correction. A difference of a frame the body still
//     fell in, carried to the present where it has landed, put a player
//     who jumped off a moving platform over a 100 ms link 21 units into a
//     thick floor, and a rider who hopped off a lift through a thin one,
//     out of the world; put on the surface at the speed it fell at, a body
//     went a step into a thin floor and through it.
//   - Lifting it off such a body it touches, the correction goes only as
//     far as v, less that body's velocity, did not close towards it in
//     dt: a host's body that fell towards it that fast has landed on it
//     since too. (A player whose
//     client landed a frame early was lifted 4 units off the floor by each
//     of ten states, to fall back each time.)
//
// Shapes are found by their filters alone: a collision handler that lets a
// body through (a one-way platform) is not asked, and a correction may
// stop under such a platform until the next states. It is the physics side
// of predict.HostClamper. cp's queries of the shapes about the correction
// allocate a few small objects: it is a correction's, not a step's.
func (s *Space) ClampPoseFrom(e arche.Entity, dx, dy float64, host ecs.Transform, v ecs.Velocity, dt float64) (float64, float64) {
	b := s.BodyOf(e)
	if b == nil {
		return dx, dy
	}
	sf := surfaceStop{b: b, c: b.Position(), d: cp.Vector{X: dx, Y: dy}, host: cp.Vector{X: host.X, Y: host.Y}, dt: dt}
	sf.step = b.Velocity().Mult(s.dt) // where its next step takes it
	hv := cp.Vector{X: v.X, Y: v.Y}
	for _, sp := range s.supports(b) {
		if into := sf.d.Dot(sp.n); into < 0 && hv.Sub(sp.o.Velocity()).Dot(sp.n)*dt >= -into {
			sf.d = sf.d.Sub(sp.n.Mult(into)) // the landing took the lift
			continue
		}
		sf.limit(sp.o, sp.n, sp.gap)
	}
	if sf.d != (cp.Vector{}) {
		s.stopAtSurfaces(&sf)
	}
	return sf.d.X, sf.d.Y
}

// surfaceStop is a correction d of body b (its centre c now) ClampPoseFrom
// stops at surfaces: the host's body's centre host dt seconds ago, and b's
// next step's move.
type surfaceStop struct {
	b          *cp.Body
	c, d, step cp.Vector
	host       cp.Vector
	dt         float64
}

// limit stops the correction at the surface of body o whose normal from b
// towards it is n, gap from b's edge now: it goes no further into it than
// the gap less b's next step towards it, unless the host's body was beyond
// the surface then (o where it was, at its velocity).
func (sf *surfaceStop) limit(o *cp.Body, n cp.Vector, gap float64) {
	into := sf.d.Dot(n)
	if into <= 0 {
		return
	}
	host := sf.host.Add(o.Velocity().Mult(sf.dt)) // in o's present
	if host.Sub(sf.c).Dot(n) >= gap+extentAlong(sf.b, n) {
		return // the host's body was beyond it
	}
	if allowed := max(0, gap-max(0, sf.step.Dot(n))); into > allowed {
		sf.d = sf.d.Sub(n.Mult(into - allowed))
	}
}

// stopAtSurfaces stops correction sf at the surfaces of the static and
// kinematic bodies b would meet: those its centre's path from where it is
// now meets (on past d's end by the body's reach and its next step: a thin
// floor passed through), and those the body would overlap where d puts it
// (a correction mostly along a floor, its centre's path nowhere near it)
// (ClampPoseFrom).
func (s *Space) stopAtSurfaces(sf *surfaceStop) {
	filter, ok := filterOf(sf.b)
	if !ok {
		return
	}
	c, d := sf.c, sf.d
	dir := d.Normalize()
	end := c.Add(d).Add(dir.Mult(extentAlong(sf.b, dir) + sf.step.Length()))
	s.cp.SegmentQuery(c, end, 0, filter, func(sh *cp.Shape, at, normal cp.Vector, _ float64, _ any) {
		if sf.meets(sh) && normal.Dot(d) < 0 {
			n := normal.Neg() // from b's centre towards the surface
			sf.limit(sh.Body(), n, at.Sub(c).Dot(n)-extentAlong(sf.b, n))
		}
	}, nil)
	to := c.Add(sf.d)
	box := boundsOf(sf.b).Offset(sf.d)
	s.cp.BBQuery(box, filter, func(sh *cp.Shape, _ any) {
		if !sf.meets(sh) {
			return
		}
		q := sh.PointQuery(to)
		n := q.Gradient.Neg() // towards the shape's nearest face there
		if !overlaps(q.Distance, extentAlong(sf.b, n)) {
			return // clear of it there
		}
		if sf.d.Dot(n) > 0 {
			sf.limit(sh.Body(), n, q.Point.Sub(c).Dot(n)-extentAlong(sf.b, n))
			return
		}
		sf.backOff(sh) // into it from the side: its nearest face is across d
	}, nil)
}

// backOff shortens correction sf to where, along it, body b stops
// overlapping shape sh (less its next step along it), if b is clear of sh
// now and the host's body was on the near side of the face b meets there:
// a body put beside a low crate, its centre's path passing over the
// crate, overlapped it, its nearest face the crate's top. Overlap is
// judged by b's reach towards sh's nearest point, which near a corner
// stops b a unit or two short.
func (sf *surfaceStop) backOff(sh *cp.Shape) {
	d := sf.d
	at := func(t float64) (cp.PointQueryInfo, bool) {
		q := sh.PointQuery(sf.c.Add(d.Mult(t)))
		return q, overlaps(q.Distance, extentAlong(sf.b, q.Gradient.Neg()))
	}
	if _, in := at(0); in {
		return // it overlaps it now: the contact's to settle
	}
	clear, over := 0.0, 1.0
	for range 10 {
		mid := (clear + over) / 2
		if _, in := at(mid); in {
			over = mid
		} else {
			clear = mid
		}
	}
	q, _ := at(clear)
	host := sf.host.Add(sh.Body().Velocity().Mult(sf.dt)) // in its present
	if host.Sub(q.Point).Dot(q.Gradient) < 0 {
		return // the host's body was beyond that face
	}
	sf.d = d.Mult(max(0, clear-max(0, sf.step.Dot(d))/d.LengthSq()))
}

// overlaps reports whether a body whose centre is dist from a shape's
// nearest point, reaching ext towards it, overlaps it by more than
// overlapShare of that reach: a body resting on a floor overlaps it by
// cp's collision slop (0.1 units and a step of gravity), and one slid
// along a floor of tiles was stopped at the next tile's edge.
func overlaps(dist, ext float64) bool {
	return dist < ext*(1-overlapShare)
}

// overlapShare is the share of a body's reach it may overlap a shape by
// and be clear of it (stopAtSurfaces).
const overlapShare = 0.05

// meets reports whether correction sf is stopped by shape sh: a shape of
// another, static or kinematic, body, not a sensor.
func (sf *surfaceStop) meets(sh *cp.Shape) bool {
	o := sh.Body()
	return o != sf.b && !sh.Sensor() && o.GetType() != cp.BODY_DYNAMIC
}

// boundsOf returns the box about body b's shapes that are not sensors,
// where the body is now.
func boundsOf(b *cp.Body) cp.BB {
	bb := cp.BB{L: math.Inf(1), B: math.Inf(1), R: math.Inf(-1), T: math.Inf(-1)}
	b.EachShape(func(sh *cp.Shape) {
		if !sh.Sensor() {
			bb = bb.Merge(sh.CacheBB())
		}
	})
	return bb
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

// Gripped reports whether entity e's body touches a static or kinematic
// body and moves along each such body's surface as that body does there
// (within gripShare of the faster's speed, or gripSpeed): friction holds it
// to what it rests on (a rider standing on a moving lift, a crate at rest on
// a floor), and a difference of velocity along it is friction's to take
// away within frames. A body sliding along a wall or a floor (a player
// driven along it, one coasting) is not gripped: a difference of velocity
// along the surface lasts (predict.Gripper). False for an entity without a
// body or without such a contact. It allocates nothing.
func (s *Space) Gripped(e arche.Entity) bool {
	b := s.BodyOf(e)
	if b == nil {
		return false
	}
	sup := s.supports(b)
	if len(sup) == 0 {
		return false
	}
	v := b.Velocity()
	for _, c := range sup {
		ov := c.o.VelocityAtWorldPoint(c.at)
		rel := v.Sub(ov)
		along := rel.Sub(c.n.Mult(rel.Dot(c.n))).Length() // along the surface
		if along > max(gripSpeed, gripShare*max(v.Length(), ov.Length())) {
			return false
		}
	}
	return true
}

// gripShare and gripSpeed (world units a second) bound the speed along a
// surface at which a body still counts as held to it (Gripped): what cp's
// friction leaves of a rider's speed relative to its lift.
const (
	gripShare = 0.05
	gripSpeed = 0.5
)

// extentAlong returns how far body b's shapes that are not sensors reach
// from its centre along unit vector n, at most, where the body is now.
func extentAlong(b *cp.Body, n cp.Vector) float64 {
	p := b.Position()
	ext := 0.0
	b.EachShape(func(sh *cp.Shape) {
		if !sh.Sensor() {
			sh.CacheBB() // its vertices where the body is now
			ext = max(ext, reach(sh, p, n))
		}
	})
	return ext
}

// reach returns how far shape sh reaches from point p along unit vector n
// (its transformed vertices and radius; its bounding box for a shape of
// another kind).
func reach(sh *cp.Shape, p, n cp.Vector) float64 {
	switch k := sh.Class.(type) {
	case *cp.Circle:
		return k.TransformC().Sub(p).Dot(n) + k.Radius()
	case *cp.Segment:
		return max(k.TransformA().Sub(p).Dot(n), k.TransformB().Sub(p).Dot(n)) + k.Radius()
	case *cp.PolyShape:
		m := math.Inf(-1)
		for i := range k.Count() {
			m = max(m, k.TransformVert(i).Sub(p).Dot(n))
		}
		return m + k.Radius()
	}
	bb := sh.BB()
	return max(bb.R-p.X, p.X-bb.L)*math.Abs(n.X) + max(bb.T-p.Y, p.Y-bb.B)*math.Abs(n.Y)
}

// support is a contact of a body with a static or kinematic body o: the
// normal from the body towards o (unit length), the gap (negative:
// overlap) and a point of the contact on o's surface.
type support struct {
	o   *cp.Body
	n   cp.Vector
	gap float64
	at  cp.Vector
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
	swapped := o == b
	if swapped {
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
	gap, at := math.Inf(1), cp.Vector{}
	for i := 0; i < set.Count; i++ {
		if p := &set.Points[i]; p.Distance < gap {
			gap, at = p.Distance, p.PointB // on the arbiter's second shape
			if swapped {
				at = p.PointA
			}
		}
	}
	s.sup = append(s.sup, support{o: o, n: n, gap: gap, at: at})
}
