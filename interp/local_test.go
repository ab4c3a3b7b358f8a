package interp

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// movingSystem moves one entity at constant velocity each step, keeping
// Interpolated.Prev as the physics step does, and applies a pending
// correction before moving (as a prediction correction through
// physics.CorrectPose before the physics step).
type movingSystem struct {
	r          *rig
	e          arche.Entity
	vx, vy     float64
	correction ecs.Transform
	correct    bool
}

func (m *movingSystem) Update(w *ecs.World) {
	t := m.r.transform(m.e)
	if m.correct {
		m.correct = false
		t.X += m.correction.X
		t.Y += m.correction.Y
		t.Angle += m.correction.Angle
		m.r.ip.AddCorrection(m.e, m.correction.X, m.correction.Y, m.correction.Angle)
	}
	m.r.interpolated(m.e).Prev = *t
	t.X += m.vx * step.Seconds()
	t.Y += m.vy * step.Seconds()
}

// A local entity is drawn between its last two simulated steps: at 144 Hz
// over a 60 Hz simulation it moves smoothly; a correction leaves an offset
// that decays with the half-life, so the drawn pose never jumps.
func TestLocalEntityBlendsAndCorrectionIsSmooth(t *testing.T) {
	r := newRig(t, Config{HalfLife: 80 * time.Millisecond})
	r.ip.SetLocal(3)
	e := r.spawn(3, true, ecs.Transform{})
	r.interpolated(e).Snap = false
	sys := &movingSystem{r: r, e: e, vx: 200, vy: 50}
	sched := ecs.NewSchedule(r.w, r.clk, step)
	sched.Add("move", sys)
	sched.Advance()
	speed := math.Hypot(sys.vx, sys.vy)
	const hz = 144
	dt := time.Second / hz
	d := ecs.Transform{X: 25, Y: -10, Angle: 0.3}
	dLen := math.Hypot(d.X, d.Y)
	var prev ecs.Transform
	var correctedAt time.Duration
	for i := 1; i <= 3*hz; i++ {
		r.clk.Advance(dt)
		now := r.clk.Now().Sub(t0)
		if i == hz {
			sys.correction, sys.correct = d, true
		}
		if sched.Advance() > 0 && correctedAt == 0 && i >= hz {
			correctedAt = now
		}
		r.ip.Update(r.clk.Now())
		p, ok := r.ip.Pose(e, sched.Alpha())
		if !ok {
			t.Fatal("no pose for the local entity")
		}
		if r.ip.Remote(e) {
			t.Fatal("local entity treated as remote")
		}
		if i > 1 {
			// Allowed: the entity's motion plus what the offset decays by in
			// one frame.
			left := 0.0
			if correctedAt > 0 {
				left = dLen * math.Exp2(-float64(now-correctedAt-dt)/float64(80*time.Millisecond))
			}
			limit := speed*dt.Seconds()*1.01 + left*(1-math.Exp2(-dt.Seconds()/0.08)) + 1e-9
			if step := dist(p, prev); step > limit {
				t.Fatalf("frame %d: drawn pose moved %.3f, limit %.3f", i, step, limit)
			}
		}
		prev = p
	}
	if off := r.ip.Offset(e); off != (ecs.Transform{}) {
		t.Errorf("offset %v left 2 s after the correction", off)
	}
	if r.ip.Stats().Corrections != 1 {
		t.Errorf("Corrections = %d", r.ip.Stats().Corrections)
	}
}

// The offset is minus the correction at once, halves every half-life, and
// corrections add up.
func TestCorrectionOffsetDecaysByHalfLife(t *testing.T) {
	const half = 100 * time.Millisecond
	r := newRig(t, Config{HalfLife: half})
	e := r.spawn(1, true, ecs.Transform{X: 5})
	r.interpolated(e).Snap = false
	r.ip.Update(r.clk.Now())
	r.ip.AddCorrection(e, 8, -4, 0.2)
	r.ip.AddCorrection(e, 2, 0, 0)
	if off := r.ip.Offset(e); off != (ecs.Transform{X: -10, Y: 4, Angle: -0.2}) {
		t.Fatalf("offset %v, want the sum of minus the corrections", off)
	}
	p, _ := r.ip.Pose(e, 1)
	if p != (ecs.Transform{X: -5, Y: 4, Angle: -0.2}) {
		t.Fatalf("drawn %v, want Transform plus offset", p)
	}
	for k := 1; k <= 4; k++ {
		r.clk.Advance(half)
		r.ip.Update(r.clk.Now())
		want := math.Exp2(-float64(k))
		off := r.ip.Offset(e)
		if math.Abs(off.X+10*want) > 1e-9 || math.Abs(off.Y-4*want) > 1e-9 || math.Abs(off.Angle+0.2*want) > 1e-12 {
			t.Fatalf("after %d half-lives offset %v, want %v of the first", k, off, want)
		}
	}
	// A teleport drops the offset.
	r.interpolated(e).Snap = true
	if p, _ := r.ip.Pose(e, 0.5); p != *r.transform(e) {
		t.Fatalf("snapped entity drawn at %v, want its Transform %v", p, *r.transform(e))
	}
	if off := r.ip.Offset(e); off != (ecs.Transform{}) {
		t.Fatalf("offset %v kept across a snap", off)
	}
}

