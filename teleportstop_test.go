package tandem

import (
	"math"
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// coastGame is a world of players that keep their speed: the input
// accelerates a player along x (600 units/s²), nothing slows it, and the
// host, at frame 150, sends every player 1,000 units back and stops it, as
// a respawn or a race's restart does, reporting the teleport.
func coastGame() *Game[push] {
	return &Game[push]{
		Components: []Component{
			Replicate(replicate.TransformCodec(), PredictPose),
			Replicate(replicate.VelocityCodec(), PredictVelocity),
		},
		Input: pushCodec,
		Setup: func(w *World) {
			controls := generic.NewFilter2[ecs.Velocity, Input[push]]()
			movers := generic.NewFilter2[ecs.Transform, ecs.Velocity]()
			dt := w.Schedule.StepDuration().Seconds()
			w.Schedule.Add("control", ecs.SystemFunc(func(ew *ecs.World) {
				q := controls.Query(ew.Arche())
				for q.Next() {
					if v, in := q.Get(); in.Value.X != 0 {
						v.X += float64(in.Value.X) * 600 * dt
						ecs.MutateComponent(ew, q.Entity(), ew.IDs.Velocity)
					}
				}
			}))
			w.Schedule.Add("coast", ecs.SystemFunc(func(ew *ecs.World) {
				q := movers.Query(ew.Arche())
				for q.Next() {
					if t, v := q.Get(); v.X != 0 || v.Y != 0 {
						t.X += v.X * dt
						t.Y += v.Y * dt
						ecs.MutateComponent(ew, q.Entity(), ew.IDs.Transform)
					}
				}
			}))
			if w.Role == Joined {
				return
			}
			players := generic.NewFilter3[ecs.Transform, ecs.Velocity, Input[push]]()
			w.Schedule.Add("restart", ecs.SystemFunc(func(ew *ecs.World) {
				if ew.Frame() != 150 {
					return
				}
				q := players.Query(ew.Arche())
				for q.Next() {
					t, v, _ := q.Get()
					t.X -= 1000
					*v = ecs.Velocity{}
					ecs.MutateComponent(ew, q.Entity(), ew.IDs.Transform)
					ecs.MutateComponent(ew, q.Entity(), ew.IDs.Velocity)
					ecs.ReportTeleport(ew, q.Entity())
				}
			}))
		},
		Join: func(w *World, p Peer) error {
			m := generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, Input[push]](w.ECS.Arche())
			m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p.ID}, &ecs.Interpolated{}, &Input[push]{})
			return nil
		},
	}
}

// A client's own player that the host teleports and stops in one frame
// (a respawn) is drawn landing where the host put it, at once: one jump,
// then standing there, never sliding back from past the spot. The
// prediction had carried it on at its old speed for the frames since the
// teleport's; the jump takes that travel back too (with or without the
// throttle held after it).
func TestOwnTeleportAndStopLandsOnTheSpot(t *testing.T) {
	for _, after := range []int8{0, 1} {
		t.Run(map[int8]string{0: "coasting", 1: "throttle"}[after], func(t *testing.T) {
			p := newPair(t, coastGame(), condition.Config{Latency: 50 * time.Millisecond})
			p.client.SetInput(push{X: 1})
			p.run(time.Second / 2) // some 300 units/s
			p.client.SetInput(push{X: after})
			own, ok := p.client.Local()
			if !ok {
				t.Fatal("the client has no player")
			}
			last, jumps, backs, worst := math.NaN(), 0, 0, 0.0
			for range 3 * 120 {
				p.run(time.Second / 120)
				p.client.View(p.clk.Now(), func(v *View) {
					drawn, _, _ := drawnAt(t, v, own)
					switch d := drawn.X - last; {
					case d < -500:
						jumps++
					case d < -1e-9:
						backs++
						worst = max(worst, -d)
					}
					last = drawn.X
				})
			}
			st := p.client.NetStats().Predict
			if jumps != 1 || backs != 0 || st.Teleports != 1 || st.MaxPose > 1 {
				t.Fatalf("teleported back and stopped: %d jumps, then %d frames drawn moving back (up to %.2f units); %d teleports, pose corrections up to %.2f: want one jump and nothing back",
					jumps, backs, worst, st.Teleports, st.MaxPose)
			}
		})
	}
}
