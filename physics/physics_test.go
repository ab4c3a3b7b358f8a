package physics_test

import (
	"math"
	"testing"
	"time"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// rig is a world with a physics space on a schedule, and a recorder of the
// changes each step reported.
type rig struct {
	w       *ecs.World
	s       *physics.Space
	sched   *ecs.Schedule
	clk     *clock.Fake
	changes []ecs.Change
	spawn   generic.Map4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated]
}

func newRig(t testing.TB, cfg physics.Config) *rig {
	t.Helper()
	r := &rig{w: ecs.NewWorld()}
	r.w.SetReplicated(r.w.IDs.Transform)
	r.w.SetReplicated(r.w.IDs.Velocity)
	r.s = physics.New(r.w, cfg)
	r.clk = clock.NewFake(time.Unix(0, 0))
	r.sched = ecs.NewSchedule(r.w, r.clk, cfg.Step)
	r.sched.Add("physics", r.s)
	r.sched.Add("record", ecs.SystemFunc(func(w *ecs.World) {
		r.changes = append(r.changes[:0], w.Journal().Changes(w)...)
	}))
	r.spawn = generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated](r.w.Arche())
	r.sched.Advance() // start the clock
	return r
}

// tick advances the clock by one step and lets the schedule run it, as a game
// loop does.
func (r *rig) tick() {
	r.clk.Advance(r.sched.StepDuration())
	r.sched.Advance()
}

func (r *rig) entity(x, y float64) arche.Entity {
	return r.spawn.NewWith(&ecs.Transform{X: x, Y: y}, &ecs.Velocity{}, &ecs.NetworkIdentity{}, &ecs.Interpolated{})
}

func (r *rig) reported(e arche.Entity, id arche.ID) bool {
	for _, c := range r.changes {
		if c.Entity == e && c.Component == id {
			return true
		}
	}
	return false
}

func (r *rig) transform(e arche.Entity) ecs.Transform {
	return *(*ecs.Transform)(r.w.Arche().Get(e, r.w.IDs.Transform))
}

func (r *rig) interp(e arche.Entity) *ecs.Interpolated {
	return (*ecs.Interpolated)(r.w.Arche().Get(e, r.w.IDs.Interpolated))
}

func bodyPose(b *cp.Body) ecs.Transform {
	p := b.Position()
	return ecs.Transform{X: p.X, Y: p.Y, Angle: b.Angle()}
}

var ground = physics.Material{Friction: 0.8}

// fallingRig drops a ball from y=0 onto a static segment at y=100 under
// gravity (+y is down).
func fallingRig(t testing.TB) (*rig, arche.Entity) {
	r := newRig(t, physics.Config{Gravity: cp.Vector{Y: 600}})
	r.s.StaticSegment(cp.Vector{X: -200, Y: 100}, cp.Vector{X: 200, Y: 100}, 1, ground)
	e := r.entity(0, 0)
	r.s.AttachCircle(e, 10, physics.Material{Mass: 1, Friction: 0.8})
	return r, e
}

func TestFallingBodyReportsEveryMoveUntilItSleeps(t *testing.T) {
	r, e := fallingRig(t)
	b := r.s.BodyOf(e)
	ids := r.w.IDs
	prev := r.transform(e)
	sleptAt := -1
	for step := 1; step <= 600; step++ {
		r.sched.Step()
		now := r.transform(e)
		if got, want := now, bodyPose(b); got != want {
			t.Fatalf("step %d: Transform %v, body pose %v; they must be equal after every step", step, got, want)
		}
		if got := r.interp(e).Prev; got != prev {
			t.Fatalf("step %d: Interpolated.Prev = %v, want the pose before the step %v", step, got, prev)
		}
		if changed := now != prev; changed != r.reported(e, ids.Transform) {
			t.Fatalf("step %d: pose changed=%v but Transform reported=%v; every change, and only changes, must be reported", step, changed, !changed)
		}
		if step >= 2 && step <= 10 && !r.reported(e, ids.Transform) {
			t.Fatalf("step %d: the falling body reported no Transform", step)
		}
		if b.IsSleeping() && sleptAt < 0 {
			sleptAt = step
		}
		if sleptAt >= 0 && step > sleptAt && len(r.changes) != 0 {
			t.Fatalf("step %d: %d changes reported by a sleeping world (asleep since step %d), want none", step, len(r.changes), sleptAt)
		}
		prev = now
	}
	if sleptAt < 0 {
		t.Fatalf("the body never fell asleep in 600 steps (at %v); check the sleep thresholds", r.transform(e))
	}
	if y := r.transform(e).Y; y < 85 || y > 92 {
		t.Fatalf("resting y = %v, want about 89 (radius 10 on a segment of radius 1 at 100)", y)
	}
	if n := r.s.Awake(); n != 0 {
		t.Fatalf("Awake() = %d after sleeping, want 0", n)
	}
	if ip := r.interp(e); ip.Prev != r.transform(e) {
		t.Fatalf("asleep: Prev %v != Transform %v; a stopped body must be drawn at rest", ip.Prev, r.transform(e))
	}
}

