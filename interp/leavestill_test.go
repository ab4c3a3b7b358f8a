package interp

import (
	"fmt"
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// An entity that stopped (its last two states differ, then the host sends
// newer frames without it) and is removed later, a few frames or long
// after, is drawn where it stood until the render frame reaches the
// removal, without a leap when its removal is heard. (Extrapolated from its
// last two states across the gap, it was drawn 2,000 units away, or leapt
// 80 units in one drawn frame.)
func TestAStillEntityRemovedIsDrawnWhereItStood(t *testing.T) {
	for _, gone := range []ecs.Frame{112, 300} {
		t.Run(fmt.Sprintf("removed at %d", gone), func(t *testing.T) {
			r := newRig(t, Config{})
			anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
			creep := mover{vx: 600} // 10 units a host frame
			const stop = ecs.Frame(100)
			rest := creep.at(stop)
			e := r.spawn(ecs.HostPeer, true, creep.at(2))
			l := link{latency: 40 * time.Millisecond}
			removalHeard := false
			worstKept, worstStep := 0.0, 0.0
			keptDrawn := 0
			var last ecs.Transform
			haveLast := false
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
				if rf < float64(stop)-10 {
					return
				}
				if removalHeard && !r.ip.Drawing(e, gone) { // Depart asks again each step
					return
				}
				p, ok := r.ip.Pose(e, 0)
				if !ok {
					haveLast = false
					return
				}
				if haveLast && rf > float64(stop) {
					worstStep = max(worstStep, dist(p, last))
				}
				last, haveLast = p, true
				if removalHeard {
					worstKept = max(worstKept, dist(p, rest))
					keptDrawn++
				}
			})
			if keptDrawn == 0 {
				t.Fatal("never drawn while kept")
			}
			if worstKept > 1 || worstStep > 15 {
				t.Fatalf("a creep that stood still from frame %d to its removal at %d is drawn up to %.0f units from where it stood while kept, moving %.1f units in one drawn frame past its stop (a drawn frame is 5 units of its motion)", stop, gone, worstKept, worstStep)
			}
		})
	}
}
