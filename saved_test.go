package tandem

import (
	"testing"

	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/wire"
)

// TestExactCarriesThePlainLayout: Exact gives a codec without an exact
// encoding the plain one with its layout, for a save to record and check;
// a codec with an encoding of its own keeps it, and its layout.
func TestExactCarriesThePlainLayout(t *testing.T) {
	type gem struct {
		Value int32
		Glow  float32
	}
	base := replicate.Codec[gem]{
		Name: "gem", Fields: 1,
		Quantize:   func(v *gem, q []int32) { q[0] = v.Value },
		Dequantize: func(q []int32, v *gem) { v.Value = q[0] },
	}
	if got := Exact(base).ExactLayout; got != "{Value int32; Glow float32}" {
		t.Fatalf("Exact's layout %q, want the plain one", got)
	}
	own := base
	own.AppendExact = func(dst []byte, v *gem) []byte { return append(dst, byte(v.Value)) }
	own.ReadExact = func(*wire.Reader, *gem) {}
	own.ExactLayout = "v2"
	if got := Exact(own).ExactLayout; got != "v2" {
		t.Fatalf("Exact replaced a codec's own layout with %q", got)
	}
}
