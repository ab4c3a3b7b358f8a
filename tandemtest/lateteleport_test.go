package tandemtest_test

import (
	"math"
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// A creep the host teleports far within a player's interest is drawn
// jumping at the teleport's frame and walking on from there, even when the
// host sends its first state after the teleport some frames later (the
// interest weighs a creep the jump took far from the player less). It was
// drawn standing where it was before the jump until the render frame
// reached that state: 2 frames for a jump of 1,000 units, 4 for 3,000. (A
// state later than the render delay reaches still finds frames drawn
// before it came: those show the creep where it was.)
func TestACreepTeleportedFarIsDrawnJumpingAtItsFrame(t *testing.T) {
	for _, jump := range []float64{1000, 3000} {
		var at ecs.Frame // the teleport's frame, once set
		hostX := map[ecs.Frame]float64{}
		g := movingWalkers(func(w *tandem.World) {
			m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.ECS.Arche())
			creep := m.NewWith(&ecs.Transform{X: 900, Y: 300}, &ecs.Velocity{X: -120}, &ecs.NetworkIdentity{})
			w.Schedule.Add("creep", ecs.SystemFunc(func(ew *ecs.World) {
				p := ecs.Mutate[ecs.Transform](ew, creep)
				p.X -= 2
				if ew.Frame() == at {
					p.X += jump
					ecs.ReportTeleport(ew, creep)
				}
				hostX[ew.Frame()] = p.X
			}))
		})
		link := condition.Config{Latency: 50 * time.Millisecond}
		r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		r.Step(60)
		r.Host.Do(func(w *tandem.World) { at = w.ECS.Frame() + 10 })
		off, worst, drawnAfter := 0, 0.0, 0
		for range 90 {
			r.Step(1)
			ann.View(r.Clock.Now(), func(v *tandem.View) {
				e, ok := v.World.ECS.EntityOf(1)
				if !ok {
					return
				}
				p, ok := v.Pose(e)
				rf := v.Interpolator().RenderFrame()
				h, known := hostX[ecs.Frame(math.Floor(rf))]
				next, knownNext := hostX[ecs.Frame(math.Floor(rf))+1]
				if !ok || !known || !knownNext || math.Abs(rf-float64(at)) < 1 {
					return // (the frame of the jump itself: drawn between)
				}
				want := h + (next-h)*(rf-math.Floor(rf))
				if rf > float64(at) {
					drawnAfter++
				}
				if d := math.Abs(p.X - want); d > 1 {
					off++
					worst = max(worst, d)
				}
			})
		}
		t.Logf("a jump of %.0f units: %d drawn frames more than a unit from the host's, worst %.1f", jump, off, worst)
		if drawnAfter < 30 {
			t.Fatalf("a jump of %.0f units: %d frames drawn past the teleport", jump, drawnAfter)
		}
		if off > 0 {
			t.Errorf("a creep teleported %.0f units was drawn away from the host's pose in %d frames, up to %.1f units", jump, off, worst)
		}
	}
}
