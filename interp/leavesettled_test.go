package interp

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// A kept entity that cannot be extrapolated (one state: a pickup that
// never moved) is not drawn past its removal: it stays sampled until the
// render frame reaches it. (It rested, left the sampled entities, and was
// drawn past its removal until the client removed it.)
func TestAKeptEntityIsNotDrawnPastItsRemoval(t *testing.T) {
	r := newRig(t, Config{})
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	pickup := r.spawn(ecs.HostPeer, true, ecs.Transform{X: 7})
	const gone = ecs.Frame(300)
	l := link{latency: 40 * time.Millisecond}
	heard := false
	past, leavingSeen := 0, 0
	r.play(l.sends(2, 400, 2), 120, 400*step, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		if f == 10 {
			r.apply(pickup, f, ecs.Transform{X: 7})
		}
		if f == gone {
			heard = true
			r.ip.Drawing(pickup, gone) // keepDrawn
		}
	}, func(time.Duration) {
		if !heard {
			return
		}
		if r.ip.Stats().Leaving > 0 {
			leavingSeen++
		}
		rf := r.ip.Stats().RenderFrame
		if _, ok := r.ip.Pose(pickup, 0); ok && rf >= float64(gone) {
			past++
		}
	})
	t.Logf("drawn frames past the removal with Pose true: %d; frames Stats.Leaving > 0: %d", past, leavingSeen)
	if past > 0 {
		t.Fatalf("a still entity kept to its removal at %d is drawn (Pose true) in %d drawn frames past it", gone, past)
	}
}
