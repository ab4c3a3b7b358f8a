package tandemtest_test

import (
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

const crates = 40

// carsAndCrates is the cars game with crates of the host's at rest, far
// from the cars.
var carsAndCrates = &tandem.Game[Pedal]{
	Physics:    cars.Physics,
	Components: cars.Components,
	Input:      pedalCodec,
	Setup: func(w *tandem.World) {
		cars.Setup(w)
		if w.Role == tandem.Joined || w.Restoring {
			return
		}
		m := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated](w.ECS.Arche())
		for i := range crates {
			p := ecs.Transform{X: -3000 + float64(i%8)*100, Y: -3000 + float64(i/8)*100}
			e := m.NewWith(&p, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: ecs.HostPeer}, &ecs.Interpolated{Prev: p})
			w.Physics.AttachBox(e, 40, 20, 2, carBody)
		}
	},
	Join:    cars.Join,
	Arrived: cars.Arrived,
}

// remoteAwake counts the client's remote bodies that are awake, and the
// bodies the Space integrated in its last step.
func remoteAwake(c *tandem.Client[Pedal]) (remote, awake int) {
	c.Do(func(w *tandem.World) {
		q := generic.NewFilter1[ecs.NetworkIdentity]().Query(w.ECS.Arche())
		for q.Next() {
			id := q.Get()
			if id.Owner == c.Peer() {
				continue
			}
			if b := w.Physics.BodyOf(q.Entity()); b != nil && !b.IsSleeping() {
				remote++
			}
		}
		awake = w.Physics.Awake()
	})
	return remote, awake
}

// Remote bodies asleep at the host's state stay asleep through a replay,
// which steps the bodies awake only. (Every replay woke them all, each
// replayed frame stepped every remote body, and so did the frames after it
// until they slept again, 500 ms later.)
func TestAReplayLeavesSleepingRemoteBodiesAsleep(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		link := condition.Config{Latency: 100 * time.Millisecond}
		r := tandemtest.New(t, carsAndCrates, tandem.HostConfig{}, tandemtest.Config{Bubble: true, Link: mem.Config{ToHost: link, ToClient: link}})
		ann := r.JoinOver("ann", tandem.ClientConfig[Pedal]{Replay: driveWith(grip)}, link, link)
		ann.SetInput(Pedal{Throttle: 1})
		r.Step(120)
		rem, awake := remoteAwake(ann)
		t.Logf("before: %d remote bodies awake, %d bodies integrated in the last step", rem, awake)
		if rem != 0 {
			t.Fatalf("the crates did not fall asleep on the client: %d awake", rem)
		}
		r.Host.Do(func(w *tandem.World) {
			e := w.ECS.Owned(ann.Peer())[0]
			v := w.Physics.BodyOf(e).Velocity()
			w.Physics.SetVelocity(e, ecs.Velocity{X: v.X, Y: v.Y + 120})
		})
		before := ann.NetStats().Predict.Replays
		if !r.StepUntil(120, func() bool { return ann.NetStats().Predict.Replays > before }) {
			t.Fatal("no replay")
		}
		rem, awake = remoteAwake(ann)
		t.Logf("after a replay: %d remote bodies awake, %d bodies integrated in the step", rem, awake)
		r.Step(10)
		rem2, awake2 := remoteAwake(ann)
		t.Logf("10 frames later: %d remote bodies awake, %d integrated", rem2, awake2)
		if rem > 0 || rem2 > 0 {
			t.Fatalf("a replay of the car woke %d remote bodies asleep 3000 units away (still %d 10 frames later)", rem, rem2)
		}
	})
}
