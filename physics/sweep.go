package physics

import (
	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"
)

// ClampTravel returns the part of a move of entity e's body by dx, dy
// (world units) it makes before it meets a static or kinematic shape it
// moves into: the body is swept along the move as a disc of its shapes'
// smallest extent from its centre (their bounding boxes'), and stops where
// the disc first touches such a shape from outside it. Dynamic bodies,
// sensors, the body's own shapes and shapes it moves away from or along
// are passed through; a body with no Body, or a move of nothing, is
// returned as it is. It is how a predicting client's correction that carries
// a knocked body's travel to the present stops at the wall the host's body
// stopped at (predict.TravelClamper): carried whole, a player knocked from
// rest into a wall was put with his centre past its face and pulled back
// by the next states. cp's query allocates a few small objects: it is a
// correction's, not a step's.
func (s *Space) ClampTravel(e arche.Entity, dx, dy float64) (float64, float64) {
	b := s.BodyOf(e)
	if b == nil || dx == 0 && dy == 0 {
		return dx, dy
	}
	r := min(extentAlong(b, cp.Vector{X: 1}), extentAlong(b, cp.Vector{Y: 1}))
	from := b.Position()
	s.sweep = sweep{self: b, dx: dx, dy: dy, alpha: 1}
	s.cp.SegmentQuery(from, cp.Vector{X: from.X + dx, Y: from.Y + dy}, r, cp.SHAPE_FILTER_ALL, sweepHit, &s.sweep)
	a := s.sweep.alpha
	s.sweep.self = nil
	return dx * a, dy * a
}

// sweep is ClampTravel's query: the swept body, the move, and how much of
// it is made so far (1: all).
type sweep struct {
	self   *cp.Body
	dx, dy float64
	alpha  float64
}

// sweepHit takes a shape the sweep touches at alpha, normal n out of the
// shape (a cp.SpaceSegmentQueryFunc).
func sweepHit(sh *cp.Shape, _, n cp.Vector, alpha float64, data any) {
	sw := data.(*sweep)
	b := sh.Body()
	if b == sw.self || b.GetType() == cp.BODY_DYNAMIC || sh.Sensor() || n.X*sw.dx+n.Y*sw.dy >= 0 {
		return
	}
	sw.alpha = min(sw.alpha, alpha)
}