// Without Interpolated a local entity is drawn at its Transform; a dead one,
// or one without a Transform, has no pose.
func TestPoseOfPlainEntities(t *testing.T) {
	r := newRig(t, Config{})
	plain := r.spawn(1, false, ecs.Transform{X: 3})
	if p, ok := r.ip.Pose(plain, 0.5); !ok || p.X != 3 {
		t.Fatalf("plain entity: %v %v", p, ok)
	}
	loose := r.w.Arche().NewEntity(r.w.IDs.Transform, r.w.IDs.Interpolated) // not networked
	*r.transform(loose) = ecs.Transform{X: 10}
	if p, ok := r.ip.Pose(loose, 0.25); !ok || p.X != 2.5 {
		t.Fatalf("unnetworked entity blended from Prev (0) to 10 at 0.25: %v %v", p, ok)
	}
	bare := r.w.Arche().NewEntity(r.w.IDs.Velocity)
	if _, ok := r.ip.Pose(bare, 0); ok {
		t.Fatal("pose for an entity without Transform")
	}
	r.w.Arche().RemoveEntity(plain)
	if _, ok := r.ip.Pose(plain, 0); ok {
		t.Fatal("pose for a dead entity")
	}
}

// Entities owned by the local peer are not recorded even if they carry
// Interpolated; before SetLocal every interpolated entity is remote.
func TestLocalOwnerIsNotRemote(t *testing.T) {
	r := newRig(t, Config{})
	mine := r.spawn(2, true, ecs.Transform{})
	r.apply(mine, 2, ecs.Transform{X: 1})
	if !r.ip.Remote(mine) {
		t.Fatal("before SetLocal an interpolated entity is remote")
	}
	r.ip.SetLocal(2)
	r.apply(mine, 4, ecs.Transform{X: 2})
	if r.ip.Remote(mine) {
		t.Fatal("entity of the local peer still remote after SetLocal")
	}
	other := r.spawn(5, true, ecs.Transform{})
	r.apply(other, 4, ecs.Transform{X: 1})
	if !r.ip.Remote(other) {
		t.Fatal("another peer's entity is not remote")
	}
	uninterp := r.spawn(ecs.HostPeer, false, ecs.Transform{})
	r.apply(uninterp, 4, ecs.Transform{X: 1})
	if r.ip.Remote(uninterp) {
		t.Fatal("entity without Interpolated recorded as remote")
	}
}

// Removal frees the slot; the next entity in it starts clean: no states, no
// offset, no blend from the old entity.
func TestRemovalFreesSlot(t *testing.T) {
	for _, viaRemoved := range []bool{true, false} {
		r := newRig(t, Config{})
		old := r.spawn(ecs.HostPeer, true, ecs.Transform{})
		for f := ecs.Frame(2); f <= 20; f += 2 {
			r.apply(old, f, ecs.Transform{X: float64(f) * 10})
			r.clk.Advance(2 * step)
			r.ip.Update(r.clk.Now())
		}
		r.ip.AddCorrection(old, 50, 0, 0)
		slot, _ := r.w.NetSlot(old)
		if viaRemoved {
			r.ip.Removed(old)
		}
		r.w.Arche().RemoveEntity(old)
		if !viaRemoved {
			// Without Removed, the periodic check finds the slot stale.
			r.ip.Update(r.clk.Now())
		}
		if r.ip.Remote(old) {
			t.Fatal("removed entity still remote")
		}
		if _, ok := r.ip.Pose(old, 0); ok {
			t.Fatal("removed entity still has a pose")
		}
		fresh := r.spawn(ecs.HostPeer, true, ecs.Transform{X: -500, Y: 7})
		if s, _ := r.w.NetSlot(fresh); s != slot {
			t.Fatalf("slot %d not recycled (got %d)", slot, s)
		}
		r.ip.Applied(fresh, 22)
		p := r.pose(fresh)
		if p != (ecs.Transform{X: -500, Y: 7}) {
			t.Fatalf("recycled slot drawn at %v: the old entity leaked into it", p)
		}
		sl := *r.ip.slot(slot)
		if sl.n != 1 || sl.off != (ecs.Transform{}) {
			t.Fatalf("recycled slot not clean: %+v", sl)
		}
		for range 30 {
			r.clk.Advance(step)
			r.ip.Update(r.clk.Now())
			if p := r.pose(fresh); p != (ecs.Transform{X: -500, Y: 7}) {
				t.Fatalf("recycled slot drawn at %v after Update", p)
			}
		}
	}
}