func sleepAll(t *testing.T, r *rig) {
	t.Helper()
	for range 600 {
		r.sched.Step()
		if r.s.Awake() == 0 {
			return
		}
	}
	t.Fatal("bodies still awake after 600 steps")
}

func TestSetPoseSnapsAndWakes(t *testing.T) {
	r, e := fallingRig(t)
	sleepAll(t, r)
	b := r.s.BodyOf(e)
	to := ecs.Transform{X: 50, Y: -40, Angle: 1}
	physics.SetPose(r.w, e, to)
	if got := r.transform(e); got != to {
		t.Fatalf("Transform after SetPose = %v, want %v", got, to)
	}
	if got := bodyPose(b); got.X != to.X || got.Y != to.Y || got.Angle != to.Angle {
		t.Fatalf("body pose after SetPose = %v, want %v", got, to)
	}
	ip := r.interp(e)
	if !ip.Snap || ip.Prev != to {
		t.Fatalf("Interpolated after SetPose = %+v, want Snap and Prev = %v", *ip, to)
	}
	if b.IsSleeping() {
		t.Fatal("SetPose left the body asleep")
	}
	if r.w.Journal().Len() != 1 {
		t.Fatalf("SetPose reported %d changes, want 1 (Transform)", r.w.Journal().Len())
	}
	r.sched.Step()
	if ip := r.interp(e); ip.Snap || ip.Prev != to {
		t.Fatalf("one step after SetPose: Interpolated = %+v, want Snap cleared and Prev = the teleport pose %v", *ip, to)
	}
	r.sched.Step()
	if got := r.transform(e); got.Y <= to.Y {
		t.Fatalf("the teleported body did not fall: %v", got)
	}
}

func TestCorrectionsMoveBodyAndReport(t *testing.T) {
	r, e := fallingRig(t)
	sleepAll(t, r)
	b := r.s.BodyOf(e)
	before := r.transform(e)
	physics.CorrectPose(r.w, e, 3, -2, 0.5)
	want := ecs.Transform{X: before.X + 3, Y: before.Y - 2, Angle: before.Angle + 0.5}
	if got := r.transform(e); got != want {
		t.Fatalf("Transform after CorrectPose = %v, want %v", got, want)
	}
	if p := b.Position(); p.X != want.X || p.Y != want.Y || b.Angle() != want.Angle {
		t.Fatalf("body after CorrectPose at %v angle %v, want %v", p, b.Angle(), want)
	}
	if r.interp(e).Snap {
		t.Fatal("CorrectPose set Snap; a correction is blended, not snapped")
	}
	physics.CorrectVelocity(r.w, e, 30, 0, 2)
	if v := b.Velocity(); v.X != 30 || b.AngularVelocity() != 2 {
		t.Fatalf("body velocity after CorrectVelocity = %v, %v; want (30, _), 2", v, b.AngularVelocity())
	}
	vel := *(*ecs.Velocity)(r.w.Arche().Get(e, r.w.IDs.Velocity))
	if vel.X != 30 || vel.Angular != 2 {
		t.Fatalf("ecs.Velocity after CorrectVelocity = %+v", vel)
	}
	if n := r.w.Journal().Len(); n != 2 {
		t.Fatalf("corrections reported %d changes, want 2 (Transform, Velocity)", n)
	}
	r.sched.Step()
	if got := r.transform(e); got.X <= want.X {
		t.Fatalf("after a step with +x velocity the body is at %v, want x > %v", got, want.X)
	}
}

