package predict

import (
	"math"
	"slices"
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// A pose that drifts off the host's after its velocity was rounded.
//
// The host's velocity reaches the owner rounded to the wire (VelocityCodec:
// to 1/8 unit/s). Where the owner's body took it (a Velocity correction: a
// push, a bump its own step did not make) or the host set it off the grid,
// the owner's body coasts on up to half a wire step from the host's, and its
// pose drifts off the host's by as much a second: past the pose's tolerance
// within a fraction of a second, corrected, and again, for as long as it
// moves. So a Pose correction whose velocity agrees within its tolerance
// also moves the velocity by the drift it found since the pose last took
// the host's (with the velocity its own since), over the time between, when
// the velocity so moved still quantizes to the host's image of that frame:
// a drift the rounding explains. Each such correction leaves a smaller
// drift than the last. A drift the rounding does not explain (a
// collision's, a push's) moves no velocity, nor does any drift of a body
// at rest on both sides (what moved it was not its velocity).

// driftNote is what one AuthState's correction of an entity did, for its
// drift: whether its pose took the host's whole (d the difference), as a
// teleport, or otherwise (a knock's, a contact's clamp), and whether its
// velocity was corrected.
type driftNote struct {
	whole, snap, other, vel bool
	d                       ecs.Transform
}

// pose notes a Pose correction by d: a teleport's (snap), or one the
// correction changed (other: a knock's travel, a contact's clamp).
func (n *driftNote) pose(d ecs.Transform, snap, other bool) {
	n.d, n.snap = d, snap
	n.whole = !other
	n.other = other
}

// trims reports whether the correction asks for a drift's change of
// velocity: the pose taken whole, not a teleport's, its velocity agreeing.
func (n *driftNote) trims() bool { return n.whole && !n.snap && !n.vel }

// noteDrift notes, from what the correction of entity e at frame f did
// (n), the start of its next drift: a pose taken whole with the velocity
// its own; or that there is none to measure from (the velocity taken too:
// the poses recorded since lack its travel; a knock's or a clamped pose).
func (c *Client[I]) noteDrift(n *driftNote, f ecs.Frame, e arche.Entity) {
	switch {
	case n.whole && !n.vel:
		c.markDrift(f, e, true)
	case n.whole || n.other || n.vel:
		c.markDrift(f, e, false)
	}
}

// driftsBound is the least bound of Client.drifts: past its bound (this or
// ClientConfig.MaxOwned, the larger) the marks are forgotten at once (each
// entity's next pose correction starts one again).
const driftsBound = 1024

// markDrift notes that entity e's pose took the host's whole at frame f
// (whole: true), or that what e's velocity or pose took at f leaves no
// drift to measure from (whole: false).
func (c *Client[I]) markDrift(f ecs.Frame, e arche.Entity, whole bool) {
	if !whole {
		delete(c.drifts, e)
		return
	}
	if c.drifts == nil {
		c.drifts = make(map[arche.Entity]ecs.Frame, 8)
	}
	if _, ok := c.drifts[e]; !ok && len(c.drifts) >= max(driftsBound, c.cfg.MaxOwned) {
		clear(c.drifts)
	}
	c.drifts[e] = f
}

// driftPending is a Replay-mode correction's drift, kept until the replay
// runs from its frame (replay: committed) or is dropped (forgotten).
type driftPending struct {
	e       arche.Entity
	f       ecs.Frame
	note    driftNote
	trimmed bool
}

// pendDrift keeps entity e's drift of the correction of frame f (n;
// trimmed: its velocity moved at f) for the replay: a later one of e's
// replaces it.
func (c *Client[I]) pendDrift(e arche.Entity, f ecs.Frame, n driftNote, trimmed bool) {
	p := driftPending{e: e, f: f, note: n, trimmed: trimmed}
	for i := range c.driftsPending {
		if c.driftsPending[i].e == e {
			c.driftsPending[i] = p
			return
		}
	}
	c.driftsPending = append(c.driftsPending, p)
}

// commitDrifts notes the drifts of the corrections a replay from frame
// from ran from; those of other frames (superseded: the replay ran from a
// later one) leave no drift to measure from.
func (c *Client[I]) commitDrifts(from ecs.Frame) {
	for i := range c.driftsPending {
		p := &c.driftsPending[i]
		if p.f != from {
			c.markDrift(p.f, p.e, false)
			continue
		}
		c.noteDrift(&p.note, p.f, p.e)
		if p.trimmed {
			c.stats.DriftTrims++
		}
	}
	c.driftsPending = c.driftsPending[:0]
}

// dropDrifts forgets the drifts of a replay that did not run.
func (c *Client[I]) dropDrifts() {
	for _, p := range c.driftsPending {
		c.markDrift(p.f, p.e, false)
	}
	c.driftsPending = c.driftsPending[:0]
}

// poseAndVelocity returns the Pose and Velocity trackers, nil where there
// is none.
func (c *Client[I]) poseAndVelocity() (pose, vel *tracker) {
	for _, t := range c.tracks {
		switch t.corr {
		case Pose:
			pose = t
		case Velocity:
			vel = t
		}
	}
	return pose, vel
}

// driftScratch is driftVelocity's, kept in the Client: values handed to a
// codec's Quantize through a func value would otherwise each be allocated.
type driftScratch struct {
	moved ecs.Velocity
	q     [replicate.MaxFields]int32
}

// driftVelocity returns the change of entity e's velocity (units and
// radians a second) that the drift d of its pose at frame f (the host's
// less the prediction's, history entry at) asks: d over the time since the
// pose last took the host's; ok false where there is none to measure from,
// the state holds no velocity of e, the body is at rest on both sides, the
// change is not a number, or the velocity so changed would no longer
// quantize to the host's (the spin's part is then tried without).
func (c *Client[I]) driftVelocity(f ecs.Frame, e arche.Entity, at int, vel *tracker, st replicate.State, d ecs.Transform) (ecs.Velocity, bool) {
	from, ok := c.drifts[e]
	step := c.cfg.Sync.Step.Seconds()
	if !ok || f <= from || vel == nil || step <= 0 {
		return ecs.Velocity{}, false
	}
	img := st.Image(vel.comp)
	if len(img) != vel.n || c.hist.masks[at]&vel.bit == 0 {
		return ecs.Velocity{}, false
	}
	pred := *(*ecs.Velocity)(vel.store.at(at))
	if pred == (ecs.Velocity{}) && !slices.ContainsFunc(img, func(v int32) bool { return v != 0 }) {
		return ecs.Velocity{}, false // at rest on both sides
	}
	secs := float64(f-from) * step
	n := ecs.Velocity{X: d.X / secs, Y: d.Y / secs, Angular: d.Angle / secs}
	if !finite(n.X) || !finite(n.Y) || !finite(n.Angular) {
		return ecs.Velocity{}, false
	}
	sc := &c.driftScratch
	for try := range 2 {
		if try == 1 {
			n.Angular = 0 // the spin's part left out
		}
		sc.moved = ecs.Velocity{X: pred.X + n.X, Y: pred.Y + n.Y, Angular: pred.Angular + n.Angular}
		vel.quant(unsafe.Pointer(&sc.moved), sc.q[:vel.n])
		if slices.Equal(sc.q[:vel.n], img) {
			return n, true
		}
	}
	return ecs.Velocity{}, false
}

// finite reports whether v is neither infinite nor NaN.
func finite(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }

// carryDrift moves entity e's velocity by n (driftVelocity) from frame f
// (entry k) on, in its records and in the present, and its poses recorded
// after f and the present one by what n travels since f (Correct mode).
func (c *Client[I]) carryDrift(f ecs.Frame, k int, e arche.Entity, pose, vel *tracker, n ecs.Velocity) {
	step := c.cfg.Sync.Step.Seconds()
	c.shift(f, k, e, vel, n.X, n.Y, n.Angular)
	for g, at := range c.recorded(f, k, e, pose) {
		s := float64(g-f) * step
		p := (*ecs.Transform)(pose.store.at(at))
		p.X += n.X * s
		p.Y += n.Y * s
		p.Angle += n.Angular * s
	}
	a := c.w.Arche()
	if a.Has(e, vel.id) {
		c.moveVelocity(e, vel, n.X, n.Y, n.Angular)
	}
	if a.Has(e, pose.id) && c.lastRecorded > f {
		s := float64(c.lastRecorded-f) * step
		c.movePose(e, pose, n.X*s, n.Y*s, n.Angular*s)
	}
	c.stats.DriftTrims++
}
