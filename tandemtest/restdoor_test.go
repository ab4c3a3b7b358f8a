package tandemtest_test

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/physics"
	"github.com/tandem-go/tandem/tandemtest"
)

var doorBody = physics.Material{Kinematic: true}

// carAndDoor is the cars game with a door of the host's (the one entity
// the host owns), a kinematic body that closes on the car from its right
// at 60 units a second.
var carAndDoor = func() *tandem.Game[Pedal] {
	g := *cars
	g.Setup = func(w *tandem.World) {
		cars.Setup(w)
		if w.Role == tandem.Joined || w.Restoring {
			return
		}
		m := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated](w.ECS.Arche())
		p := ecs.Transform{X: 1100, Y: 1000}
		e := m.NewWith(&p, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: ecs.HostPeer}, &ecs.Interpolated{Prev: p})
		w.Physics.AttachBox(e, 20, 100, 0, doorBody)
		w.Schedule.Add("door", ecs.SystemFunc(func(*ecs.World) { w.Physics.SetVelocity(e, ecs.Velocity{X: -60}) }))
	}
	g.Arrived = func(w *tandem.World, e arche.Entity) {
		if id, _ := w.ECS.Identity(e); id.Owner == ecs.HostPeer {
			w.Physics.AttachBox(e, 20, 100, 0, doorBody)
			return
		}
		cars.Arrived(w, e)
	}
	return &g
}()

// sunk returns how far the door is into the car in w's physics.
func sunk(w *tandem.World, car arche.Entity) float64 {
	door, _ := hostsOwn(w)
	c, d := w.Physics.BodyOf(car).Position(), w.Physics.BodyOf(door).Position()
	return math.Max(0, (c.X+20)-(d.X-10))
}

// A player standing still whom a door closes on is pushed by it on her own
// screen, not held where the host has her at rest while her door, ahead of
// the host's, sinks into her; nor put back into it when the contact breaks
// for a frame (a link that loses datagrams stalls her door now and then).
// (It sank 13 units where the host's sank 1.)
func TestADoorClosingOnAPlayerAtRestPushesHer(t *testing.T) {
	for seed := range uint64(8) {
		link := condition.Config{Latency: 50 * time.Millisecond}
		lossy := condition.Config{Latency: 50 * time.Millisecond, Loss: 0.05, Seed: seed + 1}
		if seed == 0 {
			lossy = link
		}
		r := tandemtest.New(t, carAndDoor, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: lossy}})
		ann := r.JoinOver("ann", tandem.ClientConfig[Pedal]{}, link, lossy)
		host, mine := 0.0, 0.0
		for range 180 {
			r.Step(1)
			r.Host.Do(func(w *tandem.World) { host = max(host, sunk(w, w.ECS.Owned(ann.Peer())[0])) })
			ann.Do(func(w *tandem.World) { mine = max(mine, sunk(w, w.ECS.Owned(ann.Peer())[0])) })
		}
		t.Logf("loss seed %d: the door sank at most %.2f units into ann on the host, %.2f on her client; rest holds %d", seed, host, mine, ann.NetStats().Bodies.Rests)
		x := 0.0
		r.Host.Do(func(w *tandem.World) { x = w.Physics.BodyOf(w.ECS.Owned(ann.Peer())[0]).Position().X })
		if x > 990 {
			t.Fatalf("the door never pushed ann: she is at x %.1f on the host", x)
		}
		if mine > host+3 {
			t.Errorf("loss seed %d: on ann's client the closing door sank %.2f units into her, on the host %.2f", seed, mine, host)
		}
	}
}
