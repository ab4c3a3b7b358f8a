package interp

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// A unit of the local player marked ecs.HostMoved is drawn from the host's
// states; once the mark is off and the replicator tells the Interpolator of
// its next state (Applied, as it does once), it is drawn as the simulated
// entity it is again, not held at its last received state.
func TestAHostMovedUnitUnmarkedIsDrawnLocal(t *testing.T) {
	r := newRig(t, Config{})
	r.ip.SetLocal(1)
	e := r.spawn(1, true, ecs.Transform{})
	r.w.Arche().Add(e, r.w.IDs.HostMoved)
	r.play(link{latency: 40 * time.Millisecond}.sends(2, 120, 2), 120, 120*step, func(f ecs.Frame) {
		r.apply(e, f, ecs.Transform{X: float64(f)})
	}, func(time.Duration) {})
	if !r.ip.Remote(e) {
		t.Fatal("setup: the HostMoved unit should be drawn from states")
	}
	r.w.Arche().Remove(e, r.w.IDs.HostMoved)
	r.ip.Applied(e, 122) // the replicator's word on its next AuthState
	// Predicted from now on: the local simulation moves it.
	for i := range 60 {
		*r.transform(e) = ecs.Transform{X: 1000 + float64(i)}
		r.interpolated(e).Prev = *r.transform(e)
		r.interpolated(e).Snap = false
		r.clk.Advance(step)
		r.ip.Update(r.clk.Now())
	}
	p, ok := r.ip.Pose(e, 1)
	if x := r.transform(e).X; !ok || p.X != x {
		t.Fatalf("unmarked and predicted, the unit is at x = %v in the world, drawn at x = %v (ok %v, Remote %v)", x, p.X, ok, r.ip.Remote(e))
	}
}
