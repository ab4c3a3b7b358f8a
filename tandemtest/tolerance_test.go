package tandemtest_test

import (
	"math"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/physics"
	"github.com/tandem-go/tandem/tandemtest"
)

// headingCars is a car per player that drives along its heading, set
// diagonally (4.19 rad), and turns towards no steer at all.
var headingCars = &tandem.Game[Pedal]{
	Physics: &physics.Config{},
	Components: []tandem.Component{
		tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose),
		tandem.Replicate(replicate.VelocityCodec(), tandem.PredictVelocity),
	},
	Input: pedalCodec,
	Setup: func(w *tandem.World) {
		dt := w.Schedule.StepDuration().Seconds()
		w.Schedule.Add("drive", ecs.SystemFunc(func(*ecs.World) {
			q := generic.NewFilter2[tandem.Input[Pedal], physics.Body]().Query(w.ECS.Arche())
			type set struct {
				e arche.Entity
				v ecs.Velocity
			}
			var sets []set
			for q.Next() {
				in, body := q.Get()
				b := body.CP
				v := b.Velocity()
				fx, fy := math.Cos(b.Angle()), math.Sin(b.Angle())
				fwd := math.Max(-150, math.Min(300, v.X*fx+v.Y*fy+float64(in.Value.Throttle)*600*dt))
				lat := (-v.X*fy + v.Y*fx) * 0.85
				om := b.AngularVelocity() * 0.7
				sets = append(sets, set{q.Entity(), ecs.Velocity{X: fwd*fx - lat*fy, Y: fwd*fy + lat*fx, Angular: om}})
			}
			for _, s := range sets {
				w.Physics.SetVelocity(s.e, s.v)
			}
		}))
		w.Schedule.Add("physics", w.Physics)
	},
	Join: func(w *tandem.World, p tandem.Peer) error {
		a := w.ECS.Arche()
		pose := ecs.Transform{X: 1000, Y: 800, Angle: 4.19}
		m := generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, tandem.Input[Pedal]](a)
		e := m.NewWith(&pose, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p.ID}, &ecs.Interpolated{Prev: pose}, &tandem.Input[Pedal]{})
		w.Physics.AttachBox(e, 40, 20, 2, carBody)
		return nil
	},
	Arrived: func(w *tandem.World, e arche.Entity) { w.Physics.AttachBox(e, 40, 20, 2, carBody) },
}

// A car driven back and forth alone on a perfect link, along a diagonal
// heading, is predicted as the host simulates it: its client's physics
// drifts from the host's by a wire step or two of position, which no one
// sees and which the default Transform codec's tolerance (eight steps) lets
// be. (At one step it was corrected several times a second.)
func TestADrivenCarAloneIsNotCorrected(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := tandemtest.New(t, headingCars, tandem.HostConfig{}, tandemtest.Config{Bubble: true})
		ann := r.Join("ann", tandem.ClientConfig[Pedal]{})
		r.Step(60)
		before := ann.NetStats().Predict.PoseCorrections
		for i := range 600 {
			ann.SetInput(Pedal{Throttle: int8(1 - 2*(i/50%2))})
			r.Step(1)
		}
		if n := ann.NetStats().Predict.PoseCorrections - before; n > 5 {
			t.Fatalf("a car driven alone on a perfect link was corrected %d times in 10 s", n)
		}
	})
}
