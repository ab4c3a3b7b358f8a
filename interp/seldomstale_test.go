package interp

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// A unit whose states once came further apart than it is carried (here
// 120 frames, held back once) and then every send again, which walks into
// a wall seconds later (its Velocity still says it moves, its Transform no
// longer changes, so the host sends nothing of it; or its stop state is
// lost), is carried on by its velocity for twice MaxDeferral (drift), as
// one without that old gap is: not for the old gap, some 90 units further
// through the wall.
func TestAStoppedUnitOnceSentSeldomIsNotCarriedFar(t *testing.T) {
	const wall = ecs.Frame(600)
	run := func(gap bool) (maxPast float64) {
		r := newRig(t, Config{})
		m := mover{x0: -200, vx: 60}
		e := r.spawnMoving(m.at(0), ecs.Velocity{X: m.vx})
		final := m.at(wall)
		l := link{latency: 60 * time.Millisecond}
		r.play(l.sends(2, wall+300, 2), 120, time.Duration(wall+360)*step, func(f ecs.Frame) {
			switch {
			case f > wall, gap && f > 100 && f < 220:
				r.ip.Heard(f) // other entities' states
			default:
				r.apply(e, f, m.at(f))
			}
		}, func(time.Duration) {
			maxPast = max(maxPast, r.pose(e).X-final.X)
		})
		return maxPast
	}
	plain, withGap := run(false), run(true)
	// drift = 2*MaxDeferral = 32 frames at 60 u/s: 32 units, and a send.
	if limit := 34.0; plain > limit || withGap > limit {
		t.Fatalf("drawn past the wall: %.1f units without an earlier gap, %.1f with one 400 frames before (limit %.0f: twice MaxDeferral)", plain, withGap, limit)
	}
}
