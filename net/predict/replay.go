package predict

import (
	"errors"
	"math"
	"slices"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// ErrCannotReplay is returned when a replay is asked from a frame that is not recorded (too
// old, or in the future), or the owned entities changed since it, or the
// client has no Step. Correct mode does not need any of these.
var ErrCannotReplay = errors.New("predict: cannot replay from that frame: it is not recorded, or the owned entities changed since, or ClientConfig.Step is not set")

// markReplay writes the host's differing values of entity e into the
// prediction of frame f (history entry at, its entry k) and asks for a
// replay from f; snap: e's pose is of a teleport, drawn as a jump after the
// replay. A HostOnly value is taken at once, as Correct mode takes it: the
// predicted step does not change it, so it asks for no replay.
func (c *Client[I]) markReplay(f ecs.Frame, k, at int, e arche.Entity, st replicate.State, snap bool) {
	n := 0
	var dr driftNote
	for _, t := range c.tracks {
		if !c.differs(t, at, st) {
			continue
		}
		if t.agree != nil {
			t.agree(t.host, t.store.at(at)) // the members that agree stay exact
		}
		if t.corr == HostOnly {
			c.takeHostOnly(f, k, e, t)
			continue
		}
		c.countCorrection()
		switch t.corr {
		case Velocity:
			hv, pv := (*ecs.Velocity)(t.host), (*ecs.Velocity)(t.store.at(at))
			size := math.Hypot(hv.X-pv.X, hv.Y-pv.Y)
			c.stats.VelocityCorrections++
			c.velSum += size
			c.stats.MaxVelocity = max(c.stats.MaxVelocity, size)
			dr.vel = true
		case HostValue:
			c.stats.ValueCorrections++
		case Pose:
			if snap {
				c.snaps = append(c.snaps, e)
			}
			hp, pp := (*ecs.Transform)(t.host), (*ecs.Transform)(t.store.at(at))
			dr.pose(ecs.Transform{X: hp.X - pp.X, Y: hp.Y - pp.Y, Angle: ecs.AngleDiff(pp.Angle, hp.Angle)}, snap, false)
		}
		t.assign(t.store.at(at), t.host)
		n++
	}
	trimmed := false
	if _, vel := c.poseAndVelocity(); dr.trims() {
		// The replay from f runs from the velocity so moved.
		if d, ok := c.driftVelocity(f, e, at, vel, st, dr.d); ok {
			v := (*ecs.Velocity)(vel.store.at(at))
			v.X += d.X
			v.Y += d.Y
			v.Angular += d.Angular
			trimmed = true
		}
	}
	if dr.whole || dr.other || dr.vel {
		c.pendDrift(e, f, dr, trimmed) // noted once the replay runs from f
	}
	if n > 0 && (!c.pending || f > c.pendingFrom) {
		c.pending = true
		c.pendingFrom = f
	}
}

// keepHostOnly puts the values of HostOnly components that frame record s
// holds back on the owned entities, before the replay records the frame
// again: the client's step does not change them, and the record holds the
// host's value where one was taken (shift writes it from its frame on):
// otherwise a replay from an earlier frame carries its first frame's value
// into the present, undoing the taken value until the next state.
func (c *Client[I]) keepHostOnly(s int, owned []arche.Entity) {
	if !c.hostOnly {
		return
	}
	h := &c.hist
	a := c.w.Arche()
	k := 0
	for i, e := range owned {
		if k = h.index(s, e, i); k < 0 {
			continue
		}
		at := s*h.stride + k
		for _, t := range c.tracks {
			if t.corr != HostOnly || h.masks[at]&t.bit == 0 {
				continue
			}
			if p := a.GetUnchecked(e, t.id); p != nil {
				t.assign(p, t.store.at(at))
			}
		}
	}
}

// replayable reports whether a replay from frame f can run: every frame from
// f to the last recorded is recorded with its input and state, for the same
// owned entities as now.
func (c *Client[I]) replayable(f ecs.Frame) bool {
	if c.checkedFrom == f && c.checkedLast == c.lastRecorded {
		return c.checkedOK
	}
	ok := c.checkReplay(f)
	c.checkedFrom, c.checkedLast, c.checkedOK = f, c.lastRecorded, ok
	return ok
}

func (c *Client[I]) checkReplay(f ecs.Frame) bool {
	p, ok := c.local()
	if !ok || c.cfg.Step == nil || f == 0 || f > c.lastRecorded || int(c.lastRecorded-f) >= c.hist.size() {
		return false
	}
	owned := c.predicted(c.w, p)
	for g := f; g <= c.lastRecorded; g++ {
		s, ok := c.hist.find(g, recInput|recState)
		if !ok || !c.hist.sameEntities(s, owned) {
			return false
		}
	}
	return true
}

// Replay restores the prediction recorded for frame from into the owned
// entities and runs ClientConfig.Step for every frame after it up to the
// last recorded, with the inputs recorded for them (the zero input for a
// held frame: Held), recording again. It
// returns ErrCannotReplay when that is impossible. A game calls it to force
// a replay; Replay mode runs it on its own.
func (c *Client[I]) Replay(from ecs.Frame) error {
	if !c.replayable(from) {
		return ErrCannotReplay
	}
	c.replay(from, nil)
	return nil
}

// replay runs a replay that replayable (or, with newcomers ns to adopt,
// adoptable) allowed: ns take their values as they arrived, and are drawn
// where the replay puts them, at once.
func (c *Client[I]) replay(from ecs.Frame, ns []newcomer) {
	w := c.w
	a := w.Arche()
	h := &c.hist
	p, _ := c.local()
	owned := c.predicted(w, p)
	if len(owned) > h.stride {
		// Newcomers to adopt, not recorded yet: room for them first (the
		// replay records them; growing then would zero before).
		h.grow(len(owned), c.cfg.MaxOwned, c.tracks)
	}
	for k, e := range owned {
		for _, t := range c.tracks {
			if p := a.GetUnchecked(e, t.id); p != nil {
				t.assign(t.before.at(k), p)
			}
		}
	}
	s, _ := h.find(from, recState)
	base := s * h.stride
	for k, e := range owned {
		j := k // the frame recorded these entities, in this order (replayable)
		if ns != nil {
			// Entities made since are not recorded there (adoptable); the
			// others may be in another order.
			if j = h.index(s, e, k); j < 0 {
				continue
			}
		}
		m := h.masks[base+j]
		for _, t := range c.tracks {
			if p := a.GetUnchecked(e, t.id); p != nil && m&t.bit != 0 {
				t.assign(p, t.store.at(base+j))
			}
		}
	}
	c.placeNewcomers(ns)
	if c.cfg.ReplayBegin != nil {
		c.cfg.ReplayBegin(w, from)
	}
	now := w.Frame()
	last := c.lastRecorded
	for g := from + 1; g <= last; g++ {
		s, _ := h.find(g, recInput)
		w.SetFrame(g)
		in := &h.inputs[s]
		if h.flags[s]&recHeld != 0 {
			var zero I
			c.heldIn = zero
			in = &c.heldIn
		}
		c.cfg.Step(w, g, in)
		owned := c.predicted(w, p)
		c.keepHostOnly(s, owned)
		c.recordState(s, owned)
	}
	w.SetFrame(now)
	c.checkedLast = 0 // recorded again: replayable asks anew
	if c.cfg.ReplayEnd != nil {
		c.cfg.ReplayEnd(w)
	}
	c.stats.Replays++
	c.stats.ReplayedFrames += uint64(last - from)
	c.commitDrifts(from)
	for _, t := range c.tracks {
		if t.corr != Pose {
			continue
		}
		for k, e := range owned {
			p := a.GetUnchecked(e, t.id)
			if p == nil {
				continue
			}
			b, n := (*ecs.Transform)(t.before.at(k)), (*ecs.Transform)(p)
			d := ecs.Transform{X: n.X - b.X, Y: n.Y - b.Y, Angle: ecs.AngleDiff(b.Angle, n.Angle)}
			if slices.Contains(c.snaps, e) {
				c.snapped(e) // a teleport: drawn as a jump, counted as one
				c.stats.Teleports++
				continue
			}
			if isNewcomer(ns, e) {
				c.snapped(e) // drawn from where the replay puts it
				continue
			}
			if isNewcomer(c.newcomers, e) {
				continue // made later: its own replay puts it back as it arrived
			}
			if d == (ecs.Transform{}) {
				continue
			}
			if c.cfg.Smoother != nil {
				c.cfg.Smoother.AddCorrection(e, d.X, d.Y, d.Angle)
			}
			c.countPose(math.Hypot(d.X, d.Y))
		}
	}
	c.snaps = c.snaps[:0]
}
