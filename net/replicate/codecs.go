package replicate

import (
	"math"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// Wire precisions of the default codecs. Wire-affecting.
const (
	// PositionScale is steps per world unit: positions travel to 1/512 unit,
	// within ±4,194,304 units.
	PositionScale = 512
	// AngleBits is the precision of angles: a turn in 2^14 steps (0.022°).
	AngleBits = 14
	// VelocityScale is steps per unit/s: velocities travel to 1/8 unit/s,
	// clamped to ±MaxSpeed.
	VelocityScale = 8
	// MaxSpeed is the largest linear speed component sent, units/s.
	MaxSpeed = 16384
	// AngularScale is steps per rad/s: angular velocity to 1/64 rad/s,
	// clamped to ±MaxAngularSpeed.
	AngularScale = 64
	// MaxAngularSpeed is the largest angular speed sent, rad/s.
	MaxAngularSpeed = 256
)

const angleSteps = 1 << AngleBits

// clampRound rounds v·scale to the nearest integer (halves away from zero)
// within ±limit·scale. NaN becomes 0.
func clampRound(v, scale, limit float64) int32 {
	switch {
	case v > limit:
		v = limit
	case v < -limit:
		v = -limit
	case v != v:
		return 0
	}
	x := v * scale
	if x < 0 {
		return -int32(-x + 0.5)
	}
	return int32(x + 0.5)
}

// quantizeAngle rounds an angle to its 14-bit step, halves away from zero
// as clampRound does (adding a half and truncating: a value a hair below
// a half, 0.49999999999999994, rounds up); NaN becomes 0.
func quantizeAngle(a float64) int32 {
	x := wire.WrapAngle(a) * (angleSteps / (2 * math.Pi))
	var s int64
	switch {
	case x >= 0:
		s = int64(x + 0.5)
	case x < 0:
		s = -int64(-x + 0.5)
	}
	return int32(s & (angleSteps - 1)) // s mod angleSteps, for negative s too
}

func dequantizeAngle(q int32) float64 {
	return wire.WrapAngle(float64(q) / angleSteps * 2 * math.Pi)
}

// TransformCodec returns the default codec of ecs.Transform: position to
// 1/512 unit, angle to 14 bits, delta-coded, blended linearly (the angle the
// short way), equal within poseTolerance wire steps (1/64 unit, 0.003 rad:
// what no one sees; a client's physics drifts from the host's by a step or
// two on its own, which at one step was corrected some six times a second
// for a car driving straight), with the exact encoding (the
// float64 bits) a host's save needs. A client receives the angle wrapped
// to [-π, π): a body that spun to 43.88 rad on the host is at -0.10 rad on
// its clients, the same direction; compare angles across machines by their
// difference wrapped (wire.WrapAngle), not as numbers.
func TransformCodec() Codec[ecs.Transform] {
	const poseTolerance = 8.0 // wire steps
	const posLimit = math.MaxInt32 / PositionScale
	return Codec[ecs.Transform]{
		Name:   "Transform",
		Fields: 3,
		Quantize: func(v *ecs.Transform, q []int32) {
			q[0] = clampRound(v.X, PositionScale, posLimit)
			q[1] = clampRound(v.Y, PositionScale, posLimit)
			q[2] = quantizeAngle(v.Angle)
		},
		Dequantize: func(q []int32, v *ecs.Transform) {
			v.X = float64(q[0]) / PositionScale
			v.Y = float64(q[1]) / PositionScale
			v.Angle = dequantizeAngle(q[2])
		},
		Wrap:  []int32{0, 0, angleSteps},
		Delta: true,
		// Urgent: 3 units of travel or 0.15 rad of turn since the image last
		// sent.
		Significant: []int32{3 * PositionScale, 3 * PositionScale, angleSteps / 42},
		AppendExact: func(dst []byte, v *ecs.Transform) []byte {
			w := wire.NewWriter(dst)
			w.F64(v.X)
			w.F64(v.Y)
			w.F64(v.Angle)
			return w.Bytes()
		},
		ReadExact: func(r *wire.Reader, v *ecs.Transform) {
			v.X, v.Y, v.Angle = r.F64(), r.F64(), r.F64()
		},
		ExactLayout: "{X float64; Y float64; Angle float64}",
		Equal: func(a, b *ecs.Transform) bool {
			return math.Abs(a.X-b.X) <= poseTolerance/PositionScale && math.Abs(a.Y-b.Y) <= poseTolerance/PositionScale &&
				math.Abs(ecs.AngleDiff(a.Angle, b.Angle)) <= poseTolerance*2*math.Pi/angleSteps
		},
		Blend: func(a, b *ecs.Transform, alpha float64) ecs.Transform { return ecs.Blend(*a, *b, alpha) },
	}
}

// VelocityCodec returns the default codec of ecs.Velocity: linear to 1/8
// unit/s within ±16384, angular to 1/64 rad/s within ±256, delta-coded,
// blended linearly, with the exact encoding (the float64 bits) a host's
// save needs.
func VelocityCodec() Codec[ecs.Velocity] {
	return Codec[ecs.Velocity]{
		Name:   "Velocity",
		Fields: 3,
		Quantize: func(v *ecs.Velocity, q []int32) {
			q[0] = clampRound(v.X, VelocityScale, MaxSpeed)
			q[1] = clampRound(v.Y, VelocityScale, MaxSpeed)
			q[2] = clampRound(v.Angular, AngularScale, MaxAngularSpeed)
		},
		Dequantize: func(q []int32, v *ecs.Velocity) {
			v.X = float64(q[0]) / VelocityScale
			v.Y = float64(q[1]) / VelocityScale
			v.Angular = float64(q[2]) / AngularScale
		},
		Delta: true,
		// Urgent: 30 units/s or 1.5 rad/s of change since the image last
		// sent.
		Significant: []int32{30 * VelocityScale, 30 * VelocityScale, 3 * AngularScale / 2},
		AppendExact: func(dst []byte, v *ecs.Velocity) []byte {
			w := wire.NewWriter(dst)
			w.F64(v.X)
			w.F64(v.Y)
			w.F64(v.Angular)
			return w.Bytes()
		},
		ReadExact: func(r *wire.Reader, v *ecs.Velocity) {
			v.X, v.Y, v.Angular = r.F64(), r.F64(), r.F64()
		},
		ExactLayout: "{X float64; Y float64; Angular float64}",
		Equal: func(a, b *ecs.Velocity) bool {
			return math.Abs(a.X-b.X) <= 1.0/VelocityScale && math.Abs(a.Y-b.Y) <= 1.0/VelocityScale &&
				math.Abs(a.Angular-b.Angular) <= 1.0/AngularScale
		},
		Blend: func(a, b *ecs.Velocity, alpha float64) ecs.Velocity {
			return ecs.Velocity{
				X:       a.X + (b.X-a.X)*alpha,
				Y:       a.Y + (b.Y-a.Y)*alpha,
				Angular: a.Angular + (b.Angular-a.Angular)*alpha,
			}
		},
	}
}

// Discrete is a Codec.Blend for a value that does not blend (a team, a
// flag's carrier, an animation's state): a until alpha reaches 1, then b.
// It is what a codec without a Blend does; set it to have a client draw the
// value of a remote entity at the time its pose is drawn (tandem.Blended),
// some tens of milliseconds in the past, rather than the newest received:
// a flag is drawn on its carrier when the carrier reaches it, not before.
// (tandem keeps such values for a component replicated with HostValue.)
// Memory: the client keeps nine values of T per networked entity for it.
func Discrete[T any](a, b *T, alpha float64) T {
	if alpha >= 1 {
		return *b
	}
	return *a
}