func TestOnlyMovedBodiesReport(t *testing.T) {
	r := newRig(t, physics.Config{})
	a := r.entity(0, 0)
	b := r.entity(500, 0)
	r.s.AttachCircle(a, 10, physics.Material{Mass: 1})
	r.s.AttachCircle(b, 10, physics.Material{Mass: 1})
	sleepAll(t, r)
	physics.SetVelocity(r.w, a, ecs.Velocity{X: 100})
	r.sched.Step()
	if !r.reported(a, r.w.IDs.Transform) {
		t.Fatal("the pushed body did not report its Transform")
	}
	if r.reported(b, r.w.IDs.Transform) || r.reported(b, r.w.IDs.Velocity) {
		t.Fatal("the sleeping body reported a change")
	}
	if n := r.s.Awake(); n != 1 {
		t.Fatalf("Awake() = %d, want 1", n)
	}
}

func TestRemovingEntityRemovesBody(t *testing.T) {
	r, e := fallingRig(t)
	b := r.s.BodyOf(e)
	r.sched.Step()
	r.w.Arche().RemoveEntity(e)
	if r.s.CP().ContainsBody(b) {
		t.Fatal("the removed entity's body is still in the space")
	}
	var shapes int
	r.s.CP().EachShape(func(sh *cp.Shape) {
		if sh.Body() == b {
			shapes++
		}
	})
	if shapes != 0 {
		t.Fatalf("%d shapes of the removed body are still in the space", shapes)
	}
	for range 5 {
		r.sched.Step()
	}
	if n := r.s.Awake(); n != 0 {
		t.Fatalf("Awake() = %d after removal, want 0", n)
	}
}

func TestRemovingBodyComponentRemovesBody(t *testing.T) {
	r, e := fallingRig(t)
	b := r.s.BodyOf(e)
	m := generic.NewMap1[physics.Body](r.w.Arche())
	m.Remove(e)
	if r.s.CP().ContainsBody(b) {
		t.Fatal("the body is still in the space after its Body component was removed")
	}
	r.sched.Step()
	if got := r.transform(e); got != (ecs.Transform{}) {
		t.Fatalf("an entity without Body moved to %v", got)
	}
}

func TestRemovalDuringStepWaitsForStepEnd(t *testing.T) {
	r, e := fallingRig(t)
	b := r.s.BodyOf(e)
	b.EachShape(func(sh *cp.Shape) { sh.SetCollisionType(7) })
	h := r.s.CP().NewWildcardCollisionHandler(7)
	h.BeginFunc = func(arb *cp.Arbiter, _ *cp.Space, _ any) bool {
		ba, _ := arb.Bodies()
		if ent, ok := physics.EntityOf(ba); ok {
			r.w.Arche().RemoveEntity(ent)
		}
		return true
	}
	for step := 0; step < 120 && r.w.Alive(e); step++ {
		r.sched.Step()
	}
	if r.w.Alive(e) {
		t.Fatal("the body never touched the ground")
	}
	if r.s.CP().ContainsBody(b) {
		t.Fatal("an entity removed from a collision callback left its body in the space")
	}
}

func TestGroundFrictionStopsBodies(t *testing.T) {
	r := newRig(t, physics.Config{})
	e := r.entity(0, 0)
	r.s.AttachBox(e, 20, 20, 0, physics.Material{Mass: 1, Velocity: physics.GroundFriction(200)})
	physics.SetVelocity(r.w, e, ecs.Velocity{X: 100, Angular: 3})
	for range 60 {
		r.sched.Step()
	}
	b := r.s.BodyOf(e)
	if v := b.Velocity(); v.X != 0 || v.Y != 0 || b.AngularVelocity() != 0 {
		t.Fatalf("after 1 s at 200 units/s² a body sliding at 100 units/s still moves: v=%v ω=%v", v, b.AngularVelocity())
	}
	if x := r.transform(e).X; x < 20 || x > 30 {
		t.Fatalf("slid to x = %v, want about 25 (v²/2a)", x)
	}
	sleepAll(t, r)
}

func TestSecondSpacePanics(t *testing.T) {
	r := newRig(t, physics.Config{})
	defer func() {
		if recover() == nil {
			t.Fatal("a second Space for one world did not panic")
		}
	}()
	physics.New(r.w, physics.Config{})
}

