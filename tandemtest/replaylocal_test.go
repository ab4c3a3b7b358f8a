package tandemtest_test

import (
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/physics"
	"github.com/tandem-go/tandem/tandemtest"
)

// probe marks a client's own (not networked) body: debris, a particle.
type probe struct{}

const probeSpeed = 60.0 // units a second, along x

// addProbe gives a client's world a body of its own, far from everything,
// gliding at probeSpeed: each physics step moves it probeSpeed*dt.
func addProbe(w *tandem.World) {
	if w.Role != tandem.Joined {
		return
	}
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, probe](w.ECS.Arche())
	e := m.NewWith(&ecs.Transform{X: -5000, Y: -5000}, &ecs.Velocity{X: probeSpeed}, &probe{})
	w.Physics.AttachCircle(e, 5, physics.Material{Mass: 1})
}

func probeX(c *tandem.Client[Pedal]) (x float64, f ecs.Frame) {
	c.Do(func(w *tandem.World) {
		q := generic.NewFilter2[ecs.Transform, probe]().Query(w.ECS.Arche())
		for q.Next() {
			t, _ := q.Get()
			x = t.X
		}
		f = w.ECS.Frame()
	})
	return x, f
}

// carsWithProbe is the cars game (a car per player with a body) whose
// client also has a body of its own.
var carsWithProbe = &tandem.Game[Pedal]{
	Physics:    cars.Physics,
	Components: cars.Components,
	Input:      pedalCodec,
	Setup: func(w *tandem.World) {
		cars.Setup(w)
		addProbe(w)
	},
	Join:    cars.Join,
	Arrived: cars.Arrived,
}

// moveShips is a kinematic ship's movement: the throttle sets its x speed,
// and it moves by it. No body.
func moveShips(w *tandem.World) {
	dt := w.Schedule.StepDuration().Seconds()
	q := generic.NewFilter3[tandem.Input[Pedal], ecs.Transform, ecs.Velocity]().Without(generic.T[physics.Body]()).Query(w.ECS.Arche())
	for q.Next() {
		in, t, v := q.Get()
		v.X = float64(in.Value.Throttle) * 100
		t.X += v.X * dt
		ecs.MutateComponent(w.ECS, q.Entity(), w.ECS.IDs.Transform)
		ecs.MutateComponent(w.ECS, q.Entity(), w.ECS.IDs.Velocity)
	}
}

// ships is a kinematic ship per player (no body: the README's case for
// Replay) in a game that has physics for other things; the client has a
// body of its own.
var ships = &tandem.Game[Pedal]{
	Physics: &physics.Config{},
	Components: []tandem.Component{
		tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose),
		tandem.Replicate(replicate.VelocityCodec(), tandem.PredictVelocity),
	},
	Input: pedalCodec,
	Setup: func(w *tandem.World) {
		w.Schedule.Add("move", ecs.SystemFunc(func(*ecs.World) { moveShips(w) }))
		w.Schedule.Add("physics", w.Physics)
		addProbe(w)
	},
	Join: func(w *tandem.World, p tandem.Peer) error {
		m := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, tandem.Input[Pedal]](w.ECS.Arche())
		m.NewWith(&ecs.Transform{X: 1000, Y: 1000}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p.ID}, &tandem.Input[Pedal]{})
		return nil
	},
	Arrived: func(w *tandem.World, e arche.Entity) {},
}

// A replay that re-steps the Space gives a client's own body (not
// networked: debris) its state back, so it moves one step a frame, replays
// or not; with a kinematic player (no body) the Space is not stepped at all.
// (It moved once more per replayed frame: 340 steps' worth in 240 frames.)
func TestAReplayLeavesTheClientsOwnBodiesAlone(t *testing.T) {
	for _, tc := range []struct {
		name   string
		g      *tandem.Game[Pedal]
		replay func(*tandem.World)
		bump   func(w *tandem.World, e arche.Entity)
	}{
		{"car", carsWithProbe, drive, func(w *tandem.World, e arche.Entity) {
			v := w.Physics.BodyOf(e).Velocity()
			w.Physics.SetVelocity(e, ecs.Velocity{X: v.X, Y: v.Y + 120})
		}},
		{"kinematic ship", ships, moveShips, func(w *tandem.World, e arche.Entity) {
			a := w.ECS.Arche()
			(*ecs.Transform)(a.Get(e, w.ECS.IDs.Transform)).Y += 40
			ecs.MutateComponent(w.ECS, e, w.ECS.IDs.Transform)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bubble.Test(t, func(t *testing.T) {
				link := condition.Config{Latency: 100 * time.Millisecond}
				r := tandemtest.New(t, tc.g, tandem.HostConfig{}, tandemtest.Config{Bubble: true, Link: mem.Config{ToHost: link, ToClient: link}})
				ann := r.JoinOver("ann", tandem.ClientConfig[Pedal]{Replay: tc.replay}, link, link)
				r.Step(60)
				x0, f0 := probeX(ann)
				s0 := ann.NetStats().Predict
				for i := range 240 {
					ann.SetInput(Pedal{Throttle: int8(1 - 2*(i/60%2))})
					if i%40 == 10 {
						r.Host.Do(func(w *tandem.World) { tc.bump(w, w.ECS.Owned(ann.Peer())[0]) })
					}
					r.Step(1)
				}
				x1, f1 := probeX(ann)
				s1 := ann.NetStats().Predict
				dt := (time.Second / 60).Seconds()
				steps := (x1 - x0) / (probeSpeed * dt)
				t.Logf("%d frames, %d replays of %d frames: the client's own body moved %.1f steps' worth", f1-f0, s1.Replays-s0.Replays, s1.ReplayedFrames-s0.ReplayedFrames, steps)
				if s1.Replays == s0.Replays {
					t.Fatalf("no replay ran")
				}
				if steps > float64(f1-f0)+0.5 {
					t.Fatalf("a body of the client's own was stepped %.1f times in %d frames: each replay moved it on", steps, f1-f0)
				}
			})
		})
	}
}
