package physics

import (
	"math"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Carry returns where entity e's body would be, and how fast, dt seconds
// after it was at pose with velocity v, moving freely: its Material's
// Velocity function (GroundFriction's slowing) applied at each of the
// Space's steps as the step applies it, after the pose moved by the
// velocity. Nothing it could meet is looked at, nor gravity (what it would
// fall onto is not known here), and a body without a Velocity function of
// its own moves in a straight line. It is how a client carries a remote body's host state,
// of a past frame, to its present: carried in a straight line, a crate the
// host slides to a stop was put past where the host stopped it (8 units
// over a 100 ms round trip, 15 over 200) and drawn going back.
//
// The body's own velocity is left as it was. e must have a Body; dt is in
// seconds. Allocates nothing.
func (s *Space) Carry(e arche.Entity, pose ecs.Transform, v ecs.Velocity, dt float64) (ecs.Transform, ecs.Velocity) {
	if dt <= 0 {
		return pose, v
	}
	var bc *Body
	if s.w.Alive(e) && s.bodies.Has(e) {
		bc = s.attach.Get(e)
	}
	if bc == nil || bc.velocity == nil || bc.CP == nil {
		pose.X += v.X * dt
		pose.Y += v.Y * dt
		pose.Angle += v.Angular * dt
		return pose, v
	}
	b := bc.CP
	keep, keepW := b.Velocity(), b.AngularVelocity()
	damping := math.Pow(s.cp.Damping(), s.dt) // a step's, as cp's step takes it
	for left := dt; left > 0; left -= s.dt {
		// As cp's step: the pose moves by the velocity, then the
		// velocity is integrated.
		h := min(s.dt, left)
		pose.X += v.X * h
		pose.Y += v.Y * h
		pose.Angle += v.Angular * h
		b.SetVelocity(v.X, v.Y)
		b.SetAngularVelocity(v.Angular)
		bc.velocity(b, cp.Vector{}, damping, h)
		nv := b.Velocity()
		v = ecs.Velocity{X: nv.X, Y: nv.Y, Angular: b.AngularVelocity()}
	}
	b.SetVelocity(keep.X, keep.Y)
	b.SetAngularVelocity(keepW)
	return pose, v
}
