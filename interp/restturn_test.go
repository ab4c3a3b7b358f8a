package interp

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// A HostMoved unit of an idle army (more than 16 owned) gets a state in its
// turn only, every eighth AuthState (replicate.HostConfig.OwnRefresh),
// until the host moves it: two alike say it was at rest, and it is drawn
// still until the send before its first moving state, not blended from its
// turn's state (which drew it moving up to eight sends before the host
// did). The same with a state at every send.
func TestAUnitAtRestInItsTurnsIsDrawnStillUntilItMoves(t *testing.T) {
	for _, every := range []ecs.Frame{2, 16} { // every send; every 8th send
		r := newRig(t, Config{})
		r.ip.SetLocal(1)
		unit := r.spawn(1, true, ecs.Transform{})
		r.w.Arche().Add(unit, r.w.IDs.HostMoved)
		other := r.spawn(2, true, ecs.Transform{})
		const start = 193 // the host moves the unit from this frame on, 1 unit a frame
		truth := func(f float64) float64 { return max(0, f-(start-1)) }
		worst, at := 0.0, 0.0
		r.play(link{latency: 30 * time.Millisecond}.sends(2, 300, 2), 120, 300*step, func(f ecs.Frame) {
			r.apply(other, f, ecs.Transform{Y: float64(f)}) // another's entity: a state every send
			switch {
			case f >= start:
				r.apply(unit, f, ecs.Transform{X: truth(float64(f))})
			case f%every == 2%every: // idle: its turn
				r.apply(unit, f, ecs.Transform{})
			}
		}, func(time.Duration) {
			rf := r.ip.RenderFrame()
			if rf < 150 || rf > start-1 {
				return
			}
			if d := r.pose(unit).X - truth(rf); d > worst {
				worst, at = d, rf
			}
		})
		t.Logf("idle states every %d frames: the drawn unit leads the host's by %.2f units at most before it moved (render frame %.1f)", every, worst, at)
		if worst > 0.01 {
			t.Errorf("idle states every %d frames: the unit is drawn moving (%.2f units) at render frame %.1f, before the host moved it at %d", every, worst, at, start)
		}
	}
}
