package predict

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Reanchor puts owned entity e back where the host's newest state of it
// has it: its tracked Pose and Velocity take the values recorded for the
// newest frame an AuthState of e was compared with (which that state
// corrected), and so do the frames recorded since, what the prediction
// added to them dropped. It is for an
// entity the client predicted into something the host's was stopped by (a
// body the client took for gone: the root package's predicted removals).
// The pose and velocity move through the Corrector; the pose is drawn
// smoothly (Smoother). It reports whether it could: e owned and such a
// frame recorded. Call it on the simulation goroutine, outside a replay
// (between steps, or from a system after the predictor's own).
func (c *Client[I]) Reanchor(e arche.Entity) bool {
	f, k, at, ok := c.anchorOf(e)
	if !ok {
		return false
	}
	a := c.w.Arche()
	for _, t := range c.tracks {
		if t.corr != Pose && t.corr != Velocity || !a.Has(e, t.id) || c.hist.masks[at]&t.bit == 0 {
			continue
		}
		anchor := t.store.at(at)
		for g, later := range c.recorded(f, k, e, t) {
			if g != f {
				t.assign(t.store.at(later), anchor)
			}
		}
		cr := c.correctorFor(e)
		switch t.corr {
		case Pose:
			hp, now := (*ecs.Transform)(anchor), (*ecs.Transform)(a.Get(e, t.id))
			d := ecs.Transform{X: hp.X - now.X, Y: hp.Y - now.Y, Angle: ecs.AngleDiff(now.Angle, hp.Angle)}
			if cr != nil {
				cr.CorrectPose(e, d.X, d.Y, d.Angle)
			} else {
				now.X, now.Y, now.Angle = now.X+d.X, now.Y+d.Y, now.Angle+d.Angle
			}
			if c.cfg.Smoother != nil {
				c.cfg.Smoother.AddCorrection(e, d.X, d.Y, d.Angle)
			}
		case Velocity:
			hv, now := (*ecs.Velocity)(anchor), (*ecs.Velocity)(a.Get(e, t.id))
			d := ecs.Velocity{X: hv.X - now.X, Y: hv.Y - now.Y, Angular: hv.Angular - now.Angular}
			if cr != nil {
				cr.CorrectVelocity(e, d.X, d.Y, d.Angular)
			} else {
				now.X, now.Y, now.Angular = now.X+d.X, now.Y+d.Y, now.Angular+d.Angular
			}
		}
	}
	c.stats.Reanchors++
	return true
}

// Anchor returns the pose recorded for owned entity e at the newest frame
// an AuthState of e was compared with, which that state corrected: where
// the host's newest state of it has it (what Reanchor puts it back to). ok
// is false if no such frame is recorded, or e had no tracked Pose there.
func (c *Client[I]) Anchor(e arche.Entity) (pose ecs.Transform, ok bool) {
	_, _, at, ok := c.anchorOf(e)
	if !ok {
		return pose, false
	}
	for _, t := range c.tracks {
		if t.corr == Pose && c.hist.masks[at]&t.bit != 0 {
			return *(*ecs.Transform)(t.store.at(at)), true
		}
	}
	return pose, false
}

// anchorOf finds owned entity e's record at the newest frame f an
// AuthState of e was compared with: its entry k there and its index at in
// the stores.
func (c *Client[I]) anchorOf(e arche.Entity) (f ecs.Frame, k, at int, ok bool) {
	h := &c.hist
	for f = c.newestAuth; f > 0 && c.newestAuth-f < ecs.Frame(h.size()); f-- {
		s, found := h.find(f, recState)
		if !found {
			continue
		}
		if k = h.index(s, e, 0); k >= 0 && h.compared[s*h.stride+k] {
			return f, k, s*h.stride + k, true
		}
	}
	return 0, 0, 0, false
}
