package tandem_test

import (
	"context"
	"fmt"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// Trigger is the shooting game's input: the fire button, held or not.
type Trigger struct{ Fire bool }

// Shot marks a projectile: the frame it expires at. A component every
// client receives (a marker needs a field to travel), so Arrived tells a
// shot from a player.
type Shot struct{ Until ecs.Frame }

// shooting is a game of short-lived entities: a player holding fire makes
// a shot every fourth step, which flies up the screen for half a second
// and is removed. Shots are the host's: it makes, moves and removes them,
// and every client makes or removes its copy as the states that say so
// arrive.
var shooting = &tandem.Game[Trigger]{
	Components: []tandem.Component{
		tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose),
		tandem.Replicate(replicate.IntegerCodec[Shot]("Shot"), tandem.HostValue),
	},
	Setup: func(w *tandem.World) {
		if w.Role == tandem.Joined {
			return // a client draws the shots it receives: nothing to run
		}
		a := w.ECS.Arche()
		// Filters are made here, once for each world.
		guns := generic.NewFilter2[tandem.Input[Trigger], ecs.Transform]()
		flying := generic.NewFilter2[Shot, ecs.Transform]()
		shots := generic.NewMap4[ecs.Transform, ecs.NetworkIdentity, ecs.Interpolated, Shot](a)
		var spent []arche.Entity
		var muzzles []ecs.Transform
		w.Schedule.Add("shots", ecs.SystemFunc(func(ew *ecs.World) {
			now := ew.Frame()
			q := flying.Query(a)
			for q.Next() {
				shot, pose := q.Get()
				if now >= shot.Until {
					spent = append(spent, q.Entity())
					continue
				}
				pose.Y -= 10
				ecs.MutateComponent(ew, q.Entity(), ew.IDs.Transform) // every write of a replicated component is reported
			}
			for _, e := range spent {
				w.Remove(e) // gone from every client too
			}
			spent = spent[:0]
			g := guns.Query(a)
			for g.Next() {
				in, pose := g.Get()
				if in.Live && in.Value.Fire && now%4 == 0 {
					muzzles = append(muzzles, *pose)
				}
			}
			for _, at := range muzzles {
				shots.NewWith(&at, &ecs.NetworkIdentity{}, &ecs.Interpolated{Prev: at}, &Shot{Until: now + 30})
			}
			muzzles = muzzles[:0]
		}))
	},
	Input: tandem.InputCodec[Trigger]{
		Append: func(dst []byte, in *Trigger) []byte {
			if in.Fire {
				return append(dst, 1)
			}
			return append(dst, 0)
		},
		Read: func(r *wire.Reader, in *Trigger) {
			b := r.U8()
			if b > 1 {
				r.Fail(wire.ErrInvalid)
			}
			in.Fire = b == 1
		},
		MaxSize: 1,
	},
	Join: func(w *tandem.World, p tandem.Peer) error {
		m := generic.NewMap4[ecs.Transform, ecs.NetworkIdentity, ecs.Interpolated, tandem.Input[Trigger]](w.ECS.Arche())
		m.NewWith(&ecs.Transform{Y: 400}, &ecs.NetworkIdentity{Owner: p.ID}, &ecs.Interpolated{}, &tandem.Input[Trigger]{})
		return nil
	},
}

// A player fires for a second over a link of 40 ms each way that loses a
// tenth of its datagrams: her client holds the shots in flight, a little
// behind the host, and once she stops, every shot the host removed is gone
// from her screen too (a removal goes again until a copy of it is
// answered).
func Example_shots() {
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	link := condition.Config{Latency: 40 * time.Millisecond, Loss: 0.1, Seed: 1}
	network, _ := mem.NewNetwork(clk, mem.Config{ToHost: link, ToClient: link})
	listener, _ := network.Listen("host")
	host, err := tandem.NewHost(shooting, tandem.HostConfig{Clock: clk})
	if err != nil {
		panic(err)
	}
	defer host.Close()
	conn, _ := network.Dial(context.Background(), "host")
	// Arrived runs on a client for each entity it receives: a game tells
	// kinds apart by a marker component and gives each its sprite.
	arrived := 0
	game := *shooting
	game.Arrived = func(w *tandem.World, e arche.Entity) {
		if w.ECS.Arche().Has(e, arche.ComponentID[Shot](w.ECS.Arche())) {
			arrived++
		}
	}
	client, err := tandem.NewClient(&game, conn, tandem.ClientConfig[Trigger]{Name: "ann", Clock: clk})
	if err != nil {
		panic(err)
	}
	accepted, _ := listener.Accept(context.Background())
	host.Accept(accepted)
	run := func(d time.Duration) {
		for end := clk.Now().Add(d); clk.Now().Before(end); {
			clk.Advance(time.Second / 120)
			host.Advance()
			client.Advance()
		}
	}
	count := func(s tandem.Session[Trigger]) (n int) {
		s.View(clk.Now(), func(v *tandem.View) {
			q := generic.NewFilter1[Shot]().Query(v.World.ECS.Arche())
			n = q.Count()
			q.Close()
		})
		return n
	}
	run(time.Second)
	client.SetInput(Trigger{Fire: true})
	run(time.Second)
	fmt.Printf("firing: shots in flight on the host %d, on the client %d (the newest on their way)\n", count(host), count(client))
	client.SetInput(Trigger{})
	run(time.Second)
	fmt.Printf("a second after: on the host %d, on the client %d; the client saw %d arrive\n", count(host), count(client), arrived)
	// Output:
	// firing: shots in flight on the host 8, on the client 7 (the newest on their way)
	// a second after: on the host 0, on the client 0; the client saw 15 arrive
}
