package interp

import (
	"math"
	"testing"

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
