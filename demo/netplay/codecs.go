package netplay

import (
	"math"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/wire"
)

// Sizes a client accepts, world units: a body needs some size and mass, and
// nothing in an arena is larger than it.
const (
	minSize = 1.0
	maxSize = 4096.0
)

// sizes is the wire precision of sizes (crate sides, ball radius): 1/1024
// unit from minSize to maxSize; whatever a host sends decodes in that range.
var sizes = wire.Quantizer{Min: minSize, Max: maxSize, Step: 1.0 / 1024}

// homeAngle is the wire precision of a crate's home angle.
var homeAngle = wire.AngleQuantizer{Bits: replicate.AngleBits}

// Prediction tolerances: how far a client's predicted disc may be from the
// host's at the same frame before prediction corrects it. A quarter of a
// world unit (of a pixel) is invisible; finer corrections would mostly chase
// the small pushes by which two physics simulations of a crowd differ.
const (
	// PoseTolerance is in world units.
	PoseTolerance = 0.25
	// AngleTolerance is in radians.
	AngleTolerance = 0.01
)

// components are the match's replicated components, in wire order: the
// engine's Transform (with the game's tolerance) and Velocity, predicted
// through the physics body; the game's Player, Ball, Crate, Score and Prop,
// which a client takes from the host (saved exactly, tandem.Exact).
func components() []tandem.Component {
	return []tandem.Component{
		tandem.Replicate(TransformCodec(), tandem.PredictPose),
		tandem.Replicate(replicate.VelocityCodec(), tandem.PredictVelocity),
		tandem.Replicate(tandem.Exact(PlayerCodec()), tandem.HostValue),
		tandem.Replicate(tandem.Exact(BallCodec()), tandem.HostValue),
		tandem.Replicate(tandem.Exact(CrateCodec()), tandem.HostValue),
		tandem.Replicate(tandem.Exact(ScoreCodec()), tandem.HostValue),
		tandem.Replicate(tandem.Exact(PropCodec()), tandem.HostValue),
	}
}

// PropCodec replicates game.Prop: its kind, 0 to 3.
func PropCodec() replicate.Codec[game.Prop] {
	return replicate.Codec[game.Prop]{
		Name:       "Prop",
		Fields:     1,
		Quantize:   func(v *game.Prop, q []int32) { q[0] = int32(v.Kind) },
		Dequantize: func(q []int32, v *game.Prop) { v.Kind = uint8(min(max(q[0], 0), 3)) },
		Equal:      func(a, b *game.Prop) bool { return *a == *b },
	}
}

// TransformCodec is the engine's Transform codec (replicate.TransformCodec:
// the same wire image and small-change deferral) with the game's prediction
// tolerances.
func TransformCodec() replicate.Codec[ecs.Transform] {
	c := replicate.TransformCodec()
	c.Equal = func(a, b *ecs.Transform) bool {
		return math.Hypot(a.X-b.X, a.Y-b.Y) <= PoseTolerance &&
			math.Abs(ecs.AngleDiff(a.Angle, b.Angle)) <= AngleTolerance
	}
	return c
}

// PlayerCodec replicates game.Player exactly, field by field (the colour's
// four channels among them).
func PlayerCodec() replicate.Codec[game.Player] {
	return replicate.IntegerCodec[game.Player]("Player")
}

// BallCodec replicates game.Ball: its radius to 1/1024 unit, from 1 to 4096
// units.
func BallCodec() replicate.Codec[game.Ball] {
	return replicate.Codec[game.Ball]{
		Name:       "Ball",
		Fields:     1,
		Quantize:   func(v *game.Ball, q []int32) { q[0] = size(v.R) },
		Dequantize: func(q []int32, v *game.Ball) { v.R = unsize(q[0]) },
		Equal:      func(a, b *game.Ball) bool { return size(a.R) == size(b.R) },
	}
}

// CrateCodec replicates game.Crate: its sides to 1/1024 unit (from 1 to 4096
// units), its shade, and its home pose: the position as the Transform codec
// sends positions, the angle to replicate.AngleBits.
func CrateCodec() replicate.Codec[game.Crate] {
	pose := replicate.TransformCodec()
	return replicate.Codec[game.Crate]{
		Name:   "Crate",
		Fields: 6,
		Quantize: func(v *game.Crate, q []int32) {
			q[0], q[1], q[2] = size(v.W), size(v.H), int32(v.Shade)
			pose.Quantize(&v.Home, q[3:6])
			q[5] = int32(homeAngle.Encode(v.Home.Angle))
		},
		Dequantize: func(q []int32, v *game.Crate) {
			v.W, v.H, v.Shade = unsize(q[0]), unsize(q[1]), uint8(q[2])
			pose.Dequantize([]int32{q[3], q[4], 0}, &v.Home)
			v.Home.Angle = homeAngle.Decode(uint64(uint32(q[5])))
		},
		Equal: func(a, b *game.Crate) bool {
			return size(a.W) == size(b.W) && size(a.H) == size(b.H) && a.Shade == b.Shade && pose.Equal(&a.Home, &b.Home)
		},
	}
}

// ScoreCodec replicates game.Score exactly.
func ScoreCodec() replicate.Codec[game.Score] {
	return replicate.IntegerCodec[game.Score]("Score")
}

func size(v float64) int32 { return int32(sizes.Encode(v)) }

// unsize reads a size, kept within [minSize, maxSize] whatever the host sent.
func unsize(q int32) float64 { return sizes.Decode(uint64(uint32(q))) }
