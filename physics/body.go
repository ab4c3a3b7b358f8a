package physics

import (
	"fmt"
	"sync"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/ecs/event"
)

// Body links an entity to its cp body. The body's UserData holds the entity
// (an arche.Entity value). Add it only through Space.Attach, AttachCircle or
// AttachBox; removing the component or the entity removes the body from the
// space.
//
// Read the body through CP for queries; write pose and velocity through
// SetPose, SetVelocity, CorrectPose and CorrectVelocity, which keep the
// entity's components equal to the body and report the writes.
type Body struct {
	// CP is the entity's body in the space. Owned by the Space.
	CP *cp.Body
	// movedAt is the Space step in which the body last moved.
	movedAt uint64
	// placedAt is the Space step after which Move, SetPose or a
	// correction of a body of no mass last put the body somewhere, plus
	// one (0: never): a contact with it since is not one its step made
	// (CorrectPose).
	placedAt uint64
	// push is the push apart its last move took besides its velocity, at
	// step pushStep (Push).
	push     push
	pushStep uint64
	// velocity is its Material's Velocity, nil for cp's own (Carry).
	velocity cp.BodyVelocityFunc
}

// Material describes a body's mass and surface.
type Material struct {
	// Mass in the game's mass unit; must be > 0 for a dynamic body.
	Mass float64
	// Friction is the shapes' Coulomb friction coefficient (0 = ice).
	Friction float64
	// Elasticity is the shapes' restitution: 0 no bounce, 1 perfect bounce.
	Elasticity float64
	// Velocity, when set, replaces cp's velocity integrator for the body:
	// GroundFriction, for example. The step runs it for awake bodies, and
	// Space.Carry runs it to carry a coasting body's state forward (a
	// client's remote bodies): it reads the body's velocity and sets it,
	// as cp.BodyUpdateVelocity does.
	Velocity cp.BodyVelocityFunc
	// Kinematic makes AttachCircle and AttachBox give a kinematic body: it
	// moves only by the velocity a system sets (SetVelocity: a moving
	// platform, a door, a lift), nothing pushes it, and what it meets it
	// pushes as an infinite mass would; Mass is not used, and leave
	// Velocity unset (cp would run it on the body each step). A host's is
	// replicated as any body (Transform and Velocity); move it from a system
	// that runs on the host alone, and attach it alike on a client
	// (Game.Arrived), where the host's state puts it. A body standing on it
	// rides it under gravity, with friction on both (cp multiplies the
	// two), as long as the rider's own systems add to its velocity rather
	// than set it.
	Kinematic bool
	// Static makes AttachCircle and AttachBox give a static body: a wall, a
	// barrier, a rock the host places and nothing moves, networked (its
	// entity is replicated, sent once) and yet costing no step: cp never
	// integrates or wakes it, where a kinematic body is stepped every step
	// and meets its neighbours (300 kinematic barriers, touching, cost a
	// trial 0.7–1 ms a step). Mass and Velocity are not used. SetPose moves
	// it (its shapes reindexed), as a teleport; do not set its velocity.
	// Not with Kinematic.
	Static bool
}

// newBodies serializes cp.NewBody, which counts bodies in a package-level
// variable: worlds stepped on different goroutines (a host and a client in one
// process) create bodies at the same time.
var newBodies sync.Mutex

// NewBody returns a new dynamic cp body of mass and moment of inertia (see
// cp.MomentForCircle and friends) for Attach. Use it instead of cp.NewBody,
// which is not safe while another goroutine creates a body for another world.
func NewBody(mass, moment float64) *cp.Body {
	newBodies.Lock()
	defer newBodies.Unlock()
	return cp.NewBody(mass, moment)
}

// NewKinematicBody returns a new kinematic cp body for Attach (see
// Material.Kinematic), safe as NewBody is.
func NewKinematicBody() *cp.Body {
	newBodies.Lock()
	defer newBodies.Unlock()
	return cp.NewKinematicBody()
}

// NewStaticBody returns a new static cp body for Attach (see
// Material.Static), safe as NewBody is.
func NewStaticBody() *cp.Body {
	newBodies.Lock()
	defer newBodies.Unlock()
	return cp.NewStaticBody()
}

// newBodyOf returns the body material m asks for: kinematic, static, or
// dynamic of its mass and the moment moment gives.
func newBodyOf(m Material, moment func() float64) *cp.Body {
	switch {
	case m.Kinematic && m.Static:
		panic("physics: a Material both Kinematic and Static; a body is one or the other")
	case m.Kinematic:
		return NewKinematicBody()
	case m.Static:
		return NewStaticBody()
	}
	return NewBody(mustMass(m.Mass), moment())
}

// AttachCircle gives entity e a dynamic circular body (kinematic, with
// m.Kinematic; static, with m.Static) of radius r (world units) centred on the entity, and returns
// the shape for filters and collision types. See Attach for what e must
// have.
func (s *Space) AttachCircle(e arche.Entity, r float64, m Material) *cp.Shape {
	b := newBodyOf(m, func() float64 { return cp.MomentForCircle(m.Mass, 0, r, cp.Vector{}) })
	sh := cp.NewCircle(b, r, cp.Vector{})
	s.Attach(e, b, m, sh)
	return sh
}

