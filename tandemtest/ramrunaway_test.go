package tandemtest_test

import (
	"math"
	"testing"
	"time"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/physics"
	"github.com/tandem-go/tandem/tandemtest"
)

// Steer is a vehicle's input: thrust along its heading and turning, each
// -1, 0 or 1.
type Steer struct{ Thrust, Turn int8 }

var steerCodec = axesCodec(func(in *Steer) (a, b *int8) { return &in.Thrust, &in.Turn })

// steerVehicles is the vehicles' own physics, forces of the game's that
// depend on the velocity: thrust along the heading up to 340 units/s,
// turning up to 3.5 rad/s, and a grip that takes 12% of the sideways speed
// a step.
func steerVehicles(w *tandem.World) {
	dt := w.Physics.StepSeconds()
	type set struct {
		e arche.Entity
		v ecs.Velocity
	}
	var sets []set
	q := generic.NewFilter2[tandem.Input[Steer], physics.Body]().Query(w.ECS.Arche())
	for q.Next() {
		in, b := q.Get()
		v, a := b.CP.Velocity(), b.CP.Angle()
		hx, hy := math.Cos(a), math.Sin(a)
		fwd := max(-340, min(340, v.X*hx+v.Y*hy+float64(in.Value.Thrust)*700*dt))
		side := (-v.X*hy + v.Y*hx) * 0.88
		spin := b.CP.AngularVelocity() + float64(in.Value.Turn)*14*dt
		if in.Value.Turn == 0 {
			spin *= 0.9
		}
		spin = max(-3.5, min(3.5, spin))
		sets = append(sets, set{q.Entity(), ecs.Velocity{X: fwd*hx - side*hy, Y: fwd*hy + side*hx, Angular: spin}})
	}
	for _, s := range sets {
		w.Physics.SetVelocity(s.e, s.v)
	}
}

// rammingVehicles is a walled arena, 1400 by 900, and a box vehicle per
// player, the first at (300, 200), the next at (1100, 200).
func rammingVehicles() *tandem.Game[Steer] {
	body := func(w *tandem.World, e arche.Entity) { w.Physics.AttachBox(e, 44, 24, 2, physics.Material{Mass: 8}) }
	joined := 0
	return &tandem.Game[Steer]{
		Physics: &physics.Config{},
		Components: []tandem.Component{
			tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose),
			tandem.Replicate(replicate.VelocityCodec(), tandem.PredictVelocity),
		},
		Input: steerCodec,
		Setup: func(w *tandem.World) {
			for _, s := range [][4]float64{{0, 0, 1400, 0}, {1400, 0, 1400, 900}, {1400, 900, 0, 900}, {0, 900, 0, 0}} {
				w.Physics.StaticSegment(cp.Vector{X: s[0], Y: s[1]}, cp.Vector{X: s[2], Y: s[3]}, 10, physics.Material{Friction: 0.5})
			}
			w.Schedule.Add("drive", ecs.SystemFunc(func(*ecs.World) { steerVehicles(w) }))
			w.Schedule.Add("physics", w.Physics)
		},
		Join: func(w *tandem.World, p tandem.Peer) error {
			pose := ecs.Transform{X: 300 + 800*float64(joined%2), Y: 200}
			joined++
			m := generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, tandem.Input[Steer]](w.ECS.Arche())
			body(w, m.NewWith(&pose, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p.ID}, &ecs.Interpolated{Prev: pose}, &tandem.Input[Steer]{}))
			return nil
		},
		Arrived: body,
	}
}

// steerTo is the input that heads the player's vehicle for (tx, ty), as its
// client has it.
func steerTo(w *tandem.World, tx, ty float64) Steer {
	e, ok := tandem.Driven[Steer](w, w.Peer)
	if !ok {
		return Steer{}
	}
	b := w.Physics.BodyOf(e)
	p := b.Position()
	turn := math.Remainder(math.Atan2(ty-p.Y, tx-p.X)-b.Angle(), 2*math.Pi)
	var in Steer
	switch {
	case turn > 0.12:
		in.Turn = 1
	case turn < -0.12:
		in.Turn = -1
	}
	if math.Abs(turn) < 1.2 {
		in.Thrust = 1
	}
	return in
}

// A vehicle with grip (forces of the game's that depend on its velocity)
// that another keeps ramming is never corrected, on its owner's client, to
// a speed past anything the host gave it: a past frame's difference
// carried into a present that the grip and the rams had changed since made
// it faster each round trip (here up to 604 units a second, the host's
// never past 366; one correction left a trial's rammed vehicle at 1,909
// units a second, the host's never past 338).
func TestARammedVehicleIsNotCorrectedToARunawaySpeed(t *testing.T) {
	r := tandemtest.New(t, rammingVehicles(), tandem.HostConfig{}, tandemtest.Config{})
	var annID ecs.NetID
	ann := r.JoinOver("ann", tandem.ClientConfig[Steer]{Input: func(w *tandem.World) Steer {
		if w.ECS.Frame()/240%2 == 0 {
			return steerTo(w, 1300, 250)
		}
		return steerTo(w, 800, 250)
	}}, condition.Config{Latency: 80 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02, Seed: 11},
		condition.Config{Latency: 80 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02, Seed: 12})
	r.JoinOver("bob", tandem.ClientConfig[Steer]{Input: func(w *tandem.World) Steer {
		if e, ok := w.ECS.EntityOf(annID); ok {
			p := w.Physics.BodyOf(e).Position()
			return steerTo(w, p.X, p.Y)
		}
		return Steer{}
	}}, condition.Config{Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.05, Seed: 13},
		condition.Config{Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.05, Seed: 14})
	ann.Do(func(w *tandem.World) {
		e, _ := ann.Local()
		id, _ := w.ECS.Identity(e)
		annID = id.ID
	})
	speed := func(w *tandem.World, e arche.Entity) float64 {
		v := w.Physics.BodyOf(e).Velocity()
		return math.Hypot(v.X, v.Y)
	}
	hostMax, annMax := 0.0, 0.0
	for range 3600 {
		r.Step(1)
		r.Host.Do(func(w *tandem.World) { hostMax = max(hostMax, speed(w, w.ECS.Owned(ann.Peer())[0])) })
		ann.Do(func(w *tandem.World) {
			if e, ok := ann.Local(); ok {
				annMax = max(annMax, speed(w, e))
			}
		})
	}
	st := ann.NetStats().Predict
	t.Logf("ann's vehicle: up to %.0f units/s on her client, the host's up to %.0f; %d velocity corrections, largest %.0f", annMax, hostMax, st.VelocityCorrections, st.MaxVelocity)
	if st.VelocityCorrections < 50 {
		t.Fatalf("%d velocity corrections: the test does not test what it says", st.VelocityCorrections)
	}
	if annMax > 1.5*hostMax {
		t.Errorf("ann's vehicle went at up to %.0f units/s on her client, where the host's never passed %.0f", annMax, hostMax)
	}
}
