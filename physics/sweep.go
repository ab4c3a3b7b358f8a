package physics

import (
	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// ClampTravel returns the part of a move of entity e's body by dx, dy
// (world units) it makes before it meets another body's shape it moves
// into, and the unit normal of that shape's surface where it meets it
// (pointing out of it, towards the body; 0, 0 when the body meets nothing).
// Each of the body's shapes is swept along the move as a disc about its
// bounding box's centre, of that box's smaller half-size (a circle exactly,
// a box by its inscribed disc), against the shapes it collides with (its
// filter); sensors, the body's own shapes and shapes it moves away from or
// along are passed through. A body with no Body, or a move of nothing, is
// returned as it is. It is how a predicting client's correction that
// carries a knocked body's travel to the present stops at the wall, or the
// player, the host's body stopped at (predict.TravelClamper): carried whole,
// a player knocked from rest into a wall was put past its face, and one
// knocked into another player through him. cp's queries allocate a few
// small objects: it is a correction's, not a step's.
func (s *Space) ClampTravel(e arche.Entity, dx, dy float64) (cx, cy, nx, ny float64) {
	b := s.BodyOf(e)
	if b == nil || dx == 0 && dy == 0 {
		return dx, dy, 0, 0
	}
	s.sweep = sweep{self: b, dx: dx, dy: dy, alpha: 1}
	b.EachShape(s.sweepShape)
	sw := &s.sweep
	sw.self = nil
	if sw.alpha == 1 {
		return dx, dy, 0, 0
	}
	return dx * sw.alpha, dy * sw.alpha, sw.n.X, sw.n.Y
}

// discOf returns the disc a shape is swept as: about its bounding box's
// centre where its body is now (a Move's pose is not cached until the
// step), of that box's smaller half-size.
func discOf(sh *cp.Shape) (centre cp.Vector, r float64) {
	bb := sh.CacheBB()
	return cp.Vector{X: (bb.L + bb.R) / 2, Y: (bb.B + bb.T) / 2}, min(bb.R-bb.L, bb.T-bb.B) / 2
}

// sweep is ClampTravel's query: the swept body, the move, the disc of the
// shape swept now, and how much of the move is made so far (1: all) and
// the normal of what stopped it.
type sweep struct {
	self     *cp.Body
	dx, dy   float64
	from, to cp.Vector
	r        float64
	alpha    float64
	n        cp.Vector
}

// sweepShape sweeps shape sh of the swept body: the shapes the box its disc
// passes through touches are each tested (cp's own segment query looks
// them up by the line of the disc's centre alone, and misses a wall the
// disc reaches and its centre does not).
func (s *Space) sweepShape(sh *cp.Shape) {
	if sh.Sensor() {
		return
	}
	sw := &s.sweep
	c, r := discOf(sh)
	sw.from, sw.to = c, cp.Vector{X: c.X + sw.dx, Y: c.Y + sw.dy}
	sw.r = r
	path := cp.BB{L: min(sw.from.X, sw.to.X) - sw.r, R: max(sw.from.X, sw.to.X) + sw.r, B: min(sw.from.Y, sw.to.Y) - sw.r, T: max(sw.from.Y, sw.to.Y) + sw.r}
	s.cp.BBQuery(path, sh.Filter, sweepHit, sw)
}

// sweepHit tests a shape near the path of the disc swept (a
// cp.SpaceBBQueryFunc).
func sweepHit(other *cp.Shape, data any) {
	sw := data.(*sweep)
	if other.Body() == sw.self || other.Sensor() {
		return
	}
	var info cp.SegmentQueryInfo
	if !other.SegmentQuery(sw.from, sw.to, sw.r, &info) || info.Normal.X*sw.dx+info.Normal.Y*sw.dy >= 0 {
		return
	}
	if info.Alpha < sw.alpha {
		sw.alpha, sw.n = info.Alpha, info.Normal
	}
}

// Swept reports whether entity e's body, moved to where it is from pose
// from, passed through entity through's body on the way: a shape of e's,
// swept along the straight line as a disc as ClampTravel sweeps it, moves
// into a shape of through's body it collides with (their filters), in the
// space or taken out of it (SetSolid). A move away from a body it touched,
// or along it, is not through it; sensors do not count; false if either
// has no Body. It is how a client finds the bodies it predicted through
// one it took for gone.
func (s *Space) Swept(e, through arche.Entity, from ecs.Transform) bool {
	b, tb := s.BodyOf(e), s.BodyOf(through)
	if b == nil || tb == nil {
		return false
	}
	targets, out := s.unsolid[tb]
	if !out {
		targets = nil
		tb.EachShape(func(sh *cp.Shape) { targets = append(targets, sh) })
	}
	p := b.Position()
	dx, dy := p.X-from.X, p.Y-from.Y
	met := false
	b.EachShape(func(sh *cp.Shape) {
		if met || sh.Sensor() {
			return
		}
		to, r := discOf(sh)
		start := cp.Vector{X: to.X - dx, Y: to.Y - dy}
		for _, t := range targets {
			if t.Sensor() || sh.Filter.Reject(t.Filter) {
				continue
			}
			if out {
				t.Update(transformOf(tb)) // its cache stopped with it out of the space
			}
			var info cp.SegmentQueryInfo
			if t.SegmentQuery(start, to, r, &info) && info.Normal.X*dx+info.Normal.Y*dy < 0 {
				met = true
				return
			}
		}
	})
	return met
}

// transformOf returns body b's transform as cp computes it for its shapes:
// its position (the body's origin) and angle.
func transformOf(b *cp.Body) cp.Transform {
	p, rot := b.Position(), cp.ForAngle(b.Angle())
	return cp.NewTransformTranspose(rot.X, -rot.Y, p.X, rot.Y, rot.X, p.Y)
}
