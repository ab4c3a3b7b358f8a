package interp

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// An entity that stopped (its last two states differ, then the host sends
// newer frames without it) and is removed much later is drawn where it
// stood until the render frame reaches the removal. (Extrapolated from its
// last two states across the whole gap, it was drawn 2,000 units away.)
func TestAStillEntityRemovedIsDrawnWhereItStood(t *testing.T) {
	r := newRig(t, Config{})
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	creep := mover{vx: 600} // 10 units a host frame
	const stop, gone = ecs.Frame(100), ecs.Frame(300)
	rest := creep.at(stop)
	e := r.spawn(ecs.HostPeer, true, creep.at(2))
	l := link{latency: 40 * time.Millisecond}
	removalHeard := false
	worstBefore, worstKept := 0.0, 0.0
	keptDrawn := 0
	r.play(l.sends(2, 400, 2), 120, 400*step, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		if f <= stop {
			r.apply(e, f, creep.at(f))
		}
		if f == gone {
			removalHeard = true // the replicator's keepDrawn asks Drawing now
		}
	}, func(time.Duration) {
		rf := r.ip.Stats().RenderFrame
		if rf < float64(stop)+10 {
			return
		}
		if removalHeard && !r.ip.Drawing(e, gone) { // Depart asks again each step
			return
		}
		p, ok := r.ip.Pose(e, 0)
		if !ok {
			return
		}
		d := dist(p, rest)
		if removalHeard {
			worstKept = max(worstKept, d)
			keptDrawn++
		} else {
			worstBefore = max(worstBefore, d)
		}
	})
	t.Logf("stood at x=%.0f; before the removal drawn at most %.1f off; kept after it (%d drawn frames) drawn up to %.1f off", rest.X, worstBefore, keptDrawn, worstKept)
	if keptDrawn == 0 {
		t.Fatal("never drawn while kept")
	}
	if worstKept > 1 {
		t.Fatalf("a creep that stood still from frame %d to its removal at %d is drawn %.0f units from where it stood while kept to its removal (before the removal: %.1f)", stop, gone, worstKept, worstBefore)
	}
}
