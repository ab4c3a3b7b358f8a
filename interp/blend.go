package interp

import (
	"math"

	"github.com/tandem-go/tandem/ecs"
)

// blend is ecs.Blend with a fast path for the common case of two angles less
// than half a turn apart, where the short way is the plain difference; it
// agrees with ecs.Blend to the last bit or two and turns the same way. alpha
// above 1 extrapolates.
func blend(a, b ecs.Transform, alpha float64) ecs.Transform {
	d := b.Angle - a.Angle
	if !(d > -math.Pi && d < math.Pi) {
		d = ecs.AngleDiff(a.Angle, b.Angle)
	}
	return ecs.Transform{
		X:     a.X + (b.X-a.X)*alpha,
		Y:     a.Y + (b.Y-a.Y)*alpha,
		Angle: a.Angle + d*alpha,
	}
}
