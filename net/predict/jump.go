package predict

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// A teleport's jump. A host that teleports a body and changes its velocity
// in the same frame (stops it, as a respawn does) leaves the client's
// present predicted at the old velocity for the frames since: the pose's
// difference at the teleport's frame alone lands the body past the spot,
// and later states slide it back. So a teleport's correction also takes
// back what the old velocity carried the body since, and gives it what the
// host's would have, as far as the motion since says: under dynamics
// linear in the velocity (coasting, ground friction, thrust added on top),
// what an initial velocity v carries a body over the frames since is K·v
// for one K, which the travel the prediction made from its own velocity
// gives (carried), and what is left of v at the present is C·v. A
// correction that is no teleport's adds the differences as they are: a
// velocity's there is mostly a step's input or contact, which the next
// AuthStates correct as they come.

// snapMotion is, for a teleport's correction, the host's velocity and the
// predicted one at the teleport's frame, when they differ.
type snapMotion struct {
	changed bool
	host    ecs.Velocity
	pred    ecs.Velocity
}

// snapMotion returns the velocities of the AuthState st and of the
// prediction at history entry at, and whether a tracked Velocity differs
// there beyond its tolerance.
func (c *Client[I]) snapMotion(at int, st replicate.State) snapMotion {
	for _, t := range c.tracks {
		if t.corr == Velocity && c.differs(t, at, st) {
			return snapMotion{changed: true, host: *(*ecs.Velocity)(t.host), pred: *(*ecs.Velocity)(t.store.at(at))}
		}
	}
	return snapMotion{}
}

// since returns the time from the end of frame f to the last recorded
// frame's: what the prediction ran since f.
func (c *Client[I]) since(f ecs.Frame) float64 {
	return float64(c.lastRecorded-f) * c.cfg.Sync.Step.Seconds()
}

// carried returns the K for which a travel (tx, ty) made from an initial
// velocity (vx, vy) is K·v and what else moved the body (its inputs), the
// travel's projection on v over |v|², kept within [0, most] (most: a body
// that keeps its velocity all along); most for a velocity of about 0.
func carried(tx, ty, vx, vy, most float64) float64 {
	v2 := vx*vx + vy*vy
	if v2 < 1e-12 {
		return most
	}
	return min(max((tx*vx+ty*vy)/v2, 0), most)
}

// pose returns the correction of a teleport's pose t seconds past its
// frame: d, the difference at the frame, and what the change of velocity
// makes of the travel the prediction made since (its turn summed step by
// step, so a spin past half a turn counts whole).
func (m snapMotion) pose(d, travel ecs.Transform, t float64) ecs.Transform {
	dv := ecs.Velocity{X: m.host.X - m.pred.X, Y: m.host.Y - m.pred.Y, Angular: m.host.Angular - m.pred.Angular}
	k := carried(travel.X, travel.Y, m.pred.X, m.pred.Y, t)
	ka := carried(travel.Angle, 0, m.pred.Angular, 0, t)
	return ecs.Transform{X: d.X + k*dv.X, Y: d.Y + k*dv.Y, Angle: d.Angle + ka*dv.Angular}
}

// velocity returns the present's correction of a teleport's velocity, now
// the present velocity: the change of velocity, scaled by what is left of
// the predicted one.
func (m snapMotion) velocity(now ecs.Velocity) ecs.Velocity {
	c := carried(now.X, now.Y, m.pred.X, m.pred.Y, 1)
	ca := carried(now.Angular, 0, m.pred.Angular, 0, 1)
	return ecs.Velocity{X: c * (m.host.X - m.pred.X), Y: c * (m.host.Y - m.pred.Y), Angular: ca * (m.host.Angular - m.pred.Angular)}
}

// shiftJumpPose is shift of a teleport's Pose correction d with a change of
// velocity m, from the pose predicted at f: each pose recorded from f on
// moves by what pose makes of it. It returns the last pose recorded, as
// predicted, and its turn since f.
func (c *Client[I]) shiftJumpPose(f ecs.Frame, k int, e arche.Entity, t *tracker, d, from ecs.Transform, m snapMotion) (last ecs.Transform, turn float64) {
	dt := c.cfg.Sync.Step.Seconds()
	last = from
	for g, at := range c.recorded(f, k, e, t) {
		p := (*ecs.Transform)(t.store.at(at))
		turn += ecs.AngleDiff(last.Angle, p.Angle)
		last = *p
		moved := m.pose(d, ecs.Transform{X: p.X - from.X, Y: p.Y - from.Y, Angle: turn}, float64(g-f)*dt)
		p.X += moved.X
		p.Y += moved.Y
		p.Angle += moved.Angle
	}
	return last, turn
}

// shiftJumpVelocity is shift of a teleport's Velocity correction m: each
// velocity recorded from f on changes by what velocity makes of it.
func (c *Client[I]) shiftJumpVelocity(f ecs.Frame, k int, e arche.Entity, t *tracker, m snapMotion) {
	for _, at := range c.recorded(f, k, e, t) {
		p := (*ecs.Velocity)(t.store.at(at))
		dv := m.velocity(*p)
		p.X += dv.X
		p.Y += dv.Y
		p.Angular += dv.Angular
	}
}
