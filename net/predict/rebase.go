package predict

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// Rebase throws the prediction away, for a client whose world changed under
// it: its session resumed on a new connection after a break (the host
// simulated its entities without it meanwhile), or joined afresh. It forgets
// every recorded frame and the input in force (the zero I until the next
// SetInput), restarts the time synchronization (the next host frames align
// the client's frame again; that first alignment is not counted as a jump),
// and takes the next AuthState of each owned entity as it is: every tracked
// component is set to the host's value (Pose and Velocity through the
// Corrector; the pose drawn as a jump: no Smoother offset, and a Snapper is
// told), not compared with a prediction. Reconciliation goes on as usual from the AuthState after.
func (c *Client[I]) Rebase() {
	var zero I
	c.last = zero
	c.holding = false
	c.hist.clear()
	c.lastRecorded = 0
	c.sendFrom = 0
	c.newestAuth = 0
	c.observed = 0 // the host's frames may be numbered otherwise now
	c.pending = false
	c.newcomers = c.newcomers[:0] // of frames numbered perhaps otherwise
	c.checkedFrom, c.checkedLast, c.checkedOK = 0, 0, false
	c.sync = NewTimeSync(c.sync.Config())
	c.sched.SetDilation(1)
	c.rebase, c.rebaseFrame = true, 0
	c.dropSnaps()
	clear(c.teleports) // the host's frames may be numbered otherwise now
	clear(c.drifts)
	c.prunedAt = 0
	c.stats.Rebases++
}

// rebased handles the AuthState st of entity e at frame f after Rebase: the
// first frame's states are taken as they are; a later frame ends the
// rebase. It reports whether it took st.
func (c *Client[I]) rebased(f ecs.Frame, e arche.Entity, st replicate.State) bool {
	if !c.rebase {
		return false
	}
	if c.rebaseFrame != 0 && f != c.rebaseFrame {
		c.rebase = false
		return false
	}
	if c.rebaseFrame == 0 {
		// Frames recorded so far were predicted from the world before the
		// host's state: none is compared with the host's any more.
		c.rebaseFrame = f
		c.hist.clear()
		c.lastRecorded = 0
	}
	c.newestAuth = f
	if t, ok := st.Teleport(); ok {
		// Taken as a jump: the states that go on naming the teleport
		// are compared as usual.
		c.noteTeleport(f, e, t)
	}
	c.take(e, st)
	return true
}

// take sets every tracked component of entity e present in st to the host's
// value.
func (c *Client[I]) take(e arche.Entity, st replicate.State) {
	a := c.w.Arche()
	for _, t := range c.tracks {
		img := st.Image(t.comp)
		if img == nil || !a.Has(e, t.id) {
			continue
		}
		t.dequant(img, t.host)
		switch t.corr {
		case Pose:
			hp, cp := (*ecs.Transform)(t.host), (*ecs.Transform)(a.Get(e, t.id))
			dx, dy, da := hp.X-cp.X, hp.Y-cp.Y, ecs.AngleDiff(cp.Angle, hp.Angle)
			if cr := c.correctorFor(e); cr != nil {
				cr.CorrectPose(e, dx, dy, da)
			} else {
				cp.X, cp.Y, cp.Angle = cp.X+dx, cp.Y+dy, cp.Angle+da
			}
			c.snapped(e)
		case Velocity:
			hv, cv := (*ecs.Velocity)(t.host), (*ecs.Velocity)(a.Get(e, t.id))
			dx, dy, da := hv.X-cv.X, hv.Y-cv.Y, hv.Angular-cv.Angular
			if cr := c.correctorFor(e); cr != nil {
				cr.CorrectVelocity(e, dx, dy, da)
			} else {
				cv.X, cv.Y, cv.Angular = hv.X, hv.Y, hv.Angular
			}
		default:
			t.assign(a.Get(e, t.id), t.host)
		}
	}
	c.stats.Taken++
}
