package interp

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// With nothing heard once an entity stops (no newer frame: its states late,
// a link gone dark), it is extrapolated past its last state for at most
// MaxExtrapolation and held where that took it, for nothing says it
// stopped; the first frame heard without it (the empty states of a host
// whose world fell still) slides it back to where it stopped, never
// jumping. (It slid back to its last state at once: an entity that walked
// on through a dark link was drawn going back, then thrown forward.)
func TestStoppedEntityHeardOfAfterSilenceSlidesBack(t *testing.T) {
	r, m, e, l, final := stopping(t)
	overshoot := m.speed() * r.ip.Config().MaxExtrapolation.Seconds()
	const hz = 144
	heard := ecs.Frame(stopAt + 5*60) // 5 s later
	arrivals := append(l.sends(2, stopAt, 2), arrival{at: time.Duration(heard)*step + l.latency, f: heard})
	var prev ecs.Transform
	var maxStep, maxPast, held float64
	r.play(arrivals, hz, 12*time.Second, func(f ecs.Frame) {
		if f <= stopAt {
			r.apply(e, f, m.at(f))
		} else {
			r.ip.Heard(f)
		}
	}, func(now time.Duration) {
		p := r.pose(e)
		if now > time.Second {
			maxStep = max(maxStep, dist(p, prev))
			if p.X > final.X {
				maxPast = max(maxPast, dist(p, final))
			}
		}
		if now > 7*time.Second && now < 8*time.Second {
			held = max(held, dist(p, final)) // in the silence
		}
		prev = p
	})
	if p := r.pose(e); dist(p, final) > 1e-3 {
		t.Errorf("after a frame was heard without it, drawn at %v, %.1f from where it stopped %v", p, dist(p, final), final)
	}
	if maxPast > overshoot*1.01 || held < overshoot*0.99 {
		t.Errorf("drawn up to %.1f past the stop (MaxExtrapolation allows %.1f), %.1f past it in the silence", maxPast, overshoot, held)
	}
	// Each frame it moves at most its speed, or what the offset of the slide
	// back decays by.
	halfLife := r.ip.Config().HalfLife.Seconds()
	if limit := max(m.speed()/hz*1.12, overshoot*(1-math.Exp2(-1.0/hz/halfLife))*1.01); maxStep > limit {
		t.Errorf("moved %.2f in one frame, limit %.2f: the slide back was not smooth", maxStep, limit)
	}
}

// Frames heard past its last state without it (Heard: the empty states of
// a host whose world fell still) say the entity rests: it is drawn stopping
// where it stopped, never past it.
func TestStoppedEntityHeardOfIsNotDrawnPastItsStop(t *testing.T) {
	r, m, e, l, final := stopping(t)
	// States each send (two frames) until the stop, then the frames of the
	// empty states, 1, 2, 4 and 8 sends after.
	arrivals := l.sends(2, stopAt, 2)
	for _, k := range []ecs.Frame{1, 2, 4, 8} {
		arrivals = append(arrivals, arrival{at: time.Duration(stopAt+2*k)*step + l.latency, f: stopAt + 2*k})
	}
	var maxPast float64
	r.play(arrivals, 144, 8*time.Second, func(f ecs.Frame) {
		if f <= stopAt {
			r.apply(e, f, m.at(f))
		} else {
			r.ip.Heard(f)
		}
	}, func(now time.Duration) {
		if p := r.pose(e); p.X > final.X {
			maxPast = max(maxPast, dist(p, final))
		}
	})
	if p := r.pose(e); dist(p, final) > 1e-3 {
		t.Errorf("drawn at %v at the end, %.3f from where it stopped", p, dist(p, final))
	}
	if maxPast > 1e-6 {
		t.Errorf("drawn %.2f past where it stopped", maxPast)
	}
}

// stopAt is the frame the entity of stopping stops at.
const stopAt = 240

// stopping returns a rig with a remote entity moving at 300 units a second
// until stopAt, how it moves, the entity, a link of 50 ms and where it
// stops.
func stopping(t *testing.T) (*rig, mover, arche.Entity, link, ecs.Transform) {
	r := newRig(t, Config{})
	m := mover{vx: 300, vy: -40}
	return r, m, r.spawn(ecs.HostPeer, true, m.at(0)), link{latency: 50 * time.Millisecond}, m.at(stopAt)
}
