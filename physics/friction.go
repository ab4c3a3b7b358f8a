package physics

import (
	"math"

	"github.com/jakecoffman/cp/v2"
)

// GroundFriction returns a velocity integrator for top-down worlds, where
// bodies slide on a floor: on top of cp's space damping it takes away decel
// world units per second of speed every second, turning included, until the
// body stops exactly, which lets it fall asleep at once. The speed it slows is
// the body's kinetic-energy speed, sqrt(v² + (ω·k)²) with k the body's radius
// of gyration, so sliding and spinning stop together.
//
// Set it through Material.Velocity. The returned function allocates nothing;
// share one among bodies of a kind.
func GroundFriction(decel float64) cp.BodyVelocityFunc {
	return func(b *cp.Body, gravity cp.Vector, damping, dt float64) {
		v := b.Velocity()
		w := b.AngularVelocity()
		k2 := 0.0
		if m := b.Mass(); m > 0 && !math.IsInf(m, 1) {
			k2 = b.Moment() / m
		}
		speed := math.Sqrt(v.LengthSq() + w*w*k2)
		f := 1.0
		if speed > 0 {
			f = max(speed-decel*dt, 0) / speed
		}
		cp.BodyUpdateVelocity(b, gravity, damping*f, dt)
	}
}
