package interp

import (
	"math"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// A correction that is not a finite number is ignored: it would stick to
// the drawn pose forever.
func TestNonFiniteCorrectionIgnored(t *testing.T) {
	r := newRig(t, Config{})
	e := r.spawn(1, true, ecs.Transform{X: 5})
	r.interpolated(e).Snap = false
	r.ip.Update(r.clk.Now())
	for _, c := range [][3]float64{{math.NaN(), 0, 0}, {0, math.Inf(1), 0}, {0, 0, math.Inf(-1)}, {math.MaxFloat64, 0, 0}, {math.MaxFloat64, 0, 0}} {
		r.ip.AddCorrection(e, c[0], c[1], c[2])
		off := r.ip.Offset(e)
		if !finiteNumber(off.X) || !finiteNumber(off.Y) || !finiteNumber(off.Angle) {
			t.Fatalf("after AddCorrection%v: offset %v", c, off)
		}
	}
	if off := r.ip.Offset(e); off != (ecs.Transform{}) {
		t.Fatalf("offset %v, want none: the finite corrections overflowed together", off)
	}
	r.ip.AddCorrection(e, 1, 0, 0)
	if off := r.ip.Offset(e); off != (ecs.Transform{X: -1}) {
		t.Fatalf("offset %v after a plain correction, want x = -1", off)
	}
	for range 100 {
		r.clk.Advance(step)
		r.ip.Update(r.clk.Now())
	}
	if p, _ := r.ip.Pose(e, 1); p != (ecs.Transform{X: 5}) {
		t.Fatalf("drawn at %v long after the corrections, want its Transform", p)
	}
}

func finiteNumber(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// ClampOffset gives the clamp what is left of the offset's translation and
// keeps what it returns, the turn untouched; an entity with no offset is
// not given to it.
func TestClampOffsetKeepsWhatTheClampLeaves(t *testing.T) {
	r := newRig(t, Config{})
	e := r.spawn(1, true, ecs.Transform{X: 5})
	r.interpolated(e).Snap = false
	r.ip.Update(r.clk.Now())
	calls := 0
	floor := func(_ arche.Entity, dx, dy float64) (float64, float64) {
		calls++
		return dx, min(dy, 0) // nothing drawn below it (+y down)
	}
	r.ip.ClampOffset(e, floor)
	if calls != 0 {
		t.Fatalf("the clamp was called %d times for an entity with no offset", calls)
	}
	r.ip.AddCorrection(e, -2, -4, 0.5) // lifted: drawn 4 below, from where it was
	r.ip.ClampOffset(e, floor)
	if off := r.ip.Offset(e); calls != 1 || off != (ecs.Transform{X: 2, Angle: -0.5}) {
		t.Fatalf("offset %v after %d calls, want (2, 0, -0.5) after one", off, calls)
	}
	p, _ := r.ip.Pose(e, 1)
	if math.Abs(p.X-7) > 1e-9 || p.Y != 0 {
		t.Fatalf("drawn at %v, want (7, 0): the clamped offset on its Transform", p)
	}
}
