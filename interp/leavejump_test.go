package interp

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// An entity that stopped a few frames before its removal (within
// MaxDeferral, past its state spacing) is drawn where it stood: it does not
// leap from rest along its last two states when its removal is heard. (It
// jumped 80 units in one drawn frame, and was drawn up to 120 from where it
// stood.)
func TestAnEntityThatStoppedDoesNotLeapAtItsRemoval(t *testing.T) {
	r := newRig(t, Config{})
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	creep := mover{vx: 600} // 10 units a host frame
	const stop, gone = ecs.Frame(100), ecs.Frame(112)
	rest := creep.at(stop)
	e := r.spawn(ecs.HostPeer, true, creep.at(2))
	l := link{latency: 40 * time.Millisecond}
	removalHeard := false
	var last ecs.Transform
	haveLast := false
	worstStep, worstOff := 0.0, 0.0
	restingBefore := false
	r.play(l.sends(2, 400, 2), 120, 400*step, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		if f <= stop {
			r.apply(e, f, creep.at(f))
		}
		if f == gone {
			removalHeard = true
			if p, ok := r.ip.Pose(e, 0); ok && dist(p, rest) < 0.01 {
				restingBefore = true
			}
			r.ip.Drawing(e, gone)
		}
	}, func(time.Duration) {
		rf := r.ip.Stats().RenderFrame
		if rf < float64(stop)-10 {
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
		if removalHeard {
			worstOff = max(worstOff, dist(p, rest))
		}
		last, haveLast = p, true
	})
	t.Logf("resting where it stood when the removal was heard: %v; largest move between two drawn frames past its stop: %.1f units (a drawn frame is ~%.1f units of its motion); kept, drawn up to %.1f units from where it stood", restingBefore, worstStep, 600*step.Seconds(), worstOff)
	if worstStep > 15 || worstOff > 1 {
		t.Fatalf("a creep that stood still for %d frames before its removal jumped %.1f units in one drawn frame and was drawn %.1f units from where it stood", gone-stop, worstStep, worstOff)
	}
}
