package tandem

import (
	"fmt"
	"reflect"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/interp"
	"github.com/tandem-go/tandem/net/predict"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/save"
)

// Prediction says what a client does with a replicated component of the
// entities it predicts (those its peer owns) when the host's value for a frame
// differs from what it predicted.
type Prediction uint8

const (
	// HostValue takes the host's value: for what the client's systems do not
	// change (a score, a team, health the host alone decides; HostOnly says
	// so, and keeps its changes out of the corrections). It is also what a
	// component that is never on a predicted entity should say. A
	// component the client's own systems change now and then (ammo a shot
	// spends) works with it too, if its codec's Equal has a tolerance (a
	// wire step or more; see replicate.Codec.Equal): a correction takes the
	// host's value and loses what the client predicted since that state,
	// which the next frames predict again. Without a tolerance it is
	// corrected again and again (the client's value is exact, the host's
	// rounded to the wire, and they drift a step apart), and
	// NetStats.Predict counts each (ValueCorrections). One that changes
	// every frame under input (a velocity a kinematic ship integrates,
	// stamina that regenerates) needs ClientConfig.Replay: taken from the
	// host's past frame into the present, it differs at the next state
	// again, for as long as the game runs.
	HostValue Prediction = iota
	// PredictPose carries the difference into the present through the
	// physics body (or the Transform, without one), and the drawn pose
	// slides to the corrected one. For ecs.Transform.
	PredictPose
	// PredictVelocity carries the difference into the present like
	// PredictPose. For ecs.Velocity.
	PredictVelocity
	// HostOnly takes the host's value, as HostValue does, for what only the
	// host changes on the entities a client predicts (a lap count, a score,
	// a name tag): a new value is the host's news, not a misprediction, so
	// it is not counted among the corrections (NetStats.Corrections and
	// Predict.ValueCorrections, the net graph's corrections a second) but in
	// NetStats.Predict.HostUpdates. Its Blend, if any, draws it on the
	// entities the client does not predict, as HostValue's does. A value
	// the client's own systems change needs HostValue, whose differences
	// are mispredictions.
	HostOnly
)

// String names the prediction as the constant does.
func (p Prediction) String() string {
	switch p {
	case HostValue:
		return "HostValue"
	case PredictPose:
		return "PredictPose"
	case PredictVelocity:
		return "PredictVelocity"
	case HostOnly:
		return "HostOnly"
	}
	return fmt.Sprintf("Prediction(%d)", uint8(p))
}

// predictedType is the component type each prediction but HostValue and
// HostOnly is for.
var predictedType = map[Prediction]reflect.Type{
	PredictPose:     reflect.TypeFor[ecs.Transform](),
	PredictVelocity: reflect.TypeFor[ecs.Velocity](),
}

// Component is one replicated component of a Game, made by Replicate.
type Component struct {
	name     string
	typ      string
	rtype    reflect.Type
	register func(*replicate.Registry)
	track    func() predict.Tracker
	blend    func(*interp.Interpolator) any // nil: not blended beyond the pose
	// pose reads a wire image of ecs.Transform, and poseQuant makes one, for
	// the rest lock: set when T is ecs.Transform.
	pose      func(q []int32, v *ecs.Transform)
	poseQuant func(v *ecs.Transform, q []int32)
	// exact says the codec has an exact encoding; save adds the component
	// to a save's schema with it.
	exact bool
	save  func(s *save.Schema)
}

// Replicate makes T a replicated component: codec says how it travels (its
// wire image, exact encoding, tolerance and blend; see replicate.Codec) and p
// what prediction does with it. A host that saves writes T with the codec's
// exact encoding (AppendExact and ReadExact, which tandem.Exact fills in for
// a plain struct); a codec without one makes NewHost refuse to save. Say
// it once, in Game.Components: the host sends it, every client receives it,
// predicts it, and, with codec.Blend set and p HostValue or HostOnly, blends it between
// received states for drawing the entities it does not predict
// (Blended), whether they have an ecs.Transform or not (Transform
// itself needs no Blend: interpolation draws the pose on its own).
func Replicate[T any](codec replicate.Codec[T], p Prediction) Component {
	var corr predict.Correction
	switch p {
	case HostValue:
		corr = predict.HostValue
	case PredictPose:
		corr = predict.Pose
	case PredictVelocity:
		corr = predict.Velocity
	case HostOnly:
		corr = predict.HostOnly
	default:
		panic(fmt.Sprintf("tandem: Replicate %s with unknown prediction %d", codec.Name, p))
	}
	// Said here, where the Game is written, rather than when a client
	// first starts from it (a host or a game alone would never say).
	if want, ok := predictedType[p]; ok && reflect.TypeFor[T]() != want {
		panic(fmt.Sprintf("tandem: Replicate %s (%v) with %v: that prediction is for %v; use HostValue", codec.Name, reflect.TypeFor[T](), p, want))
	}
	c := Component{
		name:     codec.Name,
		typ:      reflect.TypeFor[T]().String(),
		rtype:    reflect.TypeFor[T](),
		register: func(r *replicate.Registry) { replicate.Register(r, codec) },
		track:    func() predict.Tracker { return predict.Track(codec, corr) },
	}
	if c.name == "" {
		c.name = c.typ
	}
	if codec.AppendExact != nil && codec.ReadExact != nil {
		c.exact = true
		exact := save.Codec[T]{Name: c.name, Append: codec.AppendExact, Read: codec.ReadExact, Layout: codec.ExactLayout}
		c.save = func(s *save.Schema) { save.Component(s, exact) }
	}
	if pc, ok := any(codec).(replicate.Codec[ecs.Transform]); ok {
		c.pose, c.poseQuant = pc.Dequantize, pc.Quantize
	}
	if codec.Blend != nil && (p == HostValue || p == HostOnly) {
		blend := codec.Blend
		c.blend = func(ip *interp.Interpolator) any {
			return interp.NewTrack(ip, func(a, b T, alpha float64) T { return blend(&a, &b, alpha) })
		}
	}
	return c
}
