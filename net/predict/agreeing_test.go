package predict

import (
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// KeepAgreeing keeps each member of a client's own pose that rounds on the
// wire as the host's does, and takes the host's where it does not.
func TestKeepAgreeing(t *testing.T) {
	codec := replicate.TransformCodec()
	own := ecs.Transform{X: 10.0001, Y: 20, Angle: 0.2333333}
	var q [replicate.MaxFields]int32
	host := ecs.Transform{X: own.X, Y: 35, Angle: own.Angle}
	codec.Quantize(&host, q[:3])
	codec.Dequantize(q[:3], &host) // as the wire carries it
	if host.X == own.X || host.Angle == own.Angle {
		t.Fatalf("the test's pose is on the wire's grid: %+v", host)
	}
	got := host
	KeepAgreeing(codec.Quantize, 3, &got, own)
	if want := (ecs.Transform{X: own.X, Y: host.Y, Angle: own.Angle}); got != want {
		t.Fatalf("kept %+v, want %+v: her own X and heading, the host's Y", got, want)
	}
	far := ecs.Transform{X: 11, Y: 35, Angle: 0.5}
	got = host
	KeepAgreeing(codec.Quantize, 3, &got, far)
	if got != host {
		t.Fatalf("a pose that agrees in nothing kept %+v, want the host's %+v", got, host)
	}
}
