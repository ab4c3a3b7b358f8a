package tandemtest_test

import (
	"math"
	"testing"
	"time"

	"github.com/jakecoffman/cp/v2"
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

// wallGame is the cars game with a row of 300 static barriers the host
// places across the car's way (physics.Material.Static, networked),
// touching one another, that clients attach alike when they arrive.
func wallGame() *tandem.Game[Pedal] {
	barrier := physics.Material{Static: true, Friction: 1}
	const wallX = 1200
	return &tandem.Game[Pedal]{
		Physics:    cars.Physics,
		Components: cars.Components,
		Input:      pedalCodec,
		Setup: func(w *tandem.World) {
			cars.Setup(w)
			if w.Role == tandem.Joined || w.Restoring {
				return
			}
			m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.ECS.Arche())
			for i := range 300 {
				p := ecs.Transform{X: wallX, Y: 1000 + float64(i-150)*19.5}
				w.Physics.AttachBox(m.NewWith(&p, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: ecs.HostPeer}), 20, 20, 0, barrier)
			}
		},
		Join: cars.Join,
		Arrived: func(w *tandem.World, e arche.Entity) {
			if id, _ := w.ECS.Identity(e); id.Owner == ecs.HostPeer {
				w.Physics.AttachBox(e, 20, 20, 0, barrier)
				return
			}
			w.Physics.AttachBox(e, 40, 20, 2, carBody)
		},
	}
}

// A car driven into a wall of 300 static barriers the host placed stops at
// the wall on the host and on its predicting client alike, and the
// barriers cost neither side a step: no body of theirs is awake.
func TestStaticBarriersStopACarAndCostNoStep(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		link := condition.Config{Latency: 50 * time.Millisecond}
		r := tandemtest.New(t, wallGame(), tandem.HostConfig{}, tandemtest.Config{Bubble: true, Link: mem.Config{ToHost: link, ToClient: link}})
		ann := r.JoinOver("ann", tandem.ClientConfig[Pedal]{}, link, link)
		ann.SetInput(Pedal{Throttle: 1})
		r.Step(60 * 6)
		carX := func(w *tandem.World) (x float64, awake int, static int) {
			q := generic.NewFilter2[ecs.NetworkIdentity, physics.Body]().Query(w.ECS.Arche())
			for q.Next() {
				id, b := q.Get()
				if id.Owner == ecs.HostPeer {
					if b.CP.GetType() == cp.BODY_STATIC {
						static++
					}
					continue
				}
				x = b.CP.Position().X
			}
			return x, w.Physics.Awake(), static
		}
		var hx, cx float64
		var hAwake, cAwake, hStatic, cStatic int
		r.Host.Do(func(w *tandem.World) { hx, hAwake, hStatic = carX(w) })
		ann.Do(func(w *tandem.World) { cx, cAwake, cStatic = carX(w) })
		t.Logf("car at x %.2f on the host, %.2f on the client; bodies awake %d and %d", hx, cx, hAwake, cAwake)
		if hStatic != 300 || cStatic != 300 {
			t.Fatalf("static barriers: %d on the host, %d on the client, want 300 each", hStatic, cStatic)
		}
		if want := 1200.0 - 10 - 20; math.Abs(hx-want) > 2 || math.Abs(cx-hx) > 2 {
			t.Fatalf("the car pressed against the wall is at x %.2f on the host and %.2f on the client, want about %.0f", hx, cx, want)
		}
		if hAwake > 1 || cAwake > 1 {
			t.Fatalf("bodies stepped: %d on the host, %d on the client; want the car's alone", hAwake, cAwake)
		}
	})
}
