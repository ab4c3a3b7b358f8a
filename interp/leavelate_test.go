package interp

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// A state of a kept entity that arrives after the render frame passed it
// (a reordered datagram), older than the removal, keeps the entity, moving
// in a straight line, on its way: the offset it leaves is measured from the
// pose the entity was drawn at, moving on to its removal. (Measured from
// its resting pose, it threw the shot 41 units off.)
func TestALateStateKeepsAKeptEntityOnItsWay(t *testing.T) {
	r := newRig(t, Config{})
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	shot := mover{vx: 600} // 10 units a host frame
	e := r.spawn(ecs.HostPeer, true, shot.at(2))
	const last, late, gone = ecs.Frame(290), ecs.Frame(292), ecs.Frame(294)
	l := link{latency: 40 * time.Millisecond}
	heardGone, lateIn := false, false
	worst, worstBefore, n := 0.0, 0.0, 0
	r.play(l.sends(2, 400, 2), 120, 400*step, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		if f <= last {
			r.apply(e, f, shot.at(f))
		}
		if f == gone {
			heardGone = true
			r.ip.Drawing(e, gone)
		}
	}, func(time.Duration) {
		rf := r.ip.Stats().RenderFrame
		if !heardGone || rf >= float64(gone) {
			return
		}
		want := shot.at(0)
		want.X += shot.vx * rf * step.Seconds()
		p, ok := r.ip.Pose(e, 0)
		if ok && !lateIn {
			worstBefore = max(worstBefore, dist(p, want))
		}
		if ok && lateIn {
			worst = max(worst, dist(p, want))
			n++
		}
		if !lateIn && rf > float64(late)+0.5 {
			r.apply(e, late, shot.at(late)) // the late datagram
			lateIn = true
		}
	})
	t.Logf("before the late state: at most %.2f off its way; after it, %d drawn frames, up to %.2f off", worstBefore, n, worst)
	if !lateIn || n == 0 {
		t.Fatal("the late state never came in while kept")
	}
	if worst > 0.5 {
		t.Fatalf("a shot flying straight, kept to its removal, is drawn %.1f units off its way after a late state of its flight", worst)
	}
}
