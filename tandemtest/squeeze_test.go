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

// Stick is a top-down player's input: which way to run on each axis, -1,
// 0 or 1.
type Stick struct{ X, Y int8 }

var stickCodec = axesCodec(func(in *Stick) (a, b *int8) { return &in.X, &in.Y })

// Top speed and acceleration of the runners, units a second (and a second
// squared).
const (
	runnerTop   = 300.0
	runnerAccel = 2400.0
)

// runners is a top-down arena, 1600 by 1200, walled, of discs a stick
// drives: it speeds a disc up along the stick to its top speed and never
// slows it (a disc pushed faster keeps its speed until the ground's
// friction takes it). The n-th player starts at (740+60n, 1170), on the
// bottom wall, beside the one before.
func runners() *tandem.Game[Stick] {
	body := func(w *tandem.World, e arche.Entity) {
		w.Physics.AttachCircle(e, 16, physics.Material{Mass: 1, Friction: 0.2, Elasticity: 0.2, Velocity: physics.GroundFriction(900)})
	}
	return &tandem.Game[Stick]{
		Physics: &physics.Config{},
		Components: []tandem.Component{
			tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose),
			tandem.Replicate(replicate.VelocityCodec(), tandem.PredictVelocity),
		},
		Input: stickCodec,
		Setup: func(w *tandem.World) {
			for _, s := range [][4]float64{{0, 0, 1600, 0}, {1600, 0, 1600, 1200}, {1600, 1200, 0, 1200}, {0, 1200, 0, 0}} {
				w.Physics.StaticSegment(cp.Vector{X: s[0], Y: s[1]}, cp.Vector{X: s[2], Y: s[3]}, 4, physics.Material{Friction: 0.2, Elasticity: 0.2})
			}
			drive := generic.NewFilter2[tandem.Input[Stick], physics.Body]()
			type set struct {
				e arche.Entity
				v ecs.Velocity
			}
			var sets []set
			w.Schedule.Add("drive", ecs.SystemFunc(func(ew *ecs.World) {
				dt := w.Physics.StepSeconds()
				q := drive.Query(ew.Arche())
				for q.Next() {
					in, b := q.Get()
					tx, ty := float64(in.Value.X), float64(in.Value.Y)
					if tx == 0 && ty == 0 {
						continue
					}
					if l := math.Hypot(tx, ty); l > 1 {
						tx, ty = tx/l, ty/l
					}
					v := b.CP.Velocity()
					vx, vy := v.X+tx*runnerAccel*dt, v.Y+ty*runnerAccel*dt
					if s, limit := math.Hypot(vx, vy), max(math.Hypot(v.X, v.Y), runnerTop); s > limit {
						vx, vy = vx*limit/s, vy*limit/s
					}
					sets = append(sets, set{q.Entity(), ecs.Velocity{X: vx, Y: vy}})
				}
				for _, s := range sets {
					w.Physics.SetVelocity(s.e, s.v)
				}
				sets = sets[:0]
			}))
			w.Schedule.Add("physics", w.Physics)
		},
		Join: func(w *tandem.World, p tandem.Peer) error {
			pose := ecs.Transform{X: 740 + 60*float64(p.ID-1), Y: 1170}
			m := generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, tandem.Input[Stick]](w.ECS.Arche())
			body(w, m.NewWith(&pose, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p.ID}, &ecs.Interpolated{Prev: pose}, &tandem.Input[Stick]{}))
			return nil
		},
		Arrived: func(w *tandem.World, e arche.Entity) { body(w, e) },
	}
}

// A player squeezed against a wall by two others, wriggling, then running
// out along the wall, is never faster on her client than she can run. A
// velocity correction the wall clamps (its part into the wall taken out)
// was left to its own frame's record, as for a rider friction holds to a
// lift; but she slides along the wall, the difference along it lasts, and
// each next state found it again: her client's body reached 1,300–2,000
// units a second (her top speed 300), drawn up to 60 units a frame.
func TestAPlayerBreakingOutAlongAWallKeepsHerSpeed(t *testing.T) {
	for _, link := range []condition.Config{
		{Latency: 100 * time.Millisecond},
		{Latency: 100 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05},
		{Latency: 60 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.03},
	} {
		r := tandemtest.New(t, runners(), tandem.HostConfig{}, tandemtest.Config{})
		bob := r.JoinOver("bob", tandem.ClientConfig[Stick]{}, link, link)
		ann := r.JoinOver("ann", tandem.ClientConfig[Stick]{}, link, link)
		carl := r.JoinOver("carl", tandem.ClientConfig[Stick]{}, link, link)
		r.Step(60)
		fastest, worstMove := 0.0, 0.0
		var drawn ecs.Transform
		for n := range 360 {
			switch {
			case n < 120:
				bob.SetInput(Stick{X: 1, Y: 1})
				carl.SetInput(Stick{X: -1, Y: 1})
				ann.SetInput(Stick{X: int8(1 - 2*(n/20%2)), Y: 1}) // wriggling
			case n < 240:
				ann.SetInput(Stick{X: -1, Y: 1}) // out along the wall
				bob.SetInput(Stick{Y: -1})
			default:
				ann.SetInput(Stick{})
				bob.SetInput(Stick{})
				carl.SetInput(Stick{})
			}
			r.Step(1)
			ann.Do(func(w *tandem.World) {
				e, _ := tandem.Driven[Stick](w, w.Peer)
				v := w.Physics.BodyOf(e).Velocity()
				fastest = max(fastest, v.Length())
			})
			ann.View(r.Clock.Now(), func(v *tandem.View) {
				e, _ := tandem.Driven[Stick](v.World, v.World.Peer)
				p, _ := v.Pose(e)
				if n > 0 {
					worstMove = max(worstMove, math.Hypot(p.X-drawn.X, p.Y-drawn.Y))
				}
				drawn = p
			})
		}
		st := ann.NetStats().Predict
		t.Logf("%v each way, %.0f%% lost: her client's body up to %.0f units/s, drawn up to %.1f units a frame; %d velocity corrections (largest %.0f)", link.Latency, 100*link.Loss, fastest, worstMove, st.VelocityCorrections, st.MaxVelocity)
		if fastest > 1.5*runnerTop || worstMove > 1.5*runnerTop/60+10 {
			t.Errorf("%v each way, %.0f%% lost: breaking out along the wall, her client's body reached %.0f units/s (top speed %.0f) and was drawn up to %.1f units a frame", link.Latency, 100*link.Loss, fastest, runnerTop, worstMove)
		}
	}
}
