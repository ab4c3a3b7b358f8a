package tandem_test

import (
	"context"
	"fmt"
	"math"
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

// Aim is the gallery's input: the trigger, and the x the player aims at.
type Aim struct {
	Fire bool
	X    int16
}

// gallery is a shooting gallery: a duck crosses the screen at 300 units a
// second, and a player's shot hits it if it was within 20 units of her aim
// where she saw it. The duck is LagCompensated: the host keeps its poses, and
// World.Seen finds it at the view her input carries (Input.View), some way
// behind the host's present (her round trip and the render delay).
func gallery(report func(hit bool, seen, now float64)) *tandem.Game[Aim] {
	return &tandem.Game[Aim]{
		Components: []tandem.Component{tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose)},
		Setup: func(w *tandem.World) {
			if w.Role == tandem.Joined {
				return // a client draws the duck it receives
			}
			a := w.ECS.Arche()
			ducks := generic.NewMap4[ecs.Transform, ecs.NetworkIdentity, ecs.Interpolated, tandem.LagCompensated](a)
			duck := ducks.NewWith(&ecs.Transform{X: -400}, &ecs.NetworkIdentity{}, &ecs.Interpolated{}, &tandem.LagCompensated{})
			guns := generic.NewFilter1[tandem.Input[Aim]]()
			var fired map[arche.Entity]bool
			w.Schedule.Add("duck", ecs.SystemFunc(func(ew *ecs.World) {
				ecs.Mutate[ecs.Transform](ew, duck).X += 5
			}))
			w.Schedule.Add("shots", ecs.SystemFunc(func(ew *ecs.World) {
				q := guns.Query(a)
				for q.Next() {
					in := q.Get()
					held := in.Live && in.Value.Fire
					if held && !fired[q.Entity()] {
						seen, _ := w.Seen(duck, in.View) // where she saw it
						now, _ := w.Seen(duck, float64(ew.Frame()))
						report(math.Abs(seen.X-float64(in.Value.X)) <= 20, seen.X-float64(in.Value.X), now.X-float64(in.Value.X))
					}
					if fired == nil {
						fired = map[arche.Entity]bool{}
					}
					fired[q.Entity()] = held
				}
			}))
		},
		Input: tandem.InputCodec[Aim]{
			Append: func(dst []byte, in *Aim) []byte {
				b := byte(0)
				if in.Fire {
					b = 1
				}
				return append(append(dst, b), byte(uint16(in.X)), byte(uint16(in.X)>>8))
			},
			Read: func(r *wire.Reader, in *Aim) {
				b := r.U8()
				if b > 1 {
					r.Fail(wire.ErrInvalid)
				}
				in.Fire = b == 1
				in.X = int16(uint16(r.U8()) | uint16(r.U8())<<8)
			},
			MaxSize: 3,
		},
		Join: func(w *tandem.World, p tandem.Peer) error {
			m := generic.NewMap3[ecs.Transform, ecs.NetworkIdentity, tandem.Input[Aim]](w.ECS.Arche())
			m.NewWith(&ecs.Transform{Y: 400}, &ecs.NetworkIdentity{Owner: p.ID}, &tandem.Input[Aim]{})
			return nil
		},
	}
}

// A player 60 ms away shoots at the duck where her screen draws it: the host
// finds it there and calls the shot a hit, where the duck as the host takes
// the shot is some 90 units on.
func Example_lagCompensation() {
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	link := condition.Config{Latency: 60 * time.Millisecond}
	network, _ := mem.NewNetwork(clk, mem.Config{ToHost: link, ToClient: link})
	listener, _ := network.Listen("host")
	host, err := tandem.NewHost(gallery(func(hit bool, seen, now float64) {
		fmt.Printf("hit %v: the duck %.0f units from her aim where she saw it, %.0f as the host took the shot\n", hit, math.Abs(seen), math.Abs(now))
	}), tandem.HostConfig{Clock: clk})
	if err != nil {
		panic(err)
	}
	defer host.Close()
	conn, _ := network.Dial(context.Background(), "host")
	client, err := tandem.NewClient(gallery(nil), conn, tandem.ClientConfig[Aim]{Name: "ann", Clock: clk})
	if err != nil {
		panic(err)
	}
	accepted, _ := listener.Accept(context.Background())
	host.Accept(accepted)
	// Each turn the client draws a frame: where it draws the duck is what
	// she aims at, and the frame it drew is the view her input carries.
	duckX := 0.0
	turn := func() {
		clk.Advance(time.Second / 60)
		host.Advance()
		client.Advance()
		client.View(clk.Now(), func(v *tandem.View) {
			if e, ok := v.World.ECS.EntityOf(1); ok {
				p, _ := v.Pose(e)
				duckX = p.X
			}
		})
	}
	for range 90 {
		turn()
	}
	client.SetInput(Aim{Fire: true, X: int16(math.Round(duckX))})
	for range 30 {
		turn()
	}
	// Output:
	// hit true: the duck 0 units from her aim where she saw it, 87 as the host took the shot
}
