package tandemtest_test

import (
	"math"
	"testing"
	"time"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/physics"
	"github.com/tandem-go/tandem/tandemtest"
)

// Pedal is a car's input: the throttle, -1, 0 or 1.
type Pedal struct{ Throttle int8 }

var pedalCodec = tandem.InputCodec[Pedal]{
	Append: func(dst []byte, in *Pedal) []byte { return append(dst, byte(in.Throttle)) },
	Read: func(r *wire.Reader, in *Pedal) {
		if in.Throttle = int8(r.U8()); in.Throttle < -1 || in.Throttle > 1 {
			r.Fail(wire.ErrInvalid)
		}
	},
	MaxSize: 1,
}

var carBody = physics.Material{Mass: 4}

// grip is a car's own physics, a force of the game's that depends on the
// velocity: the throttle pushes body b along x, and its grip takes 15% of
// its sideways (y) speed a step.
func grip(b *cp.Body, in Pedal, dt float64) ecs.Velocity {
	v := b.Velocity()
	return ecs.Velocity{X: math.Max(-300, math.Min(300, v.X+float64(in.Throttle)*600*dt)), Y: v.Y * 0.85}
}

// driveWith returns the system that sets each car's velocity to what push
// makes of its body and input: the game's step, and its Replay.
func driveWith(push func(b *cp.Body, in Pedal, dt float64) ecs.Velocity) func(w *tandem.World) {
	type set struct {
		e arche.Entity
		v ecs.Velocity
	}
	return func(w *tandem.World) {
		dt := w.Schedule.StepDuration().Seconds()
		q := generic.NewFilter2[tandem.Input[Pedal], physics.Body]().Query(w.ECS.Arche())
		var sets []set
		for q.Next() {
			in, body := q.Get()
			sets = append(sets, set{q.Entity(), push(body.CP, in.Value, dt)})
		}
		for _, s := range sets {
			w.Physics.SetVelocity(s.e, s.v)
		}
	}
}

// carGame is a car per player, made at pose and driven by push, on an open
// floor.
func carGame(pose ecs.Transform, push func(b *cp.Body, in Pedal, dt float64) ecs.Velocity) *tandem.Game[Pedal] {
	return bodyGame(pose, push, func(w *tandem.World, e arche.Entity) { w.Physics.AttachBox(e, 40, 20, 2, carBody) })
}

// bodyGame is a body per player, made at pose, given its shape by attach
// (on the host and as it arrives on a client), and driven by push.
func bodyGame(pose ecs.Transform, push func(b *cp.Body, in Pedal, dt float64) ecs.Velocity, attach func(w *tandem.World, e arche.Entity)) *tandem.Game[Pedal] {
	return &tandem.Game[Pedal]{
		Physics: &physics.Config{},
		Components: []tandem.Component{
			tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose),
			tandem.Replicate(replicate.VelocityCodec(), tandem.PredictVelocity),
		},
		Input: pedalCodec,
		Setup: func(w *tandem.World) {
			drive := driveWith(push)
			w.Schedule.Add("drive", ecs.SystemFunc(func(*ecs.World) { drive(w) }))
			w.Schedule.Add("physics", w.Physics)
		},
		Join: func(w *tandem.World, p tandem.Peer) error {
			a := w.ECS.Arche()
			m := generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, tandem.Input[Pedal]](a)
			attach(w, m.NewWith(&pose, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p.ID}, &ecs.Interpolated{Prev: pose}, &tandem.Input[Pedal]{}))
			return nil
		},
		Arrived: attach,
	}
}

// logHostX has the host of game g log the x of its first player's body at
// each frame, after the step, into the map it returns.
func logHostX(g *tandem.Game[Pedal]) map[ecs.Frame]float64 {
	hostX := map[ecs.Frame]float64{}
	setup := g.Setup
	g.Setup = func(w *tandem.World) {
		setup(w)
		if w.Role == tandem.Hosting {
			w.Schedule.AddTo(ecs.StageOutput, "log", ecs.SystemFunc(func(ew *ecs.World) {
				if owned := ew.Owned(1); len(owned) > 0 {
					hostX[ew.Frame()] = w.Physics.BodyOf(owned[0]).Position().X
				}
			}))
		}
	}
	return hostX
}

// cars is a car per player with grip on an open floor, and drive its
// driving (its Replay).
var (
	cars  = carGame(ecs.Transform{X: 1000, Y: 1000}, grip)
	drive = driveWith(grip)
)

// A car whose grip (a force of the game's that depends on its velocity)
// the host bumps sideways once, over a 150 ms link: corrected by carrying
// the host's past difference into the present, the owner's car gets a train
// of corrections, each overshooting what the grip took since; replayed
// (ClientConfig.Replay with a body), the physics re-steps the frames since
// the corrected one and the train ends within a round trip or two.
func TestABumpedCarIsReplayedByThePhysics(t *testing.T) {
	bumped := func(replay bool) (velocity, pose uint64, largest float64) {
		bubble.Test(t, func(t *testing.T) {
			link := condition.Config{Latency: 150 * time.Millisecond}
			r := tandemtest.New(t, cars, tandem.HostConfig{}, tandemtest.Config{Bubble: true, Link: mem.Config{ToHost: link, ToClient: link}})
			cfg := tandem.ClientConfig[Pedal]{}
			if replay {
				cfg.Replay = drive
			}
			ann := r.JoinOver("ann", cfg, link, link)
			r.Step(60)
			var before tandem.NetStats
			for i := range 300 {
				ann.SetInput(Pedal{Throttle: int8(1 - 2*(i/60%2))}) // back and forth
				if i == 60 {
					r.Host.Do(func(w *tandem.World) {
						e := w.ECS.Owned(ann.Peer())[0]
						v := w.Physics.BodyOf(e).Velocity()
						w.Physics.SetVelocity(e, ecs.Velocity{X: v.X, Y: v.Y + 120})
					})
					before = ann.NetStats()
				}
				r.Step(1)
			}
			after := ann.NetStats()
			velocity = after.Predict.VelocityCorrections - before.Predict.VelocityCorrections
			pose = after.Predict.PoseCorrections - before.Predict.PoseCorrections
			largest = after.Predict.MaxPose
		})
		return velocity, pose, largest
	}
	cv, cp, cmax := bumped(false)
	rv, rp, rmax := bumped(true)
	t.Logf("after one bump, 4 s: corrected %d velocity and %d pose corrections (largest %.2f units); replayed %d and %d (largest %.2f)", cv, cp, cmax, rv, rp, rmax)
	if cv < 20 || rv+rp > (cv+cp)/4 {
		t.Fatalf("corrections after one bump: %d velocity and %d pose corrected, %d and %d replayed: want a train corrected, a quarter of it at most replayed", cv, cp, rv, rp)
	}
}
