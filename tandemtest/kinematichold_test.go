package tandemtest_test

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/physics"
	"github.com/tandem-go/tandem/tandemtest"
)

var pusher = physics.Material{Kinematic: true}

// platformGame is the cars game with a host's kinematic wall (a door, a
// pusher) just ahead of the car, that goes back and forth along x at 60
// units/s, turning every 45 frames.
func platformGame(net tandem.NetPhysics) *tandem.Game[Pedal] {
	return &tandem.Game[Pedal]{
		Physics:    cars.Physics,
		Components: cars.Components,
		Input:      pedalCodec,
		Net:        net,
		Setup: func(w *tandem.World) {
			w.Schedule.Add("pusher", ecs.SystemFunc(func(ew *ecs.World) {
				if w.Role == tandem.Joined {
					return
				}
				q := generic.NewFilter2[ecs.NetworkIdentity, physics.Body]().Query(ew.Arche())
				var wall arche.Entity
				for q.Next() {
					if id, _ := q.Get(); id.Owner == ecs.HostPeer {
						wall = q.Entity()
					}
				}
				if !wall.IsZero() {
					v := 60.0
					if ew.Frame()/45%2 == 1 {
						v = -60
					}
					w.Physics.SetVelocity(wall, ecs.Velocity{X: v})
				}
			}))
			cars.Setup(w)
			if w.Role == tandem.Joined || w.Restoring {
				return
			}
			m := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated](w.ECS.Arche())
			p := ecs.Transform{X: 1040, Y: 1000}
			e := m.NewWith(&p, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: ecs.HostPeer}, &ecs.Interpolated{Prev: p})
			w.Physics.AttachBox(e, 20, 400, 0, pusher)
		},
		Join: cars.Join,
		Arrived: func(w *tandem.World, e arche.Entity) {
			if id, _ := w.ECS.Identity(e); id.Owner == ecs.HostPeer {
				w.Physics.AttachBox(e, 20, 400, 0, pusher)
				return
			}
			w.Physics.AttachBox(e, 40, 20, 2, carBody)
		},
	}
}

// A host's kinematic wall (a pusher going back and forth) that the client's
// car presses against is never held: its body on the client stays where the
// host has it, carried forward, as if holding were off. (Held, the client
// ran it alone through its reversals: 73 units off at worst, twice as far
// as unheld.)
func TestAKinematicBodyIsNotHeld(t *testing.T) {
	run := func(net tandem.NetPhysics, replay bool) (worst, mean float64, corr uint64, holds uint64) {
		bubble.Test(t, func(t *testing.T) {
			link := condition.Config{Latency: 100 * time.Millisecond}
			r := tandemtest.New(t, platformGame(net), tandem.HostConfig{}, tandemtest.Config{Bubble: true, Link: mem.Config{ToHost: link, ToClient: link}})
			cfg := tandem.ClientConfig[Pedal]{}
			if replay {
				cfg.Replay = drive
			}
			ann := r.JoinOver("ann", cfg, link, link)
			ann.SetInput(Pedal{Throttle: 1})
			r.Step(120)
			host := map[ecs.Frame]float64{}
			client := map[ecs.Frame]float64{}
			wallX := func(w *tandem.World, body bool) (ecs.Frame, float64) {
				q := generic.NewFilter2[ecs.NetworkIdentity, ecs.Transform]().Query(w.ECS.Arche())
				x := math.NaN()
				for q.Next() {
					id, tr := q.Get()
					if id.Owner == ecs.HostPeer {
						x = tr.X
						if body {
							x = w.Physics.BodyOf(q.Entity()).Position().X
						}
					}
				}
				return w.ECS.Frame(), x
			}
			s0 := ann.NetStats().Predict
			for range 600 {
				r.Step(1)
				r.Host.Do(func(w *tandem.World) { f, x := wallX(w, false); host[f] = x })
				ann.Do(func(w *tandem.World) { f, x := wallX(w, true); client[f] = x })
			}
			n := 0
			for f, x := range client {
				if hx, ok := host[f]; ok {
					d := math.Abs(x - hx)
					worst = max(worst, d)
					mean += d
					n++
				}
			}
			mean /= float64(n)
			s1 := ann.NetStats()
			corr = s1.Predict.PoseCorrections + s1.Predict.VelocityCorrections - s0.PoseCorrections - s0.VelocityCorrections + s1.Predict.Replays - s0.Replays
			holds = s1.Bodies.Holds
		})
		return
	}
	noHold := tandem.NetPhysics{Hold: func(*tandem.World, arche.Entity) bool { return false }}
	for _, replay := range []bool{false, true} {
		dw, dm, dc, dh := run(tandem.NetPhysics{}, replay)
		nw, nm, nc, nh := run(noHold, replay)
		t.Logf("replay %v: default Hold: wall off by %.1f units at worst, %.2f on average, %d corrections (+replays) of the car, %d holds; never held: %.1f worst, %.2f average, %d corrections, %d holds", replay, dw, dm, dc, dh, nw, nm, nc, nh)
		if dh != 0 || dw > nw+1 {
			t.Errorf("replay %v: the client's body of a host's kinematic wall, held while the car touches it, was %.1f units from the host's (%.1f when not held)", replay, dw, nw)
		}
	}
}
