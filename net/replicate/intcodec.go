package replicate

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"unsafe"

	"github.com/tandem-go/tandem/save/plain"
)

// IntegerCodec returns a codec for a component T that is a struct of
// integers and bools (a team, a score, a flag, a counter), and of structs
// and arrays of them (a color.RGBA, a [3]uint8): one wire field per integer
// or bool, in their order (a nested struct's and an array's in place), each
// sent as it is, so a client holds exactly the host's values. Fields of 32
// bits or fewer travel whole; int, uint, int64 and uint64 fields travel as
// 32 bits, a value beyond math.MinInt32..math.MaxInt32 (0..math.MaxUint32
// unsigned) arriving clamped to it. Changes are sent whole, not as
// differences, and every change is urgent (set Delta and Significant on the
// result for a field that creeps). Its Layout names the fields and their
// kinds, so a host and a client built with different structs are refused as
// different games. It carries its exact encoding (AppendExact, ReadExact:
// package plain's, what tandem.Exact would give it), so a host saves the
// component as it is.
//
// It panics if T is not a struct, has a field of another kind (a float, a
// string, a pointer, a slice: write a Codec of your own for those), or has
// no field or more than MaxFields in all (split it into two components).
// Quantize and Dequantize allocate nothing; Dequantize takes any wire image
// a host sends (a bool is true for any value but 0; a narrow field keeps the
// low bits of a wide value).
func IntegerCodec[T any](name string) Codec[T] {
	fields, layout := integerFields(reflect.TypeFor[T](), name)
	exact, err := plain.Of[T]()
	if err != nil {
		panic(fmt.Sprintf("replicate: IntegerCodec %q: %v", name, err)) // integerFields lets only plain types by
	}
	return Codec[T]{
		Name:        name,
		Fields:      len(fields),
		Layout:      layout,
		AppendExact: exact.Append,
		ReadExact:   exact.Read,
		ExactLayout: exact.Layout,
		Quantize: func(v *T, q []int32) {
			for i, f := range fields {
				q[i] = f.get(unsafe.Add(unsafe.Pointer(v), f.off))
			}
		},
		Dequantize: func(q []int32, v *T) {
			for i, f := range fields {
				f.set(unsafe.Add(unsafe.Pointer(v), f.off), q[i])
			}
		},
	}
}

// integerField is where one field of an IntegerCodec's struct lies and of
// what kind it is.
type integerField struct {
	off  uintptr
	kind reflect.Kind
}

// integerFields lists t's fields for IntegerCodec, nested structs' and
// arrays' flattened in place, with their layout (each field's name and
// kind, as "{Team uint8; Color.R uint8; …}"), or panics saying which field
// it cannot send.
func integerFields(t reflect.Type, name string) ([]integerField, string) {
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("replicate: IntegerCodec %q: %v is not a struct of integers and bools; write a Codec for it", name, t))
	}
	var fields []integerField
	var layout []string
	var walk func(t reflect.Type, off uintptr, path string)
	walk = func(ft reflect.Type, off uintptr, path string) {
		if len(fields) > MaxFields {
			return // refused below: no need to walk a large array through
		}
		switch ft.Kind() {
		case reflect.Struct:
			for i := range ft.NumField() {
				sf := ft.Field(i)
				p := sf.Name
				if path != "" {
					p = path + "." + sf.Name
				}
				walk(sf.Type, off+sf.Offset, p)
			}
			return
		case reflect.Array:
			if ft.Elem().Size() == 0 {
				return // elements of no size hold no field, however many
			}
			for i := 0; i < ft.Len() && len(fields) <= MaxFields; i++ {
				walk(ft.Elem(), off+uintptr(i)*ft.Elem().Size(), fmt.Sprintf("%s[%d]", path, i))
			}
			return
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		default:
			panic(fmt.Sprintf("replicate: IntegerCodec %q: field %s of %v is a %v; it sends integers and bools (and structs and arrays of them) only: write a Codec for the others", name, path, t, ft))
		}
		kind := ft.Kind()
		switch {
		case kind == reflect.Int && ft.Size() == 4:
			kind = reflect.Int32
		case (kind == reflect.Uint || kind == reflect.Uintptr) && ft.Size() == 4:
			kind = reflect.Uint32
		}
		fields = append(fields, integerField{off: off, kind: kind})
		layout = append(layout, path+" "+ft.Kind().String())
	}
	walk(t, 0, "")
	switch {
	case len(fields) == 0:
		panic(fmt.Sprintf("replicate: IntegerCodec %q: %v has no fields, and a component replicates its fields: give a marker one (a kind, a flag)", name, t))
	case len(fields) > MaxFields:
		panic(fmt.Sprintf("replicate: IntegerCodec %q: %v has more than %d integers and bools in all; give it 1 to %d, or split it into two components", name, t, MaxFields, MaxFields))
	}
	return fields, "{" + strings.Join(layout, "; ") + "}"
}

// get reads the field at p as its wire value.
func (f integerField) get(p unsafe.Pointer) int32 {
	switch f.kind {
	case reflect.Bool:
		if *(*bool)(p) {
			return 1
		}
		return 0
	case reflect.Int8:
		return int32(*(*int8)(p))
	case reflect.Int16:
		return int32(*(*int16)(p))
	case reflect.Int32:
		return *(*int32)(p)
	case reflect.Int, reflect.Int64:
		return int32(max(math.MinInt32, min(math.MaxInt32, *(*int64)(p))))
	case reflect.Uint8:
		return int32(*(*uint8)(p))
	case reflect.Uint16:
		return int32(*(*uint16)(p))
	case reflect.Uint32:
		return int32(*(*uint32)(p)) // the bits: read back whole
	default: // uint, uint64, uintptr
		return int32(uint32(min(math.MaxUint32, *(*uint64)(p))))
	}
}

// set writes wire value v into the field at p.
func (f integerField) set(p unsafe.Pointer, v int32) {
	switch f.kind {
	case reflect.Bool:
		*(*bool)(p) = v != 0
	case reflect.Int8:
		*(*int8)(p) = int8(v)
	case reflect.Int16:
		*(*int16)(p) = int16(v)
	case reflect.Int32:
		*(*int32)(p) = v
	case reflect.Int, reflect.Int64:
		*(*int64)(p) = int64(v)
	case reflect.Uint8:
		*(*uint8)(p) = uint8(v)
	case reflect.Uint16:
		*(*uint16)(p) = uint16(v)
	case reflect.Uint32:
		*(*uint32)(p) = uint32(v)
	default: // uint, uint64, uintptr
		*(*uint64)(p) = uint64(uint32(v))
	}
}
