package tandemtest_test

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/tandemtest"
)

// wallShots is walkers with a shot the host fires from (0, y) at host
// frame fire, flying along x at 900 units/s: in the frame it reaches the
// wall's face at x = 400 the host puts it on the face and zeroes its
// Velocity (it stopped), and a send interval later removes it, as the
// README advises.
func wallShots(fire ecs.Frame, y float64) *tandem.Game[Walk] {
	return movingWalkers(func(w *tandem.World) {
		m := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated](w.ECS.Arche())
		var shot arche.Entity
		var stopped ecs.Frame
		w.Schedule.Add("shot", ecs.SystemFunc(func(ew *ecs.World) {
			switch f := ew.Frame(); {
			case f == fire:
				shot = m.NewWith(&ecs.Transform{Y: y}, &ecs.Velocity{X: 900}, &ecs.NetworkIdentity{}, &ecs.Interpolated{Prev: ecs.Transform{Y: y}})
			case f > fire && stopped == 0:
				p := ecs.Mutate[ecs.Transform](ew, shot)
				if p.X += 15; p.X >= 400 {
					p.X = 400
					*ecs.Mutate[ecs.Velocity](ew, shot) = ecs.Velocity{}
					stopped = f
				}
			case stopped != 0 && f == stopped+2 && ew.Alive(shot):
				ew.Arche().RemoveEntity(shot)
			}
		}))
	})
}

// A shot the host stops on a wall (its Velocity zeroed, its pose on the
// wall's face) and removes a send interval later is drawn stopping on the
// face by a player far from it too, never carried on into the wall: its
// stop goes at the top, as a new entity's first changes do. (Weighed by
// the far player's interest, the stop waited, the removal overtook it, and
// half the shots were drawn carried on at 900 units/s up to 22 units into
// the wall, for 2 frames.)
func TestAStoppedShotIsNotDrawnPastTheWallFarAway(t *testing.T) {
	for _, far := range []float64{500, 2500} {
		past, worst := 0, 0.0
		for fire := ecs.Frame(200); fire < 212; fire++ {
			r := tandemtest.New(t, wallShots(fire, far), tandem.HostConfig{}, tandemtest.Config{})
			ann := r.Join("ann", tandem.ClientConfig[Walk]{})
			drawn := 0
			for range 300 {
				r.Step(1)
				ann.View(r.Clock.Now(), func(v *tandem.View) {
					e, ok := v.World.ECS.EntityOf(2) // 1 is ann's figure
					if !ok {
						return
					}
					if p, ok := v.Pose(e); ok {
						drawn++
						if p.X > 400.5 {
							past++
							worst = max(worst, p.X-400)
						}
					}
				})
			}
			if drawn == 0 {
				t.Fatalf("the shot fired at %d was never drawn", fire)
			}
		}
		t.Logf("a player %.0f units away drew 12 shots past the wall in %d frames, up to %.1f units", far, past, worst)
		if past > 0 {
			t.Errorf("a player %.0f units away drew the shots stopped on the wall carried past it in %d frames, up to %.1f units into it", far, past, worst)
		}
	}
}
