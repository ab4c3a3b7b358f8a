package predict

import (
	"math"
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// A knock from rest: a host state says a body was moving that its
// prediction had at rest at that frame (another player's blow, an
// explosion's push: what the client could not predict). Both velocities
// coast from there, as the body's friction slows them (VelocityCarrier), so
// by the present the host's body is where the difference of that frame and
// what the two travelled apart since put it, not where the difference of
// that frame alone does: corrected by the latter, a knocked player was
// corrected again at each of the next states as the host's body ran on (9
// pose corrections over a 120 ms link where one does). Where the body meets
// something on the way (TravelClamper) the host's stopped there, and so
// does the correction, and the velocity into it goes.

// knock is a knock from rest of an entity found in a host state of frame f.
type knock struct {
	vc         VelocityCarrier
	e          arche.Entity
	pose, vel  *tracker      // the entity's Transform and Velocity
	host, pred ecs.Velocity  // the host's and the prediction's velocity at f
	d          ecs.Transform // the host's pose less the prediction's at f
	now        ecs.Transform // the correction of the present
	stopped    bool          // now stops short of d and the travel: it met something
	nx, ny     float64       // the normal of what it met, out of it, where stopped
	bound      float64       // how far into that the correction goes, where stopped
}

// restRatio is how many times faster than the prediction the host's state
// has a body for a knock from rest (knockOf). At 8 it took discs of the
// demo's that their players were thrusting slowly too, and the demo's
// largest corrections grew from 26–29 units to 40–48.
const restRatio = 64

// knockOf reports whether host state st of frame f says entity e (history
// entry at), which the prediction had at rest there, was moving, with no
// part of the difference along the normal of a contact e rests on
// (ContactClamper), and e's Corrector carries velocities; and if so works
// out the correction of its pose. A body already moving on the client is
// not taken: a disc its player thrusts against another is not coasting
// (carried so at every state, the demo's players' mean correction
// doubled).
// jumped: the state is of a teleport or of a jump of velocity.
func (c *Client[I]) knockOf(f ecs.Frame, e arche.Entity, at int, st replicate.State, jumped bool) (knock, bool) {
	vc, ok := c.correctorFor(e).(VelocityCarrier)
	if !ok || jumped {
		return knock{}, false
	}
	a := c.w.Arche()
	var tv, tp *tracker
	for _, t := range c.tracks {
		if a.Has(e, t.id) && t.corr == Velocity && tv == nil {
			tv = t
		} else if a.Has(e, t.id) && t.corr == Pose && tp == nil {
			tp = t
		}
	}
	if tv == nil || tp == nil || !c.differs(tv, at, st) || !c.compared(tp, at, st) {
		return knock{}, false
	}
	kn := knock{vc: vc, e: e, pose: tp, vel: tv, host: *(*ecs.Velocity)(tv.host), pred: *(*ecs.Velocity)(tv.store.at(at))}
	hs := math.Hypot(kn.host.X, kn.host.Y)
	if hs == 0 || math.Hypot(kn.pred.X, kn.pred.Y)*restRatio > hs {
		return knock{}, false
	}
	if cl, ok := vc.(ContactClamper); ok {
		dx, dy := kn.host.X-kn.pred.X, kn.host.Y-kn.pred.Y
		if cx, cy := cl.ClampVelocity(e, dx, dy); cx != dx || cy != dy {
			return knock{}, false
		}
	}
	hp, pp := (*ecs.Transform)(tp.host), (*ecs.Transform)(tp.store.at(at))
	kn.d = ecs.Transform{X: hp.X - pp.X, Y: hp.Y - pp.Y, Angle: ecs.AngleDiff(pp.Angle, hp.Angle)}
	cs := c.coastFrom(vc, e, f, kn.host, kn.pred)
	cs.to(c.lastRecorded)
	kn.now = kn.travelled(cs)
	if tc, ok := vc.(TravelClamper); ok {
		var nx, ny float64
		kn.now.X, kn.now.Y, nx, ny = tc.ClampTravel(e, kn.now.X, kn.now.Y)
		if nx != 0 || ny != 0 {
			kn.stopped, kn.nx, kn.ny = true, nx, ny
			kn.bound = -(kn.now.X*nx + kn.now.Y*ny)
		}
	}
	return kn, true
}

// travelled returns the difference of knock kn's frame and what the two
// velocities travelled apart by cs's frame: where the host's body is then
// less where the prediction's is.
func (kn *knock) travelled(cs coast) ecs.Transform {
	return ecs.Transform{X: kn.d.X + cs.apart.X, Y: kn.d.Y + cs.apart.Y, Angle: kn.d.Angle + cs.apart.Angle}
}

// atWall reports whether shift s of the pose goes as far into what the
// present's correction stopped at as the present's does, and returns it no
// further.
func (kn *knock) atWall(s ecs.Transform) (ecs.Transform, bool) {
	if !kn.stopped {
		return s, false
	}
	into := -(s.X*kn.nx + s.Y*kn.ny)
	if into < kn.bound {
		return s, false
	}
	s.X += kn.nx * (into - kn.bound)
	s.Y += kn.ny * (into - kn.bound)
	return s, true
}

// movesKnocked reports whether t is the knocked entity's Transform and the
// correction of the present moves it (history entry at) beyond its
// tolerance: a knock's pose is carried from a frame where it did not
// differ yet.
func (c *Client[I]) movesKnocked(kn *knock, t *tracker, at int) bool {
	if t != kn.pose {
		return false
	}
	p := (*ecs.Transform)(t.store.at(at))
	c.moved = ecs.Transform{X: p.X + kn.now.X, Y: p.Y + kn.now.Y, Angle: p.Angle + kn.now.Angle}
	return !t.equal(unsafe.Pointer(p), unsafe.Pointer(&c.moved))
}

// stop returns velocity v without its part into what the knocked body met.
func (kn *knock) stop(v ecs.Velocity) ecs.Velocity {
	if into := -(v.X*kn.nx + v.Y*kn.ny); into > 0 {
		v.X += kn.nx * into
		v.Y += kn.ny * into
	}
	return v
}

// coast is a host's velocity of entity e at a past frame and the
// prediction's, each carried from that frame to frame at by vc, frame by
// frame as the physics steps (the pose moves by the velocity, then the
// velocity changes), and how far the two travelled apart meanwhile.
type coast struct {
	vc         VelocityCarrier
	e          arche.Entity
	step       float64 // seconds
	at         ecs.Frame
	host, pred ecs.Velocity
	apart      ecs.Transform
}

// coastFrom starts the coast of entity e's host and predicted velocities
// of frame f.
func (c *Client[I]) coastFrom(vc VelocityCarrier, e arche.Entity, f ecs.Frame, host, pred ecs.Velocity) coast {
	return coast{vc: vc, e: e, step: c.cfg.Sync.Step.Seconds(), at: f, host: host, pred: pred}
}

// to carries cs to frame g (no earlier than its own).
func (cs *coast) to(g ecs.Frame) {
	for ; cs.at < g; cs.at++ {
		cs.apart.X += (cs.host.X - cs.pred.X) * cs.step
		cs.apart.Y += (cs.host.Y - cs.pred.Y) * cs.step
		cs.apart.Angle += (cs.host.Angular - cs.pred.Angular) * cs.step
		cs.host = cs.vc.CarryVelocity(cs.e, cs.host, cs.step)
		cs.pred = cs.vc.CarryVelocity(cs.e, cs.pred, cs.step)
	}
}

// apartNow is how far apart the two velocities have come by cs's frame.
func (cs *coast) apartNow() ecs.Velocity {
	return ecs.Velocity{X: cs.host.X - cs.pred.X, Y: cs.host.Y - cs.pred.Y, Angular: cs.host.Angular - cs.pred.Angular}
}

// carryPose shifts the poses recorded for knock kn's entity (entry k of
// frame f, Transform t) at f and after by where the host's body was less
// where the prediction's was by each frame, no further into what the
// present's correction stopped at than it goes, and returns that
// correction.
func (c *Client[I]) carryPose(kn *knock, f ecs.Frame, k int, t *tracker) ecs.Transform {
	cs := c.coastFrom(kn.vc, kn.e, f, kn.host, kn.pred)
	for g, i := range c.recorded(f, k, kn.e, t) {
		cs.to(g)
		s, _ := kn.atWall(kn.travelled(cs))
		v := (*ecs.Transform)(t.store.at(i))
		v.X += s.X
		v.Y += s.Y
		v.Angle += s.Angle
	}
	return kn.now
}