// A networked body teleported by hand (its Transform written, then
// MutateComponent and ReportTeleport) goes there, drawn as a jump: between
// steps or by a system before the physics step, at the step; by a system
// after it, at the end of the frame (Space.Teleports). Asleep, the body
// stayed where it was while every client drew it at the written pose;
// awake, the step put the Transform back where the body was.
func TestATeleportWrittenByHandMovesTheBody(t *testing.T) {
	to := ecs.Transform{X: 50, Y: -40, Angle: 1}
	teleport := func(w *ecs.World, e arche.Entity) {
		*(*ecs.Transform)(w.Arche().Get(e, w.IDs.Transform)) = to
		ecs.MutateComponent(w, e, w.IDs.Transform)
		ecs.ReportTeleport(w, e)
	}
	for _, after := range []bool{false, true} {
		for _, asleep := range []bool{true, false} {
			r, e := fallingRig(t)
			now := false // the later system teleports at this step
			r.sched.Add("later", ecs.SystemFunc(func(w *ecs.World) {
				if now {
					now = false
					teleport(w, e)
				}
			}))
			r.sched.AddTo(ecs.StageOutput, "physics.teleports", r.s.Teleports())
			if asleep {
				sleepAll(t, r)
			} else {
				r.sched.Step()
			}
			if after {
				now = true
			} else {
				teleport(r.w, e)
			}
			r.sched.Step()
			b := r.s.BodyOf(e)
			got := r.transform(e)
			fell := 5.0
			if after {
				fell = 0 // no step since
			}
			if got != bodyPose(b) || math.Abs(got.X-to.X) > 1e-9 || got.Y < to.Y || got.Y > to.Y+fell+1e-9 || math.Abs(got.Angle-to.Angle) > 1e-9 {
				t.Errorf("after %v, asleep %v: the Transform is %v and the body %v, want both at %v, fallen at most %v", after, asleep, got, bodyPose(b), to, fell)
			}
			if ip := r.interp(e); !ip.Snap || ip.Prev != to {
				t.Errorf("after %v, asleep %v: Interpolated %+v, want a jump drawn from %v", after, asleep, *ip, to)
			}
			r.sched.Step()
			r.sched.Step() // a body woken at rest moves at its second step
			if got := r.transform(e); got.X != to.X || got.Y <= to.Y || got != bodyPose(b) {
				t.Errorf("after %v, asleep %v: two steps later the Transform is %v and the body %v, want both fallen from %v", after, asleep, got, bodyPose(b), to)
			}
		}
	}
}

// A kinematic body (Material.Kinematic) moves at the velocity set, under
// gravity and against a falling body it carries, reporting its moves; the
// body lands on it and rides it.
func TestAKinematicPlatformCarriesABody(t *testing.T) {
	r := newRig(t, physics.Config{Gravity: cp.Vector{Y: 600}})
	platform := r.entity(0, 100)
	r.s.AttachBox(platform, 200, 10, 0, physics.Material{Kinematic: true, Friction: 1})
	if b := r.s.BodyOf(platform); b.GetType() != cp.BODY_KINEMATIC {
		t.Fatalf("a Kinematic material gave a body of type %v", b.GetType())
	}
	physics.SetVelocity(r.w, platform, ecs.Velocity{X: 60})
	rider := r.entity(0, 60)
	r.s.AttachBox(rider, 20, 20, 0, physics.Material{Mass: 1, Friction: 1})
	for range 120 {
		r.tick()
	}
	p, q := r.transform(platform), r.transform(rider)
	if math.Abs(p.X-120) > 1 || p.Y != 100 {
		t.Fatalf("after 2 s at 60 units/s the platform is at %v, want (120, 100): a kinematic body moves at its velocity alone", p)
	}
	if v := r.s.BodyOf(rider).Velocity(); math.Abs(q.Y-(100-5-10)) > 1 || math.Abs(v.X-60) > 1 {
		t.Fatalf("the rider is at %v moving at %v on a platform at %v: want it standing on it and carried along at 60 units/s", q, v, p)
	}
}

