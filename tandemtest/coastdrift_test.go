package tandemtest_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/physics"
	"github.com/tandem-go/tandem/tandemtest"
)

// A player's body the host kicks once, to a velocity off the wire's grid
// (33.33 units/s, where the wire carries eighths), then coasting in open
// space: her client takes the host's velocity as the wire rounds it, and
// its coasting pose drifts off the host's by that rounding, 1/24 unit a
// second. Corrected by the pose alone, it drifted again at once, and was
// corrected every third of a second for as long as it coasted (a space
// trial's ship: 7 corrections in 5 s, 111 in 35 s after a bump at speed).
// A pose's correction now also moves the velocity by the drift it found
// since the last, within what the host's rounded velocity allows, and
// the drift dies out; a drift the rounding does not explain moves no
// velocity.
func TestACoastingBodyKickedOffTheGridStopsDrifting(t *testing.T) {
	coast := func(b *cp.Body, _ Pedal, _ float64) ecs.Velocity {
		v := b.Velocity()
		return ecs.Velocity{X: v.X, Y: v.Y}
	}
	for _, replay := range []bool{false, true} {
		t.Run(fmt.Sprintf("replay-%v", replay), func(t *testing.T) {
			g := bodyGame(ecs.Transform{X: 400, Y: 600}, coast, func(w *tandem.World, e arche.Entity) {
				w.Physics.AttachCircle(e, 20, physics.Material{Mass: 4})
			})
			g.Physics = &physics.Config{Gravity: cp.Vector{}}
			link := condition.Config{Latency: 50 * time.Millisecond}
			r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
			cfg := tandem.ClientConfig[Pedal]{}
			if replay {
				cfg.Replay = driveWith(coast)
			}
			ann := r.Join("ann", cfg)
			r.Step(60)
			r.Host.Do(func(w *tandem.World) {
				w.Physics.SetVelocity(w.ECS.Owned(ann.Peer())[0], ecs.Velocity{X: 100.0 / 3, Y: 100.0 / 7})
			})
			r.Step(60) // the kick's own correction
			kicked := ann.NetStats().Predict
			r.Step(600) // ten seconds of coasting
			end := ann.NetStats().Predict
			t.Logf("in the 10 s after the kick's correction: %d pose and %d velocity corrections (largest pose %.4f), %d drift trims",
				end.PoseCorrections-kicked.PoseCorrections, end.VelocityCorrections-kicked.VelocityCorrections, end.MaxPose, end.DriftTrims)
			if kicked.Corrections == 0 {
				t.Fatal("the kick was never corrected: the test's kick did not reach her")
			}
			if n := end.Corrections - kicked.Corrections; n > 4 {
				t.Errorf("the coasting body was corrected %d times in the 10 s after the kick's correction", n)
			}
			// A pose the host moves by 3 units, by a frame's burst of
			// speed (a shove its owner could not predict), is corrected,
			// and the coasting after it settles as well, at the host's
			// velocity within its rounding.
			burst := func(dx float64) {
				r.Host.Do(func(w *tandem.World) {
					e := w.ECS.Owned(ann.Peer())[0]
					v := w.Physics.BodyOf(e).Velocity()
					w.Physics.SetVelocity(e, ecs.Velocity{X: v.X + dx, Y: v.Y})
				})
			}
			burst(180)
			r.Step(1)
			burst(-180)
			r.Step(60)
			shoved := ann.NetStats().Predict
			r.Step(600)
			settled := ann.NetStats().Predict
			var hv, cv ecs.Velocity
			r.Host.Do(func(w *tandem.World) { hv = *ecs.Get[ecs.Velocity](w.ECS, w.ECS.Owned(ann.Peer())[0]) })
			ann.Do(func(w *tandem.World) { cv = *ecs.Get[ecs.Velocity](w.ECS, w.ECS.Owned(ann.Peer())[0]) })
			t.Logf("after a shove of 3 units: %d pose corrections; in the 10 s after, %d; velocity %.4f, %.4f on the host, %.4f, %.4f on her client",
				shoved.PoseCorrections-end.PoseCorrections, settled.Corrections-shoved.Corrections, hv.X, hv.Y, cv.X, cv.Y)
			if shoved.PoseCorrections == end.PoseCorrections {
				t.Error("the shove was never corrected: the test's shove did not reach her")
			}
			if n := settled.Corrections - shoved.Corrections; n > 4 || math.Abs(hv.X-cv.X) > 1.0/16 || math.Abs(hv.Y-cv.Y) > 1.0/16 {
				t.Errorf("after the shove: %d corrections in 10 s of coasting, her velocity %v against the host's %v", n, cv, hv)
			}
		})
	}
}
