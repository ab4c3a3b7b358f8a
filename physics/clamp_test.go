package physics_test

import (
	"math"
	"testing"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// A correction of a box resting on a floor keeps it from going into the
// floor, and from moving towards or away from it faster, but not along it
// nor up off it, nor through it, past the floor's far side; a box in the
// air takes it whole.
func TestAClampKeepsARestingBodyOnItsFloor(t *testing.T) {
	r := newRig(t, physics.Config{Gravity: cp.Vector{Y: 600}})
	r.s.StaticSegment(cp.Vector{X: -200, Y: 100}, cp.Vector{X: 200, Y: 100}, 1, ground)
	box := r.entity(0, 89)
	r.s.AttachBox(box, 20, 20, 0, physics.Material{Mass: 1, Friction: 1})
	flier := r.entity(100, -300)
	r.s.AttachBox(flier, 20, 20, 0, physics.Material{Mass: 1})
	for range 60 {
		r.tick()
	}
	near := func(x, y, wx, wy float64) bool { return math.Abs(x-wx) < 0.2 && math.Abs(y-wy) < 0.2 }
	if x, y := r.s.ClampPose(box, 3, 5); !near(x, y, 3, 0) {
		t.Errorf("a correction of (3, 5) of a box on the floor (+y down) became (%.2f, %.2f), want (3, 0): along the floor, not into it", x, y)
	}
	if x, y := r.s.ClampPose(box, 2, 8); !near(x, y, 2, 0) {
		t.Errorf("a correction of (2, 8) of a box on the floor became (%.2f, %.2f), want (2, 0): its centre stays above the floor", x, y)
	}
	// The host has it under the floor (a client's box squeezed through
	// a thin wall, the host's on the other side): taken whole.
	if x, y := r.s.ClampPose(box, 0, 30); !near(x, y, 0, 30) {
		t.Errorf("a correction of (0, 30) of a box on a thin floor, past its far side, became (%.2f, %.2f), want it whole", x, y)
	}
	if x, y := r.s.ClampPose(box, 0, -5); !near(x, y, 0, -5) {
		t.Errorf("a correction of (0, -5) lifting it became (%.2f, %.2f), want it whole", x, y)
	}
	if x, y := r.s.ClampVelocity(box, 3, -40); !near(x, y, 3, 0) {
		t.Errorf("a velocity correction of (3, -40) became (%.2f, %.2f), want (3, 0): the floor decides how fast it leaves it", x, y)
	}
	if x, y := r.s.ClampPose(flier, 3, 5); !near(x, y, 3, 5) {
		t.Errorf("a correction of a falling box became (%.2f, %.2f), want (3, 5)", x, y)
	}
	if x, y := r.s.ClampVelocity(flier, 3, 5); !near(x, y, 3, 5) {
		t.Errorf("a velocity correction of a falling box became (%.2f, %.2f), want (3, 5)", x, y)
	}
}

// A correction from the host's state of a past frame, the host's body
// above the floor then, stops a body just above the floor (touching
// nothing) at its top, thick or thin; the host's body under a thin floor,
// the correction takes it through; a correction beside the floor's end,
// or from a host's body that falls fast enough to have landed since, is
// taken as it is.
func TestAClampFromTheHostsStateKeepsABodyOnItsSideOfTheFloor(t *testing.T) {
	r := newRig(t, physics.Config{})
	// A thick floor, its top at y = 100 (+y down), 20 deep; a thin one
	// beside it, its top at y = 99.
	r.s.StaticSegment(cp.Vector{X: -200, Y: 110}, cp.Vector{X: 0, Y: 110}, 10, ground)
	r.s.StaticSegment(cp.Vector{X: 300, Y: 100}, cp.Vector{X: 500, Y: 100}, 1, ground)
	box := r.entity(-100, 88) // its bottom 2 above the thick floor
	r.s.AttachBox(box, 20, 20, 0, physics.Material{Mass: 1, Friction: 1})
	thin := r.entity(400, 87)
	r.s.AttachBox(thin, 20, 20, 0, physics.Material{Mass: 1, Friction: 1})
	r.tick()
	near := func(x, y, wx, wy float64) bool { return math.Abs(x-wx) < 0.2 && math.Abs(y-wy) < 0.2 }
	falling := ecs.Velocity{Y: 300}
	for _, c := range []struct {
		what   string
		e      arche.Entity
		d      cp.Vector
		host   ecs.Transform
		v      ecs.Velocity
		wx, wy float64
	}{
		{"a box 2 above a thick floor, the host's above it", box, cp.Vector{X: 5, Y: 21}, ecs.Transform{X: -95, Y: 40}, falling, 5, 2},
		{"a box 2 above a thick floor, by less than the gap", box, cp.Vector{Y: 1}, ecs.Transform{X: -100, Y: 40}, falling, 0, 1},
		{"a box above a thick floor, the host's past its far side", box, cp.Vector{Y: 50}, ecs.Transform{X: -100, Y: 140}, ecs.Velocity{}, 0, 50},
		{"a box beside the floor's end", box, cp.Vector{X: -250, Y: 21}, ecs.Transform{X: -340, Y: 40}, falling, -250, 21},
		{"a box above a thin floor, the host's above it", thin, cp.Vector{Y: 30}, ecs.Transform{X: 400, Y: 40}, falling, 0, 2},
		{"a box above a thin floor, the host's under it", thin, cp.Vector{Y: 30}, ecs.Transform{X: 400, Y: 117}, ecs.Velocity{}, 0, 30},
	} {
		if x, y := r.s.ClampPoseFrom(c.e, c.d.X, c.d.Y, c.host, c.v, 0.1); !near(x, y, c.wx, c.wy) {
			t.Errorf("%s: a correction of (%.0f, %.0f) became (%.2f, %.2f), want (%.0f, %.0f)", c.what, c.d.X, c.d.Y, x, y, c.wx, c.wy)
		}
	}
	// Falling at 300 a second, its next step takes it 5 units down: the
	// correction stops 5 short of the top, and none is left of a gap of 2.
	physics.SetVelocity(r.w, thin, ecs.Velocity{Y: 300})
	if x, y := r.s.ClampPoseFrom(thin, 0, 30, ecs.Transform{X: 400, Y: 40}, falling, 0.1); !near(x, y, 0, 0) {
		t.Errorf("a correction of (0, 30) of a box 2 above a thin floor, falling at 300, became (%.2f, %.2f), want none", x, y)
	}
	physics.SetVelocity(r.w, box, ecs.Velocity{Y: 300})
	if x, y := r.s.ClampPoseFrom(box, 0, -10, ecs.Transform{X: -100, Y: 40}, falling, 0.1); !near(x, y, 0, -10) {
		t.Errorf("a correction of (0, -10) of a box above a floor, falling, became (%.2f, %.2f), want it whole: up, away from it", x, y)
	}
}

// A correction from the host's state lifting a box off the floor it rests
// on goes when the host's velocity towards the floor closed it in the time
// since, and only then; one along the floor stays; one into it stops at
// its top, unless the host's body was under the floor. A drawn offset into
// the floor goes, one out of it stays. ClampDrawn and ClampVelocity
// allocate nothing.
func TestALandingAndTheDrawnOffsetKeepToTheFloor(t *testing.T) {
	r := newRig(t, physics.Config{Gravity: cp.Vector{Y: 600}})
	r.s.StaticSegment(cp.Vector{X: -200, Y: 110}, cp.Vector{X: 200, Y: 110}, 10, ground)
	box := r.entity(0, 88)
	r.s.AttachBox(box, 20, 20, 0, physics.Material{Mass: 1, Friction: 1})
	for range 60 {
		r.tick()
	}
	near := func(x, y, wx, wy float64) bool { return math.Abs(x-wx) < 0.2 && math.Abs(y-wy) < 0.2 }
	above := ecs.Transform{X: 3, Y: 60}
	for _, c := range []struct {
		what   string
		d      cp.Vector
		host   ecs.Transform
		vy     float64
		wx, wy float64
	}{
		{"a lift, the host's falling at 300 for 0.1 s", cp.Vector{X: 3, Y: -4}, above, 300, 3, 0},
		{"a lift, the host's falling at 20 for 0.1 s (2 units)", cp.Vector{X: 3, Y: -4}, above, 20, 3, -4},
		{"a lift, the host's rising", cp.Vector{X: 3, Y: -4}, above, -300, 3, -4},
		{"into the floor, the host's above it", cp.Vector{X: 3, Y: 25}, above, 300, 3, 0},
		{"through the floor, the host's under it", cp.Vector{X: 3, Y: 45}, ecs.Transform{X: 3, Y: 135}, 0, 3, 45},
	} {
		if x, y := r.s.ClampPoseFrom(box, c.d.X, c.d.Y, c.host, ecs.Velocity{Y: c.vy}, 0.1); !near(x, y, c.wx, c.wy) {
			t.Errorf("%s: a correction of (%.0f, %.0f) of a box on the floor became (%.2f, %.2f), want (%.0f, %.0f)", c.what, c.d.X, c.d.Y, x, y, c.wx, c.wy)
		}
	}
	if x, y := r.s.ClampDrawn(box, 2, 30); !near(x, y, 2, 0) {
		t.Errorf("a drawn offset of (2, 30) of a box on the floor became (%.2f, %.2f), want (2, 0): not drawn in the floor, nor through it", x, y)
	}
	if x, y := r.s.ClampDrawn(box, 2, -30); !near(x, y, 2, -30) {
		t.Errorf("a drawn offset of (2, -30) above the floor became (%.2f, %.2f), want it whole", x, y)
	}
	if n := testing.AllocsPerRun(50, func() {
		r.s.ClampDrawn(box, 2, 30)
		r.s.ClampVelocity(box, 3, 4)
	}); n != 0 {
		t.Errorf("ClampDrawn and ClampVelocity allocate %.0f times, want none: the first runs every frame a drawn offset is left", n)
	}
}

// ClampPoseFrom's odd cases: a lift that moved since the host's frame is
// compared where it was then; a sensor does not widen the body; a disc on
// a slope reaches it by its radius, not its box's corner; a correction
// mostly along a floor, its centre's path nowhere near it, stops at its
// top all the same; one into a low crate from the side, its centre's path
// over it, stops at its face; one along a floor of tiles, from one onto
// the next, is not stopped at the seam.
func TestAClampFromTheHostsStateInOddCases(t *testing.T) {
	near := func(x, y, wx, wy float64) bool { return math.Abs(x-wx) < 0.2 && math.Abs(y-wy) < 0.2 }
	r := newRig(t, physics.Config{Gravity: cp.Vector{Y: 600}})
	// A lift rising at 150 a second, its top at y = 100 now, a rider on it.
	lift := r.entity(0, 110)
	r.s.AttachBox(lift, 200, 20, 0, physics.Material{Kinematic: true, Friction: 1})
	rider := r.entity(0, 90)
	r.s.AttachBox(rider, 20, 20, 0, physics.Material{Mass: 1, Friction: 1})
	r.s.BodyOf(rider).SetMoment(math.Inf(1))
	for range 3 {
		physics.SetVelocity(r.w, lift, ecs.Velocity{Y: -150})
		r.tick()
	}
	rising := ecs.Velocity{Y: -150}
	top := r.s.BodyOf(lift).Position().Y - 10
	c := r.s.BodyOf(rider).Position()
	// The host's rider 0.1 s ago stood on the lift where it was then,
	// 15 lower: into the lift, the correction is held at its top.
	host := ecs.Transform{X: c.X, Y: top + 15 - 10 + 1}
	if x, y := r.s.ClampPoseFrom(rider, 0, 3, host, rising, 0.1); !near(x, y, 0, 0) {
		t.Errorf("a correction of (0, 3) into a rising lift, the host's rider on it 0.1 s ago, became (%.2f, %.2f), want none: the lift was lower then", x, y)
	}

	r2 := newRig(t, physics.Config{})
	r2.s.StaticSegment(cp.Vector{X: -200, Y: 110}, cp.Vector{X: 200, Y: 110}, 10, ground)
	box := r2.entity(0, 78) // its bottom 12 above the floor's top
	r2.s.AttachBox(box, 20, 20, 0, physics.Material{Mass: 1})
	aura := cp.NewCircle(r2.s.BodyOf(box), 60, cp.Vector{})
	aura.SetSensor(true)
	r2.s.CP().AddShape(aura)
	disc := r2.entity(300, 0)
	r2.s.AttachCircle(disc, 10, physics.Material{Mass: 1})
	// A slope at 45 degrees under the disc, 10 from its centre.
	r2.s.StaticSegment(cp.Vector{X: 300 - 100, Y: 20*math.Sqrt2 + 100}, cp.Vector{X: 300 + 100, Y: 20*math.Sqrt2 - 100}, 0, ground)
	r2.tick()
	above := ecs.Transform{X: 0, Y: 40}
	if x, y := r2.s.ClampPoseFrom(box, 0, 30, above, ecs.Velocity{}, 0.1); !near(x, y, 0, 12) {
		t.Errorf("a correction of (0, 30) of a box 12 above the floor, with a sensor of radius 60, became (%.2f, %.2f), want (0, 12)", x, y)
	}
	if x, y := r2.s.ClampPoseFrom(box, 100, 15, above, ecs.Velocity{}, 0.1); !near(x, y, 100, 12) {
		t.Errorf("a correction of (100, 15) of a box 12 above the floor became (%.2f, %.2f), want (100, 12): its bottom on the floor's top", x, y)
	}
	// A low crate (x 40 to 60, 8 high) on a floor, a box on the floor
	// before it: put past it, the box's centre passes over the crate.
	r3 := newRig(t, physics.Config{})
	r3.s.StaticSegment(cp.Vector{X: -200, Y: 110}, cp.Vector{X: 200, Y: 110}, 10, ground)
	r3.s.StaticSegment(cp.Vector{X: 44, Y: 96}, cp.Vector{X: 56, Y: 96}, 4, ground)
	pusher := r3.entity(0, 90)
	r3.s.AttachBox(pusher, 20, 20, 0, physics.Material{Mass: 1})
	r3.tick()
	// Its reach is taken towards the crate's nearest point, at its
	// rounded corner: a little short of the face.
	if x, y := r3.s.ClampPoseFrom(pusher, 50, 0, ecs.Transform{X: 0, Y: 90}, ecs.Velocity{}, 0.1); x < 27.5 || x > 30 || y != 0 {
		t.Errorf("a correction of (50, 0) of a box into a low crate from the side became (%.2f, %.2f), want (27.5 to 30, 0): against its face", x, y)
	}
	if x, y := r3.s.ClampPoseFrom(pusher, 50, 0, ecs.Transform{X: 80, Y: 90}, ecs.Velocity{}, 0.1); !near(x, y, 50, 0) {
		t.Errorf("a correction of (50, 0) of a box into a low crate, the host's beyond it, became (%.2f, %.2f), want it whole", x, y)
	}

	// Tiles: a box resting on one, slid along the floor onto the next,
	// overlaps it by the resting slop alone and goes all the way.
	r3.s.CP().AddShape(cp.NewBox2(r3.s.CP().StaticBody, cp.BB{L: 300, B: 100, R: 400, T: 120}, 0))
	r3.s.CP().AddShape(cp.NewBox2(r3.s.CP().StaticBody, cp.BB{L: 400, B: 100, R: 500, T: 120}, 0))
	slider := r3.entity(350, 90.1) // resting a tenth into it, as cp leaves it
	r3.s.AttachBox(slider, 20, 20, 0, physics.Material{Mass: 1})
	r3.tick()
	if x, y := r3.s.ClampPoseFrom(slider, 100, 0, ecs.Transform{X: 350, Y: 90.1}, ecs.Velocity{}, 0.1); !near(x, y, 100, 0) {
		t.Errorf("a correction of (100, 0) of a box resting on a tile, onto the next, became (%.2f, %.2f), want it whole", x, y)
	}

	d := 10 / math.Sqrt2 // the disc's gap to the slope, along each axis
	if x, y := r2.s.ClampPoseFrom(disc, 30, 30, ecs.Transform{X: 300, Y: -20}, ecs.Velocity{}, 0.1); !near(x, y, d, d) {
		t.Errorf("a correction of (30, 30) of a disc 10 off a slope became (%.2f, %.2f), want (%.2f, %.2f): its edge on the slope", x, y, d, d)
	}
}

// A rider standing on a moving lift, and a crate at rest on the floor, are
// gripped: friction holds them to what they rest on. A box driven along the
// floor slides, and is not; nor is a body touching nothing.
func TestGrippedTellsARiderFromABodySlidingAlong(t *testing.T) {
	r := newRig(t, physics.Config{Gravity: cp.Vector{Y: 600}})
	r.s.StaticSegment(cp.Vector{X: -2000, Y: 100}, cp.Vector{X: 2000, Y: 100}, 1, ground)
	lift := r.entity(-600, 60)
	r.s.AttachBox(lift, 200, 10, 0, physics.Material{Kinematic: true, Friction: 1})
	physics.SetVelocity(r.w, lift, ecs.Velocity{X: 60})
	rider := r.entity(-600, 30)
	r.s.AttachBox(rider, 20, 20, 0, physics.Material{Mass: 1, Friction: 1})
	crate := r.entity(300, 89)
	r.s.AttachBox(crate, 20, 20, 0, physics.Material{Mass: 1, Friction: 1})
	slider := r.entity(0, 89)
	r.s.AttachBox(slider, 20, 20, 0, physics.Material{Mass: 1, Friction: 0.2})
	flier := r.entity(800, -400)
	r.s.AttachBox(flier, 20, 20, 0, physics.Material{Mass: 1})
	for range 60 {
		physics.SetVelocity(r.w, slider, ecs.Velocity{X: 200, Y: r.s.BodyOf(slider).Velocity().Y})
		r.tick()
	}
	for _, c := range []struct {
		name string
		e    arche.Entity
		want bool
	}{{"a rider on a lift moving at 60 units/s", rider, true}, {"a crate at rest on the floor", crate, true},
		{"a box driven along the floor at 200 units/s", slider, false}, {"a box falling", flier, false}} {
		if got := r.s.Gripped(c.e); got != c.want {
			t.Errorf("%s (velocity %v): Gripped %v, want %v", c.name, r.s.BodyOf(c.e).Velocity(), got, c.want)
		}
	}
}
