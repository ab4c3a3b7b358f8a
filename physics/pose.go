package physics

import (
	"fmt"
	"math"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// SetPose teleports entity e's body to pose (world units, radians), wakes it,
// writes ecs.Transform and reports it, and reports the teleport
// (ecs.ReportTeleport) so clients draw it as a jump too. With
// ecs.Interpolated, Prev is set to the new pose and Snap is set until the
// Space's next Update (the physics step), so the teleport is drawn as a
// jump, not a slide: a system that runs after the Space in the frame of a
// SetPose made before it sees Snap cleared already (the world's
// Journal().Teleported lists the frame's teleports to its end). Velocity is kept; set it with SetVelocity.
//
// Call it from systems, between physics steps. It panics if e has no Body.
func SetPose(w *ecs.World, e arche.Entity, pose ecs.Transform) {
	mustSpace(w, "SetPose").SetPose(e, pose)
}

// SetPose is the package function SetPose for the Space's world, without
// looking the Space up.
func (s *Space) SetPose(e arche.Entity, pose ecs.Transform) {
	w, b := s.w, s.mustBody(e, "SetPose")
	s.moveBody(b, pose)
	t := s.transforms.Get(e)
	*t = pose
	ecs.MutateComponent(w, e, w.IDs.Transform)
	ecs.ReportTeleport(w, e)
	if s.interps.Has(e) {
		ip := s.interps.Get(e)
		ip.Prev = pose
		ip.Snap = true
		s.snapped = append(s.snapped, e)
	}
}

// SetVelocity sets entity e's body velocity (world units per second and
// radians per second), wakes it, writes ecs.Velocity and reports it. It
// panics if e has no Body.
func SetVelocity(w *ecs.World, e arche.Entity, v ecs.Velocity) {
	mustSpace(w, "SetVelocity").SetVelocity(e, v)
}

// SetVelocity is the package function SetVelocity for the Space's world.
func (s *Space) SetVelocity(e arche.Entity, v ecs.Velocity) {
	w, b := s.w, s.mustBody(e, "SetVelocity")
	b.SetVelocity(v.X, v.Y)
	b.SetAngularVelocity(v.Angular)
	vp := s.velocities.Get(e)
	if *vp != v {
		*vp = v
		ecs.MutateComponent(w, e, w.IDs.Velocity)
	}
}

// CorrectPose moves entity e's body by dx, dy (world units) and turns it by
// dAngle (radians), wakes it, and writes and reports ecs.Transform. It is the
// pose correction a predicting client applies when the host disagrees:
// unlike SetPose it does not snap and leaves Interpolated.Prev alone, so the
// drawn pose slides to the corrected one over the next step. A dynamic
// body keeps the push apart its contacts left for the next step
// (MoveKeepingPush): a correction that dropped it sank a player pushing a
// heavy crate by her velocity's step, deeper than the host's, and the next
// state corrected her again, for as long as she pushed. Out of a static or
// kinematic body it touches (a floor, a lift), which the correction does
// not move, its push is less by what the correction took it out of it
// already. (A correction that takes the body out of a contact altogether
// keeps that contact's push for one step all the same.) It panics if e
// has no Body.
func CorrectPose(w *ecs.World, e arche.Entity, dx, dy, dAngle float64) {
	mustSpace(w, "CorrectPose").CorrectPose(e, dx, dy, dAngle)
}

// CorrectPose is the package function CorrectPose for the Space's world.
func (s *Space) CorrectPose(e arche.Entity, dx, dy, dAngle float64) {
	w, b := s.w, s.mustBody(e, "CorrectPose")
	t := s.transforms.Get(e)
	pose := ecs.Transform{X: t.X + dx, Y: t.Y + dy, Angle: t.Angle + dAngle}
	if b.GetType() == cp.BODY_DYNAMIC {
		s.placeKeepingPush(b, pose)
		s.trimPush(b, cp.Vector{X: dx, Y: dy})
	} else {
		s.moveBody(b, pose)
	}
	if pose != *t {
		*t = pose
		ecs.MutateComponent(w, e, w.IDs.Transform)
	}
}

// Move puts entity e's body at pose (world units, radians), wakes it, and
// writes and reports ecs.Transform. It is the plain way to place a body where
// something else says it is (a client keeping a body on the host's state):
// unlike SetPose it is no teleport (no Snap, Interpolated.Prev kept, nothing
// reported as a jump); unlike CorrectPose it says where, not by how much.
//
// Do not drive a body by writing its pose every step: the solver never sees
// it travel, so it passes through whatever lies between, walls included.
// Drive it by its velocity (see the package documentation). It panics if e
// has no Body.
func (s *Space) Move(e arche.Entity, pose ecs.Transform) {
	s.moveBody(s.mustBody(e, "Move"), pose)
	s.writePose(e, pose)
}

// writePose writes pose to e's Transform and reports it, if it changed (an
// entity without a Transform has only its body moved).
func (s *Space) writePose(e arche.Entity, pose ecs.Transform) {
	if t := s.transforms.Get(e); t != nil && pose != *t {
		*t = pose
		ecs.MutateComponent(s.w, e, s.w.IDs.Transform)
	}
}

// MoveKeepingPush is Move for a dynamic body put back where a recorded
// frame had it (a client's replay of its predicted frames), keeping the
// push apart the last step's contacts left for the next (cp's bias
// velocity), which Move drops: a body pressed against a wall has it at
// every step, and a replay that dropped it sank the body into the wall by
// its velocity's step, 0.8 units in a test, and settled deeper than the
// host's, to be corrected again at every state. Other bodies are moved as
// Move moves them. It panics if e has no Body.
func (s *Space) MoveKeepingPush(e arche.Entity, pose ecs.Transform) {
	b := s.mustBody(e, "MoveKeepingPush")
	if b.GetType() != cp.BODY_DYNAMIC {
		s.Move(e, pose)
		return
	}
	s.placeKeepingPush(b, pose)
	s.writePose(e, pose)
}

// eachContact calls fn with each body o that body b touches, the normal
// from b towards o (unit length), and their arbiter.
func eachContact(b *cp.Body, fn func(o *cp.Body, n cp.Vector, arb *cp.Arbiter)) {
	b.EachArbiter(func(arb *cp.Arbiter) {
		a, o := arb.Bodies()
		n := arb.Normal() // from a towards o
		if o == b {
			a, o = o, a
			n = n.Neg()
		}
		if a == b {
			fn(o, n, arb)
		}
	})
}

// trimPush has the next step of dynamic body b, just moved
// by d, push it out of each static or kinematic body it touches by what d
// took it out of it the less (CorrectPose): at most the push itself, none
// for a move into it; and not at all out of a dynamic body put somewhere
// since the last step (a client's remote body, put on the host's state):
// where their contact stands now is not where the step left it. (Kept, a
// player of the demo's soak test shoving others' discs was corrected by 8
// units or more 1.4 times a second; 1.1 so, 0.8 dropping every push.)
func (s *Space) trimPush(b *cp.Body, d cp.Vector) {
	var t trim
	for _, c := range s.supports(b) {
		if out := -d.Dot(c.n); out > 0 && t.k < len(t.n) {
			t.n[t.k], t.out[t.k] = c.n, out
			t.k++
		}
	}
	eachContact(b, func(o *cp.Body, n cp.Vector, _ *cp.Arbiter) {
		if o.GetType() != cp.BODY_DYNAMIC || t.k == len(t.n) {
			return
		}
		if oe, ok := EntityOf(o); ok && s.bodies.Has(oe) && s.bodies.Get(oe).placedAt == s.step+1 {
			t.n[t.k], t.out[t.k] = n, math.Inf(1)
			t.k++
		}
	})
	if t.k == 0 {
		return
	}
	s.pushed(b)
	if s.pushTrim == nil {
		s.pushTrim = map[*cp.Body]trim{}
	}
	s.pushTrim[b] = t
}

// trim is what a push loses: along each of up to four unit normals n (into
// what the body touches), out world units of its push out along -n.
type trim struct {
	n   [4]cp.Vector
	out [4]float64
	k   int
}

// apply returns push p of a step of dt seconds less t.
func (t *trim) apply(p push, dt float64) push {
	for i, n := range t.n[:t.k] {
		o := -(p.X*n.X + p.Y*n.Y) // its push out, world units a second
		if o <= 0 {
			continue
		}
		left := max(0, o-t.out[i]/dt)
		p.X, p.Y = p.X+n.X*(o-left), p.Y+n.Y*(o-left)
	}
	return p
}

// placeKeepingPush puts dynamic body b at pose and wakes it, keeping its
// bias velocity (MoveKeepingPush).
func (s *Space) placeKeepingPush(b *cp.Body, pose ecs.Transform) {
	if s.stepping {
		panic("physics: pose written during the physics step; write poses from systems, not from cp callbacks")
	}
	delete(s.pushTrim, b)  // a correction's trim is of where the body was
	b.SetAngle(pose.Angle) // first: SetPosition places the origin by the angle
	b.SetPosition(cp.Vector{X: pose.X, Y: pose.Y})
	b.Activate()
}

// Push returns the push apart that entity e's body moved by at the last
// step besides its velocity (cp's bias velocity, which the step before's
// contacts left: a body pressed against a wall is pushed out of it at
// every step), in world units (radians) per second; zero for a body the
// last step did not move (asleep, its shapes out of the space), and for
// one whose pushes were not asked for before it (the first call has its
// steps keep them from then on). A client records it with its predicted
// frames for a replay to give back (SetPush). It panics if e has no Body.
func (s *Space) Push(e arche.Entity) (x, y, angular float64) {
	s.pushed(s.mustBody(e, "Push"))
	bd := s.bodies.Get(e)
	if bd.pushStep != s.step {
		return 0, 0, 0 // it did not move at the last step
	}
	return bd.push.X, bd.push.Y, bd.push.Angular
}

// pushed has b's steps keep its pushes (integratePushed), from the next:
// only bodies whose pushes are asked for pay for them.
func (s *Space) pushed(b *cp.Body) {
	if b.GetType() == cp.BODY_DYNAMIC {
		b.SetPositionUpdateFunc(s.integratePushPosition)
	}
}

// SetPush makes entity e's body's next step push it by x, y, angular (as
// Push returns them) in place of what cp's contacts left it, at that step
// alone (a body the step does not move drops it): a replay putting a
// predicted body back where a recorded frame had it gives it that frame's
// push, as a step from there had it. Not for a kinematic or static body
// (nothing pushes it): it does nothing then. It panics if e has no Body.
func (s *Space) SetPush(e arche.Entity, x, y, angular float64) {
	b := s.mustBody(e, "SetPush")
	if b.GetType() != cp.BODY_DYNAMIC {
		return // pushed by nothing
	}
	s.pushed(b)
	if s.pushNext == nil {
		s.pushNext = map[*cp.Body]push{}
	}
	s.pushNext[b] = push{X: x, Y: y, Angular: angular}
	delete(s.pushTrim, b) // the push given replaces what a correction trimmed
}

// push is a push apart, in world units (radians) per second.
type push struct{ X, Y, Angular float64 }

// CorrectVelocity adds dx, dy (world units per second) and dAngular (radians
// per second) to entity e's body velocity, wakes it, and writes and reports
// ecs.Velocity. It panics if e has no Body.
func CorrectVelocity(w *ecs.World, e arche.Entity, dx, dy, dAngular float64) {
	mustSpace(w, "CorrectVelocity").CorrectVelocity(e, dx, dy, dAngular)
}

// CorrectVelocity is the package function CorrectVelocity for the Space's
// world.
func (s *Space) CorrectVelocity(e arche.Entity, dx, dy, dAngular float64) {
	b := s.mustBody(e, "CorrectVelocity")
	v, w := b.Velocity(), b.AngularVelocity()
	s.SetVelocity(e, ecs.Velocity{X: v.X + dx, Y: v.Y + dy, Angular: w + dAngular})
}

// moveBody sets b's pose and wakes it; shapes of static bodies (which cp does
// not update each step) are reindexed so queries and collisions see the new place.
// The push apart that the last step's contacts left for the next to apply
// (cp's bias velocity) goes: it was for where the body was, and would move
// it off the pose given (a crate teleported at rest landed 0.24 units off).
func (s *Space) moveBody(b *cp.Body, pose ecs.Transform) {
	if s.stepping {
		panic("physics: pose written during the physics step; write poses from systems, not from cp callbacks")
	}
	delete(s.pushTrim, b)
	if e, ok := EntityOf(b); ok && s.bodies.Has(e) {
		s.bodies.Get(e).placedAt = s.step + 1
	}
	static := b.GetType() == cp.BODY_STATIC
	if static {
		// What rests on it falls, or follows: cp wakes nothing for a
		// static body that moves.
		b.ActivateStatic(nil)
	}
	b.SetAngle(pose.Angle) // first: SetPosition places the origin by the angle
	b.SetPosition(cp.Vector{X: pose.X, Y: pose.Y})
	if static {
		b.EachShape(s.cp.ReindexShape)
		b.EachShape(s.wakeUnder) // and what it lands on
		return
	}
	cp.BodyUpdatePosition(b, 0) // moves nothing: clears the bias
}

// wakeUnder wakes the bodies whose shapes overlap the box of static shape
// sh where it now is.
func (s *Space) wakeUnder(sh *cp.Shape) {
	s.cp.BBQuery(sh.BB(), cp.SHAPE_FILTER_ALL, wakeShape, nil)
}

// wakeShape wakes the body of shape sh (a cp.SpaceBBQueryFunc).
func wakeShape(sh *cp.Shape, _ any) {
	if b := sh.Body(); b.GetType() == cp.BODY_DYNAMIC {
		b.Activate()
	}
}

func mustSpace(w *ecs.World, op string) *Space {
	s := Of(w)
	if s == nil {
		panic(fmt.Sprintf("physics: %s on a world without a Space; call physics.New first", op))
	}
	return s
}

func (s *Space) mustBody(e arche.Entity, op string) *cp.Body {
	if !s.w.Alive(e) || !s.bodies.Has(e) {
		panic(fmt.Sprintf("physics: %s on %v, which has no Body; attach one with Space.Attach", op, e))
	}
	return s.bodies.Get(e).CP
}
