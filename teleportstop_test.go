package tandem

import (
	"math"
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/physics"
)

// coastGame is a world of players that keep their speed: the input
// accelerates a player along x (600 units/s²) and, with spin, spins it up
// too (3 rad/s²), nothing slows it, and the host, at frame 150, sends every
// player 1,000 units back, turned to angle 0, and stops it, as a respawn or
// a race's restart does, reporting the teleport.
func coastGame(spin bool) *Game[push] {
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
						if spin {
							v.Angular += float64(in.Value.X) * 3 * dt
						}
						ecs.MutateComponent(ew, q.Entity(), ew.IDs.Velocity)
					}
				}
			}))
			w.Schedule.Add("coast", ecs.SystemFunc(func(ew *ecs.World) {
				q := movers.Query(ew.Arche())
				for q.Next() {
					if t, v := q.Get(); v.X != 0 || v.Y != 0 || v.Angular != 0 {
						t.X += v.X * dt
						t.Y += v.Y * dt
						t.Angle += v.Angular * dt
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
					t.Angle = 0
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
// then standing there, never sliding back from past the spot, nor turning
// on when it spun. The prediction had carried it on at its old speed for
// the frames since the teleport's; the jump takes that travel back too
// (with or without the throttle held after it).
func TestOwnTeleportAndStopLandsOnTheSpot(t *testing.T) {
	for _, c := range []struct {
		name  string
		after int8
		spin  bool
	}{{"coasting", 0, false}, {"throttle", 1, false}, {"spinning", 0, true}} {
		t.Run(c.name, func(t *testing.T) {
			p := newPair(t, coastGame(c.spin), condition.Config{Latency: 50 * time.Millisecond})
			p.client.SetInput(push{X: 1})
			p.run(time.Second / 2) // some 300 units/s
			p.client.SetInput(push{X: c.after})
			w := watchJump(t, p)
			st := p.client.NetStats().Predict
			if w.jumps != 1 || w.backs != 0 || st.Teleports != 1 || st.MaxPose > 1 {
				t.Fatalf("teleported back and stopped: %d jumps, then %d frames drawn moving back (up to %.2f units); %d teleports, pose corrections up to %.2f: want one jump and nothing back",
					w.jumps, w.backs, w.worst, st.Teleports, st.MaxPose)
			}
			if w.turning > 0 || math.Abs(ecs.AngleDiff(w.angle, 0)) > 1e-3 {
				t.Fatalf("stopped at angle 0: drawn at %.4f at the end, turning in %d of the last 100 frames", w.angle, w.turning)
			}
		})
	}
}

// The same of a body under ground friction, its rest lock off (the lock
// holds it on the host's pose once at rest, which would hide it): the
// prediction's travel since the teleport's frame, slowing, is what the
// jump takes back, not the old speed's for as long, where it landed 4 and
// 13 units short and slid on back (at 50 and 100 ms each way).
func TestOwnTeleportAndStopUnderFriction(t *testing.T) {
	for _, lat := range []time.Duration{50 * time.Millisecond, 100 * time.Millisecond} {
		t.Run(lat.String(), func(t *testing.T) {
			g := testGame()
			g.Net.NoRest = true
			setup := g.Setup
			g.Setup = func(w *World) {
				setup(w)
				if w.Role == Joined {
					return
				}
				f := generic.NewFilter2[Input[push], physics.Body]()
				coasted, done := 0, false
				w.Schedule.Add("restart", ecs.SystemFunc(func(ew *ecs.World) {
					q := f.Query(ew.Arche())
					for q.Next() {
						e := q.Entity()
						in, _ := q.Get()
						if done || in.Value.X != 0 || ecs.Get[ecs.Velocity](ew, e).X < 50 {
							continue
						}
						if coasted++; coasted < 6 {
							continue // a few frames coasting first
						}
						done = true
						tf := *ecs.Get[ecs.Transform](ew, e)
						tf.X -= 1000
						w.Physics.SetPose(e, tf)
						w.Physics.SetVelocity(e, ecs.Velocity{})
					}
				}))
			}
			p := newPair(t, g, condition.Config{Latency: lat})
			p.run(time.Second)
			p.client.SetInput(push{X: 1})
			p.run(time.Second / 2)
			p.client.SetInput(push{})
			w := watchJump(t, p)
			st := p.client.NetStats().Predict
			if w.jumps != 1 || w.backs != 0 || st.MaxPose > 1 {
				t.Fatalf("teleported back and stopped under friction: %d jumps, %d frames drawn moving back (up to %.2f); pose corrections up to %.2f", w.jumps, w.backs, w.worst, st.MaxPose)
			}
		})
	}
}

// jumpWatch is what watchJump saw of the client's own player drawn.
type jumpWatch struct {
	jumps, backs int     // frames drawn 500 units or more back, and less
	worst        float64 // the longest of the second
	turning      int     // of the last 100 frames, those drawn turning
	angle        float64 // the last frame's angle
}

// watchJump runs the pair three seconds, a drawn frame a step, and watches
// the client's own player drawn along x.
func watchJump(t *testing.T, p *pair) jumpWatch {
	t.Helper()
	own, ok := p.client.Local()
	if !ok {
		t.Fatal("the client has no player")
	}
	var w jumpWatch
	last := math.NaN()
	const frames = 3 * 120
	for i := range frames {
		p.run(time.Second / 120)
		p.client.View(p.clk.Now(), func(v *View) {
			drawn, _, _ := drawnAt(t, v, own)
			switch d := drawn.X - last; {
			case d < -500:
				w.jumps++
			case d < -1e-9:
				w.backs++
				w.worst = max(w.worst, -d)
			}
			if i >= frames-100 && math.Abs(ecs.AngleDiff(w.angle, drawn.Angle)) > 1e-6 {
				w.turning++
			}
			last, w.angle = drawn.X, drawn.Angle
		})
	}
	return w
}
