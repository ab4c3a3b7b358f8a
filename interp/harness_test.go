package interp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
)

const step = ecs.DefaultStep

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// rig is a client world with an Interpolator and a fake clock; the test plays
// the replicator.
type rig struct {
	t   testing.TB
	w   *ecs.World
	clk *clock.Fake
	ip  *Interpolator
}

func newRig(t testing.TB, cfg Config) *rig {
	w := ecs.NewWorld()
	clk := clock.NewFake(t0)
	return &rig{t: t, w: w, clk: clk, ip: New(w, clk, cfg)}
}

// spawn creates a networked entity owned by owner with a Transform, and
// Interpolated if interpolated, as the client replicator does.
func (r *rig) spawn(owner ecs.PeerID, interpolated bool, pose ecs.Transform) arche.Entity {
	w := r.w
	ids := []arche.ID{w.IDs.NetworkIdentity, w.IDs.Transform}
	if interpolated {
		ids = append(ids, w.IDs.Interpolated)
	}
	e := w.Arche().NewEntity(ids...)
	ecs.SetOwner(w, e, owner)
	*(*ecs.Transform)(w.Arche().Get(e, w.IDs.Transform)) = pose
	if interpolated {
		*(*ecs.Interpolated)(w.Arche().Get(e, w.IDs.Interpolated)) = ecs.Interpolated{Prev: pose, Snap: true}
	}
	return e
}

// apply sets e's Transform to the host's state of frame f and tells the
// Interpolator, as the replicator does for a fresh state.
func (r *rig) apply(e arche.Entity, f ecs.Frame, pose ecs.Transform) {
	*r.transform(e) = pose
	r.ip.Applied(e, f)
}

// arrivals returns a play callback that applies mover m's state of each
// frame to entity e when it is newer than any the interpolator holds, and
// only tells it of an older one (come out of order).
func (r *rig) arrivals(e arche.Entity, m mover) func(ecs.Frame) {
	return func(f ecs.Frame) {
		if f > r.ip.Stats().Newest {
			r.apply(e, f, m.at(f))
		} else {
			r.ip.Applied(e, f)
		}
	}
}

func (r *rig) transform(e arche.Entity) *ecs.Transform {
	return (*ecs.Transform)(r.w.Arche().Get(e, r.w.IDs.Transform))
}

func (r *rig) interpolated(e arche.Entity) *ecs.Interpolated {
	return (*ecs.Interpolated)(r.w.Arche().Get(e, r.w.IDs.Interpolated))
}

func (r *rig) pose(e arche.Entity) ecs.Transform {
	r.t.Helper()
	p, ok := r.ip.Pose(e, 0)
	if !ok {
		r.t.Fatalf("Pose(%v) not found", e)
	}
	return p
}

// link is a one-way path from the host: each send arrives after latency plus
// a uniform jitter in [-jitter, +jitter], or is lost.
type link struct {
	latency, jitter time.Duration
	loss            float64
	rng             *rand.Rand
}

// arrival is a host send of frame f reaching the client at local time at
// (since t0).
type arrival struct {
	at time.Duration
	f  ecs.Frame
}

// sends returns the arrivals of the host's sends of frames first, first+every,
// ... up to last, in the order they arrive. Host frame f is simulated at local
// time f·step.
func (l link) sends(first, last, every ecs.Frame) []arrival {
	var out []arrival
	for f := first; f <= last; f += every {
		if l.loss > 0 && l.rng.Float64() < l.loss {
			continue
		}
		j := time.Duration(0)
		if l.jitter > 0 {
			j = time.Duration((l.rng.Float64()*2 - 1) * float64(l.jitter))
		}
		out = append(out, arrival{at: time.Duration(f)*step + l.latency + j, f: f})
	}
	slices.SortStableFunc(out, func(a, b arrival) int { return int(a.at - b.at) })
	return out
}

// play runs the fake clock from its current time to until (since t0),
// delivering arrivals (deliver) and drawing frames at hz (draw after
// Update) in time order.
func (r *rig) play(arrivals []arrival, hz float64, until time.Duration, deliver func(f ecs.Frame), draw func(now time.Duration)) {
	dt := time.Duration(float64(time.Second) / hz)
	now := r.clk.Now().Sub(t0)
	next := (now/dt + 1) * dt
	i := 0
	for i < len(arrivals) && arrivals[i].at <= now {
		i++
	}
	for next <= until {
		for i < len(arrivals) && arrivals[i].at <= next {
			r.clk.Advance(arrivals[i].at - r.clk.Now().Sub(t0))
			deliver(arrivals[i].f)
			i++
		}
		r.clk.Advance(next - r.clk.Now().Sub(t0))
		r.ip.Update(r.clk.Now())
		draw(next)
		next += dt
	}
}

// mover is a host entity moving at constant velocity (units/s, rad/s); the
// angle is kept in [-π, π) as a host would, so blending must go the short way.
type mover struct {
	x0, y0, vx, vy, w float64
}

func (m mover) at(f ecs.Frame) ecs.Transform {
	s := float64(f) * step.Seconds()
	return ecs.Transform{X: m.x0 + m.vx*s, Y: m.y0 + m.vy*s, Angle: wrap(m.w * s)}
}

func (m mover) speed() float64 { return math.Hypot(m.vx, m.vy) }

func wrap(a float64) float64 { return ecs.AngleDiff(0, a) }

func dist(a, b ecs.Transform) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }

// sortArrivals orders arrivals by time, keeping the order of simultaneous ones.
func sortArrivals(a []arrival) {
	slices.SortStableFunc(a, func(x, y arrival) int { return int(x.at - y.at) })
}
