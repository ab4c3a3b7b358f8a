package interp

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// A slow walker, whose small changes the host sends every few sends (here
// every sixth frame, beside other entities' states every send), that is
// heard to stop (its newest state says its Velocity is zero) is drawn
// stopping where it stopped: not carried on past its stop along its last two
// states until the rest rule catches it, then slid back.
func TestASlowWalkerHeardToStopIsNotDrawnPastItsStop(t *testing.T) {
	for _, spin := range []float64{0, 1} {
		r := newRig(t, Config{})
		m := mover{vx: -40, vy: -40, w: spin}
		v := ecs.Velocity{X: m.vx, Y: m.vy, Angular: m.w}
		e := r.spawnMoving(m.at(0), v)
		const stop = ecs.Frame(360)
		final := m.at(stop)
		l := link{latency: 75 * time.Millisecond}
		var maxPast float64
		r.play(l.sends(2, stop+60, 2), 144, time.Duration(stop+120)*step, func(f ecs.Frame) {
			switch {
			case f > stop || f%6 != 0:
				r.ip.Heard(f) // the states of the others
			default:
				if f == stop {
					v = ecs.Velocity{}
				}
				*(*ecs.Velocity)(r.w.Arche().Get(e, r.w.IDs.Velocity)) = v
				r.apply(e, f, m.at(f))
			}
		}, func(time.Duration) {
			p := r.pose(e)
			// Past the stop along the walk (-1, -1).
			if past := ((final.X - p.X) + (final.Y - p.Y)) / 1.4142135623730951; past > maxPast {
				maxPast = past
			}
		})
		if p := r.pose(e); dist(p, final) > 1e-3 {
			t.Errorf("spin %v: drawn at %v at the end, %.3f from where it stopped", spin, p, dist(p, final))
		}
		if maxPast > 1e-6 {
			t.Errorf("spin %v: drawn %.2f units past where it stopped", spin, maxPast)
		}
	}
}

// A shot flying at constant speed far from what the client owns, which the
// host sends only every twelfth send (its change is what its Velocity
// predicts, and its interest weighs it; other entities' states come every
// send), is drawn flying on by its velocity between its states: never
// moved back, never stopped.
func TestAFarShotSentRarelyIsNeverDrawnGoingBack(t *testing.T) {
	r := newRig(t, Config{})
	m := mover{x0: -500, vx: 600, vy: 0}
	e := r.spawnMoving(m.at(0), ecs.Velocity{X: m.vx})
	l := link{latency: 60 * time.Millisecond}
	var prev ecs.Transform
	var back, still int
	var last ecs.Frame
	drawn := 0
	r.play(l.sends(2, 600, 2), 120, 620*step, func(f ecs.Frame) {
		if f%24 == 0 {
			r.apply(e, f, m.at(f))
			last = f
		} else {
			r.ip.Heard(f)
		}
	}, func(now time.Duration) {
		p := r.pose(e)
		if drawn > 0 && now > time.Second && last < 600 {
			switch d := p.X - prev.X; {
			case d < 0:
				back++
			case d < 1e-9:
				still++
			}
		}
		prev = p
		drawn++
	})
	if back != 0 || still != 0 {
		t.Fatalf("of %d frames drawn, %d moved the shot back and %d drew it still", drawn, back, still)
	}
}
