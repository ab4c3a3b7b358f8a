package predict

import (
	"fmt"
	"math"
	"reflect"
	"unsafe"

	"github.com/tandem-go/tandem/net/wire"
)

// An input decoded by the game's codec is refused when one of its floating
// point fields is NaN or infinite: a codec that reads a float as sent (most
// do) would otherwise hand a peer's NaN to the game, whose clamps let NaN
// through (every comparison with it is false): on the host a body driven by
// it goes to NaN, which replication sends as 0, so the players see one
// world and the host simulates another, with nothing reported. The check
// covers the float32 and float64 fields of the input, in nested structs
// and arrays (not behind pointers, slices or maps), found once by
// reflection.

// floatField is one floating point field of an input value.
type floatField struct {
	off  uintptr
	f64  bool
	name string
}

// floatFields returns the float32 and float64 fields of t, at their offsets
// from the start of a value of t, named by their path (prefix first).
func floatFields(t reflect.Type, off uintptr, prefix string, dst []floatField) []floatField {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		name := prefix
		if name == "" {
			name = "the input"
		}
		return append(dst, floatField{off: off, f64: t.Kind() == reflect.Float64, name: name})
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			name := f.Name
			if prefix != "" {
				name = prefix + "." + f.Name
			}
			dst = floatFields(f.Type, off+f.Offset, name, dst)
		}
	case reflect.Array:
		for i := range t.Len() {
			dst = floatFields(t.Elem(), off+uintptr(i)*t.Elem().Size(), fmt.Sprintf("%s[%d]", prefix, i), dst)
		}
	}
	return dst
}

// checkFinite fails r with wire.ErrInvalid if a floating point field of
// *in is NaN or infinite.
func checkFinite[I any](fields []floatField, in *I, r *wire.Reader) {
	p := unsafe.Pointer(in)
	for _, f := range fields {
		var v float64
		if f.f64 {
			v = *(*float64)(unsafe.Add(p, f.off))
		} else {
			v = float64(*(*float32)(unsafe.Add(p, f.off)))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			r.Fail(fmt.Errorf("%w: input field %s is %v; an input's floats must be finite", wire.ErrInvalid, f.name, v))
			return
		}
	}
}
