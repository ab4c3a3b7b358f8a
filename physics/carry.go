package physics

import (
	"math"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// CarryVelocity returns the velocity v of entity e's body comes to after dt
// seconds of coasting (Carry's velocity): a predicting client's correction
// of a body's velocity carries the host's and its own to the present by it
// (predict.VelocityCarrier).
func (s *Space) CarryVelocity(e arche.Entity, v ecs.Velocity, dt float64) ecs.Velocity {
	_, v = s.Carry(e, ecs.Transform{}, v, dt)
	return v
}

// Carry returns where entity e's body would be, and how fast, dt seconds
// after it was at pose with velocity v, coasting: its Material's Velocity
// function (GroundFriction's slowing) applied at each of the Space's steps
// as the step applies it, after the pose moved by the velocity, and the
// Space's damping. Nothing it could meet is looked at, nor gravity (what it
// would fall onto is not known here), nor what a game's system does to it
// each step (a player's drive); a body without a Velocity function of its
// own moves in a straight line. It is how a client carries a host state of
// a coasting body, of a past frame, to its present: carried in a straight
// line, a crate the host knocked to a stop was put past where the host
// stopped it (up to 38 units over a 100 ms round trip) and taken back by
// each state.
//
// The function runs on the body itself, its pose left where it is (a
// Velocity function that reads the body's position sees that pose); the
// body's velocity, force and torque are given back after, and the body is
// awake. e must have a Body; dt is in seconds. Allocates nothing.
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
	keep, keepW, keepF, keepT := b.Velocity(), b.AngularVelocity(), b.Force(), b.Torque()
	// Whole steps, then what is left of one (counted, not subtracted: a
	// float's remainder would make one more step of nothing).
	steps := int(dt/s.dt + 1e-9)
	rest := dt - float64(steps)*s.dt
	if rest < 1e-9 {
		rest = 0
	}
	damping := math.Pow(s.cp.Damping(), s.dt) // a step's, as cp's step takes it
	for i := 0; i <= steps; i++ {
		h, d := s.dt, damping
		if i == steps {
			if rest == 0 {
				break
			}
			h, d = rest, math.Pow(s.cp.Damping(), rest)
		}
		// As cp's step: the pose moves by the velocity, then the
		// velocity is integrated.
		pose.X += v.X * h
		pose.Y += v.Y * h
		pose.Angle += v.Angular * h
		b.SetVelocity(v.X, v.Y)
		b.SetAngularVelocity(v.Angular)
		b.SetForce(cp.Vector{})
		b.SetTorque(0)
		bc.velocity(b, cp.Vector{}, d, h)
		nv := b.Velocity()
		v = ecs.Velocity{X: nv.X, Y: nv.Y, Angular: b.AngularVelocity()}
	}
	b.SetVelocity(keep.X, keep.Y)
	b.SetAngularVelocity(keepW)
	b.SetForce(keepF)
	b.SetTorque(keepT)
	return pose, v
}
