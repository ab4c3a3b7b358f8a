package tandemtest_test

import (
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

// A player at rest whom the host knocks away on ground friction is
// corrected on her own client to the speed the host's friction has left her
// by then, not the speed of the knock: friction slows the host's moving
// body and not her resting one, so the difference of the knock's frame,
// added as it was, left her faster than the host's, and each state after
// corrected her again (here 10 velocity corrections and 28 in all over a
// 120 ms link; a brawler trial's player was set to 680 units a second where
// the host's had slowed to 500, and ran 29 units past it). Her client now
// carries the host's velocity and its own of that frame to the present as
// the friction does (predict.VelocityCarrier): 1 velocity correction, 10 in
// all.
func TestAKnockFromRestIsCorrectedToTheSpeedFrictionLeaves(t *testing.T) {
	floor := physics.Material{Mass: 4, Velocity: physics.GroundFriction(600)}
	coast := func(b *cp.Body, _ Pedal, _ float64) ecs.Velocity {
		v := b.Velocity()
		return ecs.Velocity{X: v.X, Y: v.Y}
	}
	g := bodyGame(ecs.Transform{X: 400, Y: 600}, coast, func(w *tandem.World, e arche.Entity) { w.Physics.AttachCircle(e, 16, floor) })
	var knockAt ecs.Frame
	hostX := map[ecs.Frame]float64{}
	setup := g.Setup
	g.Setup = func(w *tandem.World) {
		setup(w)
		if w.Role != tandem.Hosting {
			return
		}
		w.Schedule.Add("knock", ecs.SystemFunc(func(ew *ecs.World) {
			if owned := ew.Owned(1); len(owned) > 0 && ew.Frame() == knockAt {
				w.Physics.SetVelocity(owned[0], ecs.Velocity{X: 700})
			}
		}))
		w.Schedule.AddTo(ecs.StageOutput, "log", ecs.SystemFunc(func(ew *ecs.World) {
			if owned := ew.Owned(1); len(owned) > 0 {
				hostX[ew.Frame()] = w.Physics.BodyOf(owned[0]).Position().X
			}
		}))
	}
	link := condition.Config{Latency: 120 * time.Millisecond}
	r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Pedal]{})
	r.Step(60)
	r.Host.Do(func(w *tandem.World) { knockAt = w.ECS.Frame() + 5 })
	annX := map[ecs.Frame]float64{}
	for range 150 {
		r.Step(1)
		ann.Do(func(w *tandem.World) {
			if owned := w.ECS.Owned(ann.Peer()); len(owned) > 0 {
				annX[w.ECS.Frame()] = w.Physics.BodyOf(owned[0]).Position().X
			}
		})
	}
	rest := hostX[knockAt+100]
	st := ann.NetStats().Predict
	t.Logf("knocked at 700 units/s from x 400: the host's car stopped at %.1f; %d velocity and %d corrections in all", rest, st.VelocityCorrections, st.Corrections)
	if math.Abs(annX[knockAt+120]-rest) > 1 {
		t.Fatalf("her car settled at %.1f, the host's at %.1f", annX[knockAt+120], rest)
	}
	if st.VelocityCorrections > 2 || st.Corrections > 15 {
		t.Errorf("a knock from rest took %d velocity corrections, %d in all, to settle", st.VelocityCorrections, st.Corrections)
	}
}