// A body teleported at rest from where it was pressed into the ground stays
// where it was put: the push apart the ground's contact left for the next
// step is for the old place, not the new (a pushed crate landed 0.24 units
// off).
func TestATeleportAtRestStaysPut(t *testing.T) {
	r, e := fallingRig(t)
	r.s.SetPose(e, ecs.Transform{Y: 95}) // 15 units into the ground
	r.tick()                             // its contact pushes it out, and leaves a push for the next step
	to := ecs.Transform{X: 150, Y: -300}
	r.s.SetPose(e, to)
	r.s.SetVelocity(e, ecs.Velocity{})
	r.s.CP().SetGravity(cp.Vector{})
	r.tick()
	if got := bodyPose(r.s.BodyOf(e)); math.Hypot(got.X-to.X, got.Y-to.Y) > 1e-9 {
		t.Fatalf("teleported at rest to %v, the body is at %v a step later", to, got)
	}
}

// A static body (Material.Static) is attached to its entity as any body,
// costs no step (nothing awake among 300 of them, touching), stops what
// falls on it, and moves with SetPose, its shapes reindexed.
func TestStaticBodiesCostNoStep(t *testing.T) {
	r := newRig(t, physics.Config{Gravity: cp.Vector{Y: 600}})
	var walls []arche.Entity
	for i := range 300 {
		e := r.entity(float64(i)*19.5, 100) // 20 wide: each overlaps the next
		r.s.AttachBox(e, 20, 10, 0, physics.Material{Static: true, Friction: 1})
		walls = append(walls, e)
	}
	if b := r.s.BodyOf(walls[0]); b.GetType() != cp.BODY_STATIC {
		t.Fatalf("a Static material gave a body of type %v", b.GetType())
	}
	for range 10 {
		r.tick()
	}
	if n := r.s.Awake(); n != 0 {
		t.Fatalf("300 static walls: %d bodies stepped, want none", n)
	}
	ball := r.entity(100, 0)
	r.s.AttachCircle(ball, 5, physics.Material{Mass: 1, Friction: 1})
	for range 120 {
		r.tick()
	}
	if y := r.transform(ball).Y; math.Abs(y-(100-5-5)) > 1 {
		t.Fatalf("a ball dropped on the walls rests at y %.2f, want 90 (on the top of the walls)", y)
	}
	physics.SetPose(r.w, walls[5], ecs.Transform{X: 100, Y: 300})
	if hits := r.s.CP().PointQueryNearest(cp.Vector{X: 100, Y: 300}, 0, cp.SHAPE_FILTER_ALL); hits.Shape == nil || hits.Shape.Body() != r.s.BodyOf(walls[5]) {
		t.Fatal("a static wall moved by SetPose is not found where it was put")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a Material both Kinematic and Static was taken")
		}
	}()
	r.s.AttachBox(r.entity(0, 0), 1, 1, 0, physics.Material{Static: true, Kinematic: true})
}

// A static body moved with SetPose wakes what rested on it (a ball asleep
// on a barrier falls when the barrier goes) and what it lands on (a crate
// asleep where it lands is pushed out): cp wakes nothing for a static body
// that moves.
func TestAMovedStaticBodyWakesWhatItTouches(t *testing.T) {
	r := newRig(t, physics.Config{Gravity: cp.Vector{Y: 600}})
	wall := r.entity(100, 100)
	r.s.AttachBox(wall, 200, 10, 0, physics.Material{Static: true, Friction: 1})
	ball := r.entity(100, 0)
	r.s.AttachCircle(ball, 5, physics.Material{Mass: 1, Friction: 1})
	floor := r.entity(500, 400)
	r.s.AttachBox(floor, 400, 10, 0, physics.Material{Static: true, Friction: 1})
	crate := r.entity(500, 300)
	r.s.AttachBox(crate, 20, 20, 0, physics.Material{Mass: 1, Friction: 1})
	for range 240 {
		r.tick()
	}
	if n := r.s.Awake(); n != 0 {
		t.Fatalf("setup: %d bodies awake, want the ball and the crate asleep", n)
	}
	y0, c0 := r.transform(ball).Y, r.transform(crate)
	physics.SetPose(r.w, wall, ecs.Transform{X: 500, Y: 385}) // from under the ball onto the crate
	for range 60 {
		r.tick()
	}
	if y := r.transform(ball).Y; y < y0+50 {
		t.Fatalf("the barrier under a sleeping ball moved away; a second later the ball is at y %.1f (was %.1f), still in the air", y, y0)
	}
	if c := r.transform(crate); c == c0 {
		t.Fatalf("a barrier moved onto a sleeping crate left it where it was, inside the barrier: %v", c)
	}
}
