package tandemtest_test

import (
	"math"
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/interp"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// movingWalkers is walkers with ecs.Velocity replicated too, and host, run
// on the host's world after walkers' Setup, making the host's own entities
// and systems.
func movingWalkers(host func(w *tandem.World)) *tandem.Game[Walk] {
	g := *walkers
	g.Components = []tandem.Component{
		tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose),
		tandem.Replicate(replicate.VelocityCodec(), tandem.PredictVelocity),
	}
	g.Setup = func(w *tandem.World) {
		walkers.Setup(w)
		if w.Role != tandem.Joined {
			host(w)
		}
	}
	return &g
}

// creepFrom is walkers with a creep (network id 1) that walks towards the
// players at 0 from x0, 5 units a frame, its Velocity replicated.
func creepFrom(x0 float64) *tandem.Game[Walk] {
	return movingWalkers(func(w *tandem.World) {
		m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.ECS.Arche())
		creep := m.NewWith(&ecs.Transform{X: x0}, &ecs.Velocity{X: -300}, &ecs.NetworkIdentity{})
		w.Schedule.Add("creep", ecs.SystemFunc(func(ew *ecs.World) {
			ecs.Mutate[ecs.Transform](ew, creep).X -= 5
		}))
	})
}

// A creep that walks into a player's interest is drawn walking in, where
// the host had it at the drawn time, from the first frame the player draws
// it: moved back from its first state by its replicated Velocity. (It stood
// at its first state for the render delay, which a trial's creeps did for
// 5 to 14 frames; with Interp.IgnoreVelocity it still does.)
func TestACreepWalksIntoView(t *testing.T) {
	const x0 = 4800 // outside the default interest (4,096 units, cells of 256)
	link := condition.Config{Latency: 40 * time.Millisecond}
	for _, ignore := range []bool{false, true} {
		r := tandemtest.New(t, creepFrom(x0), tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{Interp: interp.Config{IgnoreVelocity: ignore}})
		drawn, still := 0, 0
		worst, last := 0.0, 0.0
		for range 240 {
			r.Step(1)
			ann.View(r.Clock.Now(), func(v *tandem.View) {
				e, ok := v.World.ECS.EntityOf(1)
				if !ok {
					return
				}
				p, ok := v.Pose(e)
				if !ok {
					t.Fatal("ann holds the creep but does not draw it")
				}
				rf := v.Interpolator().Stats().RenderFrame
				worst = max(worst, math.Abs(p.X-(x0-5*rf)))
				if drawn > 0 && p.X == last {
					still++
				}
				last = p.X
				drawn++
			})
		}
		switch {
		case drawn < 60:
			t.Fatalf("ann drew the creep %d times, want it to have come in and walked a second", drawn)
		case !ignore && (still != 0 || worst > 0.5):
			t.Fatalf("ann drew the creep still %d frames after it came in, up to %.2f units from where the host had it", still, worst)
		case ignore && still == 0:
			t.Fatalf("with IgnoreVelocity ann drew the creep still for no frame, want the render delay's")
		}
		t.Logf("IgnoreVelocity %v: drawn still %d frames, up to %.2f units off", ignore, still, worst)
	}
}
