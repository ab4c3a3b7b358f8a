package replicate

import (
	"bytes"
	"math"
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/save"
)

func TestClampRound(t *testing.T) {
	cases := []struct {
		v, scale, limit float64
		want            int32
	}{
		{1.5, 512, 100, 768},
		{-1.5, 512, 100, -768},
		{0.0009765625, 512, 100, 1}, // exactly half a step rounds away from zero
		{-0.0009765625, 512, 100, -1},
		{0.0009, 512, 100, 0},
		{1e9, 512, 100, 51200},
		{-1e9, 512, 100, -51200},
		{math.NaN(), 512, 100, 0},
		{math.Inf(1), 8, 16384, 131072},
	}
	for _, c := range cases {
		if got := clampRound(c.v, c.scale, c.limit); got != c.want {
			t.Errorf("clampRound(%v, %v, %v) = %d, want %d", c.v, c.scale, c.limit, got, c.want)
		}
	}
}

// TestExactEncodingsArePlain: the default codecs' exact encodings are the
// plain encodings of their types, and say so in ExactLayout, so a save
// checks them as it checks a plain component.
func TestExactEncodingsArePlain(t *testing.T) {
	tr, pt := TransformCodec(), save.Plain[ecs.Transform]()
	vtr := ecs.Transform{X: 1.0 / 3, Y: -2e300, Angle: math.Copysign(0, -1)}
	if tr.ExactLayout != pt.Layout || !bytes.Equal(tr.AppendExact(nil, &vtr), pt.Append(nil, &vtr)) {
		t.Errorf("Transform: exact layout %q, plain %q; or their encodings differ", tr.ExactLayout, pt.Layout)
	}
	vc, pv := VelocityCodec(), save.Plain[ecs.Velocity]()
	vv := ecs.Velocity{X: 7, Y: math.Inf(1), Angular: -0.25}
	if vc.ExactLayout != pv.Layout || !bytes.Equal(vc.AppendExact(nil, &vv), pv.Append(nil, &vv)) {
		t.Errorf("Velocity: exact layout %q, plain %q; or their encodings differ", vc.ExactLayout, pv.Layout)
	}
}
