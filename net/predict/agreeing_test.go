package predict

import (
	"math"
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// A PoseAgreement keeps each member of a client's own pose that rounds on
// the wire as the host's does, and a number, takes the host's where it does
// not, and allocates nothing.
func TestPoseAgreementKeepsWhatAgrees(t *testing.T) {
	codec := replicate.TransformCodec()
	pa := NewPoseAgreement(codec.Quantize, codec.Fields)
	own := ecs.Transform{X: 10.0001, Y: 20, Angle: 0.2333333}
	var q [replicate.MaxFields]int32
	host := ecs.Transform{X: own.X, Y: 35, Angle: own.Angle}
	codec.Quantize(&host, q[:3])
	codec.Dequantize(q[:3], &host) // as the wire carries it
	if host.X == own.X || host.Angle == own.Angle {
		t.Fatalf("the test's pose is on the wire's grid: %+v", host)
	}
	got := host
	pa.Keep(&got, &own)
	if want := (ecs.Transform{X: own.X, Y: host.Y, Angle: own.Angle}); got != want {
		t.Fatalf("kept %+v, want %+v: her own X and heading, the host's Y", got, want)
	}
	for _, other := range []ecs.Transform{{X: 11, Y: 35, Angle: 0.5}, {X: math.NaN(), Y: math.Inf(1), Angle: math.NaN()}} {
		got = host
		pa.Keep(&got, &other)
		if got != host {
			t.Fatalf("a pose that agrees in nothing (%+v) kept %+v, want the host's %+v", other, got, host)
		}
	}
	nan := ecs.Transform{X: own.X, Y: 35, Angle: math.NaN()} // the host's heading 0 rounds as NaN does
	zero := ecs.Transform{X: host.X, Y: host.Y}
	got = zero
	pa.Keep(&got, &nan)
	if got.Angle != 0 {
		t.Fatalf("a heading that is not a number was kept: %+v", got)
	}
	if n := testing.AllocsPerRun(100, func() { got = host; pa.Keep(&got, &own) }); n != 0 {
		t.Fatalf("Keep allocates %v times a call", n)
	}
}
