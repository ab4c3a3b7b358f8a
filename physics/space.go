package physics

import (
	"fmt"
	"math"
	"time"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// Config sets up a Space. The zero value is a top-down world at 60 Hz with no
// gravity, no damping and sleeping on.
type Config struct {
	// Step is the fixed simulation step; use the schedule's StepDuration.
	// Zero means ecs.DefaultStep.
	Step time.Duration
	// Gravity in world units per second squared.
	Gravity cp.Vector
	// Damping is the fraction of its velocity a body keeps after one second
	// of free motion (cp's space damping). Zero means 1: no damping.
	Damping float64
	// Iterations of cp's impulse solver per step. Zero means 10.
	Iterations int
	// SleepTime is how long a group of touching bodies must stay idle before
	// it falls asleep and stops costing anything. Zero means 500 ms; a
	// negative value turns sleeping off.
	SleepTime time.Duration
	// IdleSpeed is the speed, in world units per second, below which a body
	// counts as idle. Zero means 1 unit/s without gravity, and cp's choice
	// (|Gravity| × Step) with it.
	IdleSpeed float64
}

// Space is the bridge between one ecs.World and one cp.Space. It is stored as
// the world's resource (see Of) and is the System that steps the physics.
//
// Create it with New. Not safe for concurrent use.
type Space struct {
	w      *ecs.World
	cp     *cp.Space
	dt     float64
	bodyID arche.ID

	bodies     generic.Map[Body]
	transforms generic.Map[ecs.Transform]
	velocities generic.Map[ecs.Velocity]
	interps    generic.Map[ecs.Interpolated]
	attach     generic.Map1[Body]
	// byEntity holds each attached entity's body by arche entity id, for
	// removals notified after the component is gone.
	byEntity []*cp.Body

	// step numbers the steps taken; Body.movedAt compares against it.
	step uint64
	// stepping is true while cp.Space.Step runs.
	stepping bool
	// moved collects the bodies cp integrated in the current step (filled by
	// the position hook). movedNow / movedLast are the entities that moved in
	// this and the previous step; their backing arrays are swapped, reused.
	moved     []*cp.Body
	movedNow  []arche.Entity
	movedLast []arche.Entity
	// snapped are the entities whose Snap flag the next step clears.
	snapped []arche.Entity
	// seen are the teleports reported before this frame's step, which
	// Update took: Teleports takes only those reported after.
	seen []arche.Entity
	// integrate is the position hook shared by every body (one closure).
	integrate cp.BodyPositionFunc
	// integratePushPosition is integratePushed as a cp.BodyPositionFunc
	// (made once: a method value allocates).
	integratePushPosition cp.BodyPositionFunc
	shapes                []*cp.Shape // scratch for removals
	listener              bodyListener
	sweep                 sweep // ClampTravel's query
	// sup are the contacts supports found for supBody, with supportOf
	// (addSupport, made once) its arbiter callback.
	sup       []support
	supBody   *cp.Body
	supportOf func(*cp.Arbiter)
	// unsolid holds the shapes of the bodies SetSolid took out of the
	// space, to put back.
	unsolid map[*cp.Body][]*cp.Shape
	// deferred is what was asked while cp stepped (runDeferred).
	deferred []deferredOp
	// stepFrame is the world frame of the last step.
	stepFrame ecs.Frame
	// pushNext are the pushes SetPush gave the bodies' next moves.
	pushNext map[*cp.Body]push
	// pushTrim are, for the bodies CorrectPose moved since the last step,
	// the normals along which their next moves drop the push.
	pushTrim map[*cp.Body]trim
}

// New creates the physics bridge for w, registers the Body component, listens
// for removed bodies and stores the Space as w's resource. It panics if w
// already has one.
func New(w *ecs.World, cfg Config) *Space {
	if Of(w) != nil {
		panic("physics: the world already has a Space; use physics.Of(world) to get it")
	}
	if cfg.Step <= 0 {
		cfg.Step = ecs.DefaultStep
	}
	if cfg.Damping == 0 {
		cfg.Damping = 1
	}
	if cfg.Iterations <= 0 {
		cfg.Iterations = 10
	}
	if cfg.SleepTime == 0 {
		cfg.SleepTime = 500 * time.Millisecond
	}
	if cfg.IdleSpeed == 0 && cfg.Gravity.LengthSq() == 0 {
		cfg.IdleSpeed = 1
	}
	a := w.Arche()
	s := &Space{
		w:          w,
		cp:         cp.NewSpace(),
		dt:         cfg.Step.Seconds(),
		bodyID:     arche.ComponentID[Body](a),
		bodies:     generic.NewMap[Body](a),
		transforms: generic.NewMap[ecs.Transform](a),
		velocities: generic.NewMap[ecs.Velocity](a),
		interps:    generic.NewMap[ecs.Interpolated](a),
		attach:     generic.NewMap1[Body](a),
	}
	s.cp.SetGravity(cfg.Gravity)
	s.cp.SetDamping(cfg.Damping)
	s.cp.Iterations = uint(cfg.Iterations)
	if cfg.SleepTime > 0 {
		s.cp.SleepTimeThreshold = cfg.SleepTime.Seconds()
	} else {
		s.cp.SleepTimeThreshold = math.MaxFloat64
	}
	s.cp.IdleSpeedThreshold = cfg.IdleSpeed
	s.integrate = s.integrateBody
	s.integratePushPosition = s.integratePushed
	s.supportOf = s.addSupport
	s.listener = bodyListener{s: s, mask: arche.All(s.bodyID)}
	w.AddListener(&s.listener)
	ecs.AddResource(w, s)
	return s
}

// Of returns the Space of w, or nil if New was not called for it.
func Of(w *ecs.World) *Space {
	a := w.Arche()
	// arche's GetResource panics, rather than returning nil, when the
	// resource is absent: ask first.
	if !a.Resources().Has(arche.ResourceID[Space](a)) {
		return nil
	}
	return ecs.Resource[Space](w)
}

// CP returns the cp space, for what this package does not wrap: static
// geometry, collision handlers, queries. Do not add or remove dynamic bodies
// with it; use Attach and entity removal.
func (s *Space) CP() *cp.Space { return s.cp }

// StepSeconds returns the fixed step in seconds.
func (s *Space) StepSeconds() float64 { return s.dt }

// BodyID returns the arche component id of Body in this world.
func (s *Space) BodyID() arche.ID { return s.bodyID }

// Awake returns how many bodies cp integrated in the last step: the awake
// dynamic and kinematic ones. Sleeping bodies are not counted.
func (s *Space) Awake() int { return len(s.moved) }

// StaticSegment adds a static segment from a to b with radius r (world
// units) to the space, with friction and elasticity from m (its Mass is
// ignored), and returns the shape.
func (s *Space) StaticSegment(a, b cp.Vector, r float64, m Material) *cp.Shape {
	sh := s.cp.AddShape(cp.NewSegment(s.cp.StaticBody, a, b, r))
	sh.SetFriction(m.Friction)
	sh.SetElasticity(m.Elasticity)
	return sh
}

func (s *Space) checkWorld(w *ecs.World) {
	if w != s.w {
		panic(fmt.Sprintf("physics: Space of world %p updated with world %p; add each world's own Space to its schedule", s.w, w))
	}
}
