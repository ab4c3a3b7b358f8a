package replicate

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/save"
)

// everyInteger has fields of most kinds IntegerCodec sends (wideInteger
// has the others).
type everyInteger struct {
	On  bool
	I8  int8
	I16 int16
	I32 int32
	I   int64
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

// A struct's nested structs and arrays travel field by field, in place.
func TestIntegerCodecNested(t *testing.T) {
	type rgba struct{ R, G, B, A uint8 }
	type player struct {
		Team  uint8
		Color rgba
		Keys  [2]int16
		Ready bool
	}
	c := IntegerCodec[player]("player")
	if c.Fields != 8 || c.Layout != "{Team uint8; Color.R uint8; Color.G uint8; Color.B uint8; Color.A uint8; Keys[0] int16; Keys[1] int16; Ready bool}" {
		t.Fatalf("%d fields, layout %s", c.Fields, c.Layout)
	}
	in := player{Team: 1, Color: rgba{10, 20, 30, 255}, Keys: [2]int16{-3, 700}, Ready: true}
	q := make([]int32, c.Fields)
	c.Quantize(&in, q)
	if want := []int32{1, 10, 20, 30, 255, -3, 700, 1}; !slices.Equal(q, want) {
		t.Fatalf("image %v, want %v", q, want)
	}
	var got player
	c.Dequantize(q, &got)
	if got != in {
		t.Fatalf("read back %+v, want %+v", got, in)
	}
}

// IntegerCodec refuses, naming what, a type it cannot send whole.
func TestIntegerCodecRefuses(t *testing.T) {
	type nine struct{ A, B, C, D, E, F, G, H, I int8 }
	type withFloat struct {
		N int32
		X float64
	}
	type nested struct{ In struct{ A []int32 } }
	type huge struct{ B [1 << 26]byte } // refused without walking it through
	type hollow struct {
		Tags [1 << 30]struct{} // no size: no field, and not walked through
	}
	type wide struct {
		A [4]uint8
		B struct{ C, D, E, F, G int8 }
	}
	for name, build := range map[string]func(){
		"X of":                           func() { IntegerCodec[withFloat]("f") },
		"In.A of":                        func() { IntegerCodec[nested]("n") },
		"more than 8 integers":           func() { IntegerCodec[nine]("nine") },
		"more than 8 integers and":       func() { IntegerCodec[wide]("wide") },
		"more than 8 integers and bools": func() { IntegerCodec[huge]("huge") },
		"has no fields":                  func() { IntegerCodec[struct{}]("none") },
		"hollow has no fields":           func() { IntegerCodec[hollow]("hollow") },
		"is not a struct":                func() { IntegerCodec[int32]("bare") },
	} {
		msg := func() (msg string) {
			defer func() { msg, _ = recover().(string) }()
			build()
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

// team is a named integer kind, as games declare them.
type team uint8

// wideInteger has the kinds everyInteger lacks, a named one, an unexported
// field and an embedded integer.
type wideInteger struct {
	U8  uint8
	N   int
	U   uint
	P   uintptr
	T   team
	low int16
	team2
}

type team2 int32

// The other kinds read back too, and the layout names every field with its
// kind.
func TestIntegerCodecOtherKinds(t *testing.T) {
	c := IntegerCodec[wideInteger]("wide")
	if want := "{U8 uint8; N int; U uint; P uintptr; T uint8; low int16; team2 int32}"; c.Layout != want {
		t.Fatalf("layout %q, want %q", c.Layout, want)
	}
	in := wideInteger{U8: 200, N: -5, U: 70000, P: 9, T: 3, low: -300, team2: -8}
	q := make([]int32, c.Fields)
	c.Quantize(&in, q)
	var out wideInteger
	c.Dequantize(q, &out)
	if out != in {
		t.Fatalf("%+v reads back %+v (image %v)", in, out, q)
	}
}

// A host and a client whose IntegerCodec structs differ (the fields
// reordered, or a kind changed) state different schemas, and are refused
// as two games; the same struct states the same.
func TestIntegerCodecLayoutInSchema(t *testing.T) {
	schema := func(layout string) string {
		reg := NewEmptyRegistry(ecs.NewWorld())
		c := IntegerCodec[everyInteger]("every")
		if layout != "" {
			c.Layout = layout // the same Go type, built from another struct
		}
		Register(reg, c)
		return string(reg.AppendSchema(nil))
	}
	same := schema("")
	if schema("") != same {
		t.Fatal("one struct, two schemas")
	}
	for _, other := range []string{
		"{I8 int8; On bool; I16 int16; I32 int32; I int64; U16 uint16; U32 uint32; U64 uint64}",
		"{On bool; I8 int8; I16 int32; I32 int32; I int64; U16 uint16; U32 uint32; U64 uint64}",
	} {
		if schema(other) == same {
			t.Errorf("layout %s states the same schema as the struct's own", other)
		}
	}
}

// An IntegerCodec carries its exact encoding, the one save.Plain (and so
// tandem.Exact) gives its struct: a host saves it as it is, every value
// whole, 64-bit ones beyond 32 bits too, and a save written with the codec
// wrapped in tandem.Exact reads the same.
func TestIntegerCodecIsExact(t *testing.T) {
	c := IntegerCodec[everyInteger]("every")
	p := save.Plain[everyInteger]()
	if c.AppendExact == nil || c.ReadExact == nil || c.ExactLayout != p.Layout {
		t.Fatalf("exact encoding: append set %v, read set %v, layout %q; want save.Plain's, %q", c.AppendExact != nil, c.ReadExact != nil, c.ExactLayout, p.Layout)
	}
	v := everyInteger{true, -128, -32768, math.MinInt32, math.MinInt64, 65535, math.MaxUint32, math.MaxUint64}
	b := c.AppendExact(nil, &v)
	if want := p.Append(nil, &v); !slices.Equal(b, want) {
		t.Fatalf("exact bytes % x, save.Plain's % x", b, want)
	}
	var back everyInteger
	r := wire.NewReader(b)
	c.ReadExact(&r, &back)
	if err := r.Finish(); err != nil || back != v {
		t.Fatalf("read back %+v (%v), want %+v", back, err, v)
	}
}