// With interpolation off, remote entities are drawn at their newest state
// and local ones at their Transform.
func TestDisabledDrawsNewestState(t *testing.T) {
	r := newRig(t, Config{})
	remote := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	r.ip.SetLocal(1)
	local := r.spawn(1, true, ecs.Transform{X: 10})
	r.interpolated(local).Snap = false
	for f := ecs.Frame(2); f <= 40; f += 2 {
		r.apply(remote, f, ecs.Transform{X: float64(f)})
		r.clk.Advance(2 * step)
		r.ip.Update(r.clk.Now())
	}
	r.ip.AddCorrection(local, 1, 0, 0)
	if p := r.pose(remote); p.X >= 40 {
		t.Fatalf("interpolating, yet drawn at the newest state %v", p)
	}
	r.ip.SetEnabled(false)
	r.ip.Update(r.clk.Now())
	if p := r.pose(remote); p.X != 40 {
		t.Fatalf("interpolation off: drawn at %v, want the newest state x=40", p)
	}
	if p, _ := r.ip.Pose(local, 0.5); p.X != 10 {
		t.Fatalf("interpolation off: local drawn at %v, want its Transform x=10", p)
	}
	r.ip.SetEnabled(true)
	r.ip.Update(r.clk.Now())
	if p := r.pose(remote); p.X >= 40 {
		t.Fatalf("interpolation back on, drawn at %v", p)
	}
}

// Reset forgets entities and timing; the next connection starts afresh.
func TestReset(t *testing.T) {
	r := newRig(t, Config{})
	e := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	for f := ecs.Frame(2); f <= 60; f += 2 {
		r.apply(e, f, ecs.Transform{X: float64(f)})
		r.clk.Advance(2 * step)
		r.ip.Update(r.clk.Now())
	}
	r.ip.AddCorrection(e, 1, 1, 0)
	r.ip.Reset()
	if r.ip.Remote(e) || r.ip.RenderDelay() != 0 || r.ip.Offset(e) != (ecs.Transform{}) {
		t.Fatalf("state kept across Reset: remote %v, delay %v, offset %v", r.ip.Remote(e), r.ip.RenderDelay(), r.ip.Offset(e))
	}
	// A host whose frames start again from a low number.
	r.apply(e, 4, ecs.Transform{X: -1})
	r.clk.Advance(step)
	r.ip.Update(r.clk.Now())
	if p := r.pose(e); p.X != -1 {
		t.Fatalf("after Reset drawn at %v, want the new state", p)
	}
	if st := r.ip.Stats(); st.Newest != 4 || st.Remote != 1 {
		t.Fatalf("after Reset: %+v", st)
	}
}

// Corrections made before the first drawn frame moved nothing on screen:
// the first Update draws the entity where it is, not behind by what
// prediction corrected meanwhile (a client that drew nothing for two
// seconds drew its own walking unit 630 units behind, then slid it).
func TestCorrectionsBeforeAnythingIsDrawnHideNothing(t *testing.T) {
	r := newRig(t, Config{})
	e := r.spawn(1, true, ecs.Transform{X: 600})
	r.interpolated(e).Snap = false
	for range 120 {
		r.ip.AddCorrection(e, 5, 0, 0)
		r.clk.Advance(step)
	}
	r.ip.Update(r.clk.Now())
	if off := r.ip.Offset(e); off != (ecs.Transform{}) {
		t.Fatalf("the first drawn frame keeps an offset of %v from corrections made before it", off)
	}
	r.ip.AddCorrection(e, 5, 0, 0)
	r.clk.Advance(step)
	r.ip.Update(r.clk.Now())
	if off := r.ip.Offset(e); off.X >= 0 || off.X < -5 {
		t.Fatalf("a correction after the first drawn frame leaves an offset of %v, want some of minus it", off)
	}
}