// AttachBox gives entity e a dynamic box body (kinematic, with
// m.Kinematic; static, with m.Static) of width w and height h with corner radius r (world units),
// centred on the entity, and returns the shape. See Attach for what e must
// have.
func (s *Space) AttachBox(e arche.Entity, w, h, r float64, m Material) *cp.Shape {
	b := newBodyOf(m, func() float64 { return cp.MomentForBox(m.Mass, w, h) })
	sh := cp.NewBox(b, w, h, r)
	s.Attach(e, b, m, sh)
	return sh
}

// Attach adds body b (made with NewBody, NewKinematicBody or NewStaticBody) with its shapes to the space and
// links it to entity e, which must have ecs.Transform and ecs.Velocity and
// no Body yet: the body starts at the entity's pose and velocity. m's friction and elasticity are
// set on the shapes and m.Velocity, if set, on the body. Attach makes a
// structural change: do not call it while a query is open.
//
// From then on the Space owns b: it sets b's UserData and position hook.
func (s *Space) Attach(e arche.Entity, b *cp.Body, m Material, shapes ...*cp.Shape) {
	if !s.w.Alive(e) {
		panic(fmt.Sprintf("physics: Attach to dead entity %v", e))
	}
	if !s.transforms.Has(e) || !s.velocities.Has(e) {
		panic(fmt.Sprintf("physics: Attach to %v, which lacks ecs.Transform or ecs.Velocity; create the entity with both", e))
	}
	if s.bodies.Has(e) {
		panic(fmt.Sprintf("physics: %v already has a Body; remove the Body component before attaching another", e))
	}
	if s.stepping {
		panic("physics: Attach during the physics step; attach bodies from systems, not from cp callbacks")
	}
	t := s.transforms.Get(e)
	v := s.velocities.Get(e)
	b.SetPosition(cp.Vector{X: t.X, Y: t.Y})
	b.SetAngle(t.Angle)
	b.SetVelocity(v.X, v.Y)
	b.SetAngularVelocity(v.Angular)
	b.UserData = e
	b.SetPositionUpdateFunc(s.integrate)
	if m.Velocity != nil {
		b.SetVelocityUpdateFunc(m.Velocity)
	}
	s.cp.AddBody(b)
	for _, sh := range shapes {
		sh.SetFriction(m.Friction)
		sh.SetElasticity(m.Elasticity)
		s.cp.AddShape(sh)
	}
	s.attach.Assign(e, &Body{CP: b, velocity: m.Velocity})
	i := int(e.ID())
	for i >= len(s.byEntity) {
		s.byEntity = append(s.byEntity, nil)
	}
	s.byEntity[i] = b
}

// BodyOf returns the cp body of e, or nil if e has none.
func (s *Space) BodyOf(e arche.Entity) *cp.Body {
	if !s.w.Alive(e) || !s.bodies.Has(e) {
		return nil
	}
	return s.bodies.Get(e).CP
}

// EntityOf returns the entity a body belongs to, or ok == false for a body
// the Space did not attach (static geometry, for one).
func EntityOf(b *cp.Body) (e arche.Entity, ok bool) {
	e, ok = b.UserData.(arche.Entity)
	return e, ok
}

func mustMass(m float64) float64 {
	if !(m > 0) {
		panic(fmt.Sprintf("physics: body mass %v; a dynamic body needs a mass > 0", m))
	}
	return m
}

// detach removes b and its shapes from the cp space.
func (s *Space) detach(b *cp.Body) {
	if b == nil || !s.cp.ContainsBody(b) {
		return
	}
	if s.stepping {
		// cp forbids removals during its step (its post-step callbacks
		// included): Update makes it once the step returned.
		s.deferred = append(s.deferred, deferredOp{b: b, op: deferRemove})
		return
	}
	s.remove(b)
}

// remove takes b and its shapes out of the unlocked cp space.
func (s *Space) remove(b *cp.Body) {
	s.shapes = s.shapes[:0]
	b.EachShape(func(sh *cp.Shape) { s.shapes = append(s.shapes, sh) })
	for i, sh := range s.shapes {
		s.cp.RemoveShape(sh)
		s.shapes[i] = nil
	}
	delete(s.unsolid, b) // its shapes are out already
	delete(s.pushNext, b)
	delete(s.pushTrim, b)
	s.cp.RemoveBody(b)
	b.UserData = nil
}

// bodyListener removes bodies from the space when their entity or Body
// component is removed. arche notifies a removed entity before the removal
// but a removed component after it, when the component can no longer be read:
// the Space finds the body by entity id instead.
type bodyListener struct {
	s    *Space
	mask arche.Mask
}

// Notify implements arche's Listener.
func (l *bodyListener) Notify(world *arche.World, evt arche.EntityEvent) {
	if !evt.Removed.Get(l.s.bodyID) {
		return
	}
	s := l.s
	if i := int(evt.Entity.ID()); i < len(s.byEntity) {
		b := s.byEntity[i]
		s.byEntity[i] = nil
		s.detach(b)
	}
}

// Subscriptions implements arche's Listener.
func (l *bodyListener) Subscriptions() event.Subscription {
	return event.EntityRemoved | event.ComponentRemoved
}

// Components implements arche's Listener: only Body matters.
func (l *bodyListener) Components() *arche.Mask { return &l.mask }
