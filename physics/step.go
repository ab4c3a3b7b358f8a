package physics

import (
	"slices"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// integrateBody is the position hook of every attached body. cp calls it once
// per step for each awake body and never for sleeping or static ones, which
// makes it the list of what may have moved.
func (s *Space) integrateBody(b *cp.Body, dt float64) {
	cp.BodyUpdatePosition(b, dt)
	s.moved = append(s.moved, b)
}

// integratePushed is integrateBody for a body whose pushes are asked for
// (Push, SetPush): it keeps the push apart the body moved by besides its
// velocity (cp's bias velocity, from the last step's contacts), or, asked
// by SetPush, gives the push asked for in its place.
func (s *Space) integratePushed(b *cp.Body, dt float64) {
	cog := b.CenterOfGravity()
	c0, a0 := b.LocalToWorld(cog), b.Angle()
	v, w := b.Velocity(), b.AngularVelocity()
	cp.BodyUpdatePosition(b, dt)
	c1 := b.LocalToWorld(cog)
	used := push{X: (c1.X-c0.X)/dt - v.X, Y: (c1.Y-c0.Y)/dt - v.Y, Angular: (b.Angle()-a0)/dt - w}
	want, set := s.pushNext[b]
	if set {
		delete(s.pushNext, b)
	} else {
		want = used
	}
	if t, ok := s.pushTrim[b]; ok {
		delete(s.pushTrim, b)
		want = t.apply(want, dt)
		set = true
	}
	if set {
		b.SetAngle(b.Angle() + (want.Angular-used.Angular)*dt)
		p := b.Position()
		b.SetPosition(cp.Vector{X: p.X + (want.X-used.X)*dt, Y: p.Y + (want.Y-used.Y)*dt})
		used = want
	}
	if e, ok := EntityOf(b); ok && s.bodies.Has(e) {
		bd := s.bodies.Get(e)
		bd.push, bd.pushStep = used, s.step
	}
	s.moved = append(s.moved, b)
}

// Update steps the physics by one fixed step and brings the ECS up to date; it
// makes the Space an ecs.System. Add it to the world's schedule after the
// systems that push bodies and before those that read the result.
//
// For every body cp integrated it copies position and angle into
// ecs.Transform and velocities into ecs.Velocity, reporting each component
// whose value changed with ecs.MutateComponent. For entities with
// ecs.Interpolated it sets Prev to the pose before the step; entities that
// moved in the previous step but not in this one get Prev = Transform, so they
// are drawn at rest. Cost: the awake bodies and those that just stopped;
// sleeping bodies cost nothing. Allocates nothing in steady state.
func (s *Space) Update(w *ecs.World) {
	s.checkWorld(w)
	s.step++
	s.stepFrame = w.Frame()
	for _, e := range s.snapped {
		if w.Alive(e) && s.interps.Has(e) {
			s.interps.Get(e).Snap = false
		}
	}
	s.snapped = s.snapped[:0]
	s.adopt(w, false)

	s.moved = s.moved[:0]
	s.stepping = true
	s.cp.Step(s.dt)
	s.stepping = false
	clear(s.pushNext) // for this step only: a body that did not move drops it
	clear(s.pushTrim)
	s.runDeferred()

	ids := &w.IDs
	s.movedNow = s.movedNow[:0]
	for _, b := range s.moved {
		e, ok := EntityOf(b)
		if !ok || !w.Alive(e) {
			continue // removed during the step
		}
		if !s.transforms.Has(e) || !s.velocities.Has(e) {
			// Its Transform or Velocity was taken away (a client's world
			// applying a host's state without them): the body has nowhere
			// to write, and moves on its own until it goes.
			continue
		}
		s.bodies.Get(e).movedAt = s.step
		s.movedNow = append(s.movedNow, e)

		t := s.transforms.Get(e)
		if s.interps.Has(e) {
			s.interps.Get(e).Prev = *t
		}
		p := b.Position()
		pose := ecs.Transform{X: p.X, Y: p.Y, Angle: b.Angle()}
		if pose != *t {
			*t = pose
			ecs.MutateComponent(w, e, ids.Transform)
		}
		v := b.Velocity()
		vel := ecs.Velocity{X: v.X, Y: v.Y, Angular: b.AngularVelocity()}
		if vp := s.velocities.Get(e); vel != *vp {
			*vp = vel
			ecs.MutateComponent(w, e, ids.Velocity)
		}
	}
	// Bodies that stopped (fell asleep) this step: draw them at rest, and
	// say they are at rest. cp leaves a body the speed it fell asleep
	// with, below its idle speed but not zero (a box settled on another
	// under gravity: a few tenths of a unit a second); reported, a client
	// never took the body for at rest (its rest lock), and was corrected
	// at every state for as long as it slept. Its body keeps that speed
	// (setting it would wake it), reported again once it wakes.
	for _, e := range s.movedLast {
		if !w.Alive(e) || !s.bodies.Has(e) || s.bodies.Get(e).movedAt == s.step {
			continue
		}
		if s.interps.Has(e) && s.transforms.Has(e) {
			ip := s.interps.Get(e)
			ip.Prev = *s.transforms.Get(e)
		}
		if b := s.bodies.Get(e).CP; b != nil && b.IsSleeping() && s.velocities.Has(e) {
			if vp := s.velocities.Get(e); *vp != (ecs.Velocity{}) {
				*vp = ecs.Velocity{}
				ecs.MutateComponent(w, e, ids.Velocity)
			}
		}
	}
	s.movedNow, s.movedLast = s.movedLast, s.movedNow
}

// StepFrame returns the world frame of the Space's last step (Update), 0
// before the first.
func (s *Space) StepFrame() ecs.Frame { return s.stepFrame }

// Moved returns the entities whose bodies the last Update moved (cp
// integrated them: they were awake), valid until the next Update; do not
// change it.
func (s *Space) Moved() []arche.Entity { return s.movedLast }

// adopt puts the body of each networked entity reported teleported this
// frame (ecs.ReportTeleport after a Transform written by hand) where its
// Transform says, as SetPose does: drawn as a jump. Without it the body
// stayed where it was: asleep, apart from what every client drew; awake,
// undoing the teleport at its next move. A teleport of SetPose's, or one
// taken already, left the two equal: nothing to do. Other writes are not
// taken (a client keeps a remote body apart from its Transform on purpose:
// the host's pose carried forward). Update calls it first, for what was
// reported before the step, and keeps the reports it saw; Teleports, late
// in the frame, for those reported after the step (late), each report
// once. Cost: the frame's teleports.
func (s *Space) adopt(w *ecs.World, late bool) {
	reports := w.Journal().Teleported(w)
	if !late {
		s.seen = append(s.seen[:0], reports...)
	}
	for _, e := range reports {
		if late {
			// A report Update took is not taken again: a client has put a
			// remote body ahead of its Transform since, on purpose.
			if i := slices.Index(s.seen, e); i >= 0 {
				s.seen[i] = arche.Entity{}
				continue
			}
		}
		if !s.bodies.Has(e) {
			continue
		}
		b := s.bodies.Get(e).CP
		t := *s.transforms.Get(e)
		if b.Position() == (cp.Vector{X: t.X, Y: t.Y}) && b.Angle() == t.Angle {
			continue
		}
		s.moveBody(b, t) // and wakes it
		if s.interps.Has(e) {
			ip := s.interps.Get(e)
			ip.Prev, ip.Snap = t, true
			s.snapped = append(s.snapped, e)
		}
	}
	if late {
		s.seen = s.seen[:0]
	}
}

// Teleports returns the system that puts each body teleported by hand
// after the physics step (by a system later in the frame: a Transform
// written, ecs.MutateComponent and ecs.ReportTeleport) where its Transform
// says, as SetPose would have: the frame's reports are gone by the next
// step. Add it at the end of the frame, as
// sched.AddTo(ecs.StageOutput, "physics.teleports", space.Teleports());
// the tandem package's games have it. Update itself takes the teleports
// reported before it.
func (s *Space) Teleports() ecs.System {
	return ecs.SystemFunc(func(w *ecs.World) {
		s.checkWorld(w)
		s.adopt(w, true)
	})
}
