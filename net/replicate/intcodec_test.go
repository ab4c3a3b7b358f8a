package replicate

import (
	"math"
	"strings"
	"testing"
)

// everyInteger has a field of each kind IntegerCodec sends.
type everyInteger struct {
	On  bool
	I8  int8
	I16 int16
	I32 int32
	I   int
	U16 uint16
	U32 uint32
	U64 uint64
}

// An IntegerCodec's image holds every field as it is: a client holds the
// host's values, but for the 64-bit ones beyond 32 bits, which arrive
// clamped.
func TestIntegerCodecRoundTrip(t *testing.T) {
	c := IntegerCodec[everyInteger]("every")
	if c.Fields != 8 || c.Delta || c.Significant != nil {
		t.Fatalf("codec: %d fields, delta %v, significant %v; want 8 whole fields, every change urgent", c.Fields, c.Delta, c.Significant)
	}
	for _, tc := range []struct{ in, want everyInteger }{
		{everyInteger{}, everyInteger{}},
		{everyInteger{true, -128, -32768, math.MinInt32, math.MinInt32, 65535, math.MaxUint32, math.MaxUint32},
			everyInteger{true, -128, -32768, math.MinInt32, math.MinInt32, 65535, math.MaxUint32, math.MaxUint32}},
		{everyInteger{false, 127, 32767, math.MaxInt32, -7, 1, 7, 9},
			everyInteger{false, 127, 32767, math.MaxInt32, -7, 1, 7, 9}},
		// Wider than 32 bits: clamped.
		{everyInteger{I: math.MaxInt64, U64: math.MaxUint64}, everyInteger{I: math.MaxInt32, U64: math.MaxUint32}},
		{everyInteger{I: math.MinInt64}, everyInteger{I: math.MinInt32}},
	} {
		var q [MaxFields]int32
		c.Quantize(&tc.in, q[:c.Fields])
		got := everyInteger{On: true, I: 99} // overwritten whole
		c.Dequantize(q[:c.Fields], &got)
		if got != tc.want {
			t.Errorf("%+v: image %v reads back %+v, want %+v", tc.in, q, got, tc.want)
		}
	}
	v := everyInteger{I8: 5}
	q := make([]int32, c.Fields)
	if n := testing.AllocsPerRun(100, func() {
		c.Quantize(&v, q)
		c.Dequantize(q, &v)
	}); n != 0 {
		t.Fatalf("a round trip allocates %.0f times", n)
	}
}

// IntegerCodec refuses, naming what, a type it cannot send whole.
func TestIntegerCodecRefuses(t *testing.T) {
	type nine struct{ A, B, C, D, E, F, G, H, I int8 }
	type withFloat struct {
		N int32
		X float64
	}
	type nested struct{ In struct{ A int32 } }
	for name, make := range map[string]func(){
		"X of":            func() { IntegerCodec[withFloat]("f") },
		"In of":           func() { IntegerCodec[nested]("n") },
		"has 9 fields":    func() { IntegerCodec[nine]("nine") },
		"has 0 fields":    func() { IntegerCodec[struct{}]("none") },
		"is not a struct": func() { IntegerCodec[int32]("bare") },
	} {
		msg := func() (msg string) {
			defer func() { msg, _ = recover().(string) }()
			make()
			return ""
		}()
		if !strings.Contains(msg, name) || !strings.Contains(msg, "IntegerCodec") {
			t.Errorf("want a panic saying %q, got %q", name, msg)
		}
	}
}

// Dequantize takes any image a host sends, and quantizing what it made
// gives the image back for every field of 32 bits or more, and the low bits
// of the others.
func FuzzIntegerCodec(f *testing.F) {
	c := IntegerCodec[everyInteger]("every")
	f.Add(int32(0), int32(1), int32(-1), int32(math.MaxInt32), int32(math.MinInt32), int32(7), int32(-7), int32(2))
	f.Fuzz(func(t *testing.T, a, b, d, e, g, h, i, j int32) {
		in := []int32{a, b, d, e, g, h, i, j}
		var v everyInteger
		c.Dequantize(in, &v)
		out := make([]int32, c.Fields)
		c.Quantize(&v, out)
		want := []int32{0, int32(int8(b)), int32(int16(d)), e, g, int32(uint16(h)), i, j}
		if a != 0 {
			want[0] = 1 // a bool
		}
		for k := range want {
			if out[k] != want[k] {
				t.Fatalf("image %v read into %+v quantizes to %v, want %v", in, v, out, want)
			}
		}
	})
}
