package tandemtest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// shotAt has a still crate (network id 1) and, from host frame fire on, a
// shot (id 2) that flies 10 units a frame from x = 0.
func shotAt(fire ecs.Frame) *tandem.Game[Walk] {
	return &tandem.Game[Walk]{
		Components: []tandem.Component{
			tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose),
			tandem.Replicate(replicate.VelocityCodec(), tandem.PredictVelocity),
		},
		Input: walkers.Input,
		Setup: func(w *tandem.World) {
			if w.Role == tandem.Joined {
				return
			}
			m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.ECS.Arche())
			m.NewWith(&ecs.Transform{X: 500}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
			w.Schedule.Add("fire", ecs.SystemFunc(func(ew *ecs.World) {
				switch f := ew.Frame(); {
				case f == fire:
					m.NewWith(&ecs.Transform{}, &ecs.Velocity{X: 600}, &ecs.NetworkIdentity{})
				case f > fire:
					if e, ok := ew.EntityOf(2); ok {
						ecs.Mutate[ecs.Transform](ew, e).X += 10
					}
				}
			}))
		},
	}
}

// A shot the host fires while a player watches is not drawn before the
// time remote entities are drawn at reaches its making, and then drawn
// flying from the muzzle (within the frame it flies), never still, whether
// it was made on a send tick or between two; a player who joins later draws the
// crate and the shot, which were there before it came, at once.
func TestShotIsDrawnFromTheMuzzle(t *testing.T) {
	// Made on a send tick, and between two (its first state a frame after
	// its making).
	for _, fire := range []ecs.Frame{200, 201} {
		t.Run(fmt.Sprintf("frame-%d", fire), func(t *testing.T) { shotIsDrawnFromTheMuzzle(t, fire) })
	}
}

func shotIsDrawnFromTheMuzzle(t *testing.T, fire ecs.Frame) {
	link := condition.Config{Latency: 40 * time.Millisecond}
	r := tandemtest.New(t, shotAt(fire), tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	var frame ecs.Frame
	r.Host.Do(func(w *tandem.World) { frame = w.ECS.Frame() })
	if frame >= fire {
		t.Fatalf("ann joined at host frame %d, after the shot", frame)
	}
	hidden, drawn, still := 0, 0, 0
	var first, last float64
	for range 400 {
		r.Step(1)
		ann.View(r.Clock.Now(), func(v *tandem.View) {
			e, ok := v.World.ECS.EntityOf(2)
			if !ok {
				return
			}
			rf := v.Interpolator().Stats().RenderFrame
			p, ok := v.Pose(e)
			switch {
			case !ok && rf >= float64(fire+1):
				t.Fatalf("at render frame %.2f, past the shot's making, ann does not draw it", rf)
			case !ok:
				hidden++
			case rf < float64(fire):
				t.Fatalf("at render frame %.2f ann draws the shot, made at %d, at x = %.1f", rf, fire, p.X)
			default:
				if drawn == 0 {
					first = p.X
				} else if p.X == last {
					still++
				}
				last = p.X
				drawn++
			}
		})
	}
	if hidden == 0 || drawn == 0 {
		t.Fatalf("ann had the shot hidden %d frames and drawn %d: want some of each", hidden, drawn)
	}
	if first >= 10 || still > 0 {
		t.Fatalf("ann first drew the shot at x = %.1f (the muzzle at 0, 10 units a frame), and still %d frames", first, still)
	}
	bob := r.Join("bob", tandem.ClientConfig[Walk]{})
	bob.View(r.Clock.Now(), func(v *tandem.View) {
		for id := ecs.NetID(1); id <= 2; id++ {
			e, ok := v.World.ECS.EntityOf(id)
			if !ok {
				t.Fatalf("bob, playing, does not hold entity %d", id)
			}
			if _, ok := v.Pose(e); !ok {
				t.Fatalf("bob, playing, does not draw entity %d, there before he came", id)
			}
		}
	})
}
