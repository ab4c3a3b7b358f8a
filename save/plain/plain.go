// Package plain is the exact encoding of plain Go values (booleans,
// integers, floats, and arrays and structs of them): each scalar written
// little-endian in declaration order, floats as their IEEE 754 bits, read
// back bit for bit on any machine, with a Layout that names the fields.
//
// It is what a save writes of a component that has no encoding of its own
// (save.Plain, tandem.Exact), and what replicate.IntegerCodec carries as its
// exact encoding; it knows nothing of saves or the network beyond
// wire.Reader, so both may use it.
//
// Threads: an Encoding's functions are safe for concurrent use.
package plain

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"github.com/tandem-go/tandem/net/wire"
)

// MaxLayout is the longest Layout; a type whose description is longer is
// described by a digest of it.
const MaxLayout = 1024

// Encoding is the exact encoding of a plain type T: Append writes v, Read
// sets v from what Append wrote (v holding the zero value), Layout names
// the fields in order with the kinds they are written as
// ("{X float64; Hits [4]int32}"). Appending and reading allocate nothing.
type Encoding[T any] struct {
	Append func(dst []byte, v *T) []byte
	Read   func(r *wire.Reader, v *T)
	Layout string
}

// Of returns the encoding of T, or an error naming the first field that
// is not plain (a pointer, string, slice, map, interface, channel or
// function). int, uint and uintptr are written as 64 bits; a value that
// does not fit a 32-bit machine's is refused there (wire.ErrOverflow).
func Of[T any]() (Encoding[T], error) {
	t := reflect.TypeFor[T]()
	var fields []plainField
	if err := planPlain(t, 0, &fields); err != nil {
		return Encoding[T]{}, err
	}
	size := 0
	for _, f := range fields {
		size += int(f.size)
	}
	fields = mergeRuns(fields)
	return Encoding[T]{
		Layout: plainLayout(t),
		Append: func(dst []byte, v *T) []byte {
			return appendPlain(dst, unsafe.Pointer(v), fields)
		},
		Read: func(r *wire.Reader, v *T) {
			readPlain(r, unsafe.Pointer(v), fields, size)
		},
	}, nil
}

// plainField is one scalar of a plain type, where it is and how wide, or a
// run of scalars that memory holds as the encoding does.
type plainField struct {
	off  uintptr
	size uint8  // 1, 2, 4 or 8 bytes encoded
	bool bool   // a bool: 0 or 1 encoded
	wide bool   // int, uint or uintptr: the machine's width in memory, 8 bytes encoded
	run  uint32 // > 0: this many bytes copied as they are
}

// littleEndian reports whether this machine stores integers as the encoding
// does, so that runs of fixed-width fields are copied whole.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// mergeRuns joins adjacent fixed-width fields without padding between them
// into runs, on a little-endian machine.
func mergeRuns(fields []plainField) []plainField {
	if !littleEndian {
		return fields
	}
	var out []plainField
	for _, f := range fields {
		if f.bool || f.wide {
			out = append(out, f)
			continue
		}
		if n := len(out); n > 0 && out[n-1].run > 0 && out[n-1].off+uintptr(out[n-1].run) == f.off {
			out[n-1].run += uint32(f.size)
			continue
		}
		out = append(out, plainField{off: f.off, run: uint32(f.size)})
	}
	return out
}

// plainLayout describes the encoding of t: its fields in order, each
// with its name and the kind it is written as ("{X float64; Hits [4]int32}";
// int, uint and uintptr as the 64 bits they are written as). A description
// longer than MaxLayout is replaced by a digest of it.
func plainLayout(t reflect.Type) string {
	var b strings.Builder
	describePlain(&b, t)
	if b.Len() <= MaxLayout {
		return b.String()
	}
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func describePlain(b *strings.Builder, t reflect.Type) {
	switch t.Kind() {
	case reflect.Int:
		b.WriteString("int64")
	case reflect.Uint, reflect.Uintptr:
		b.WriteString("uint64")
	case reflect.Array:
		fmt.Fprintf(b, "[%d]", t.Len())
		describePlain(b, t.Elem())
	case reflect.Struct:
		b.WriteByte('{')
		for i := range t.NumField() {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(t.Field(i).Name)
			b.WriteByte(' ')
			describePlain(b, t.Field(i).Type)
		}
		b.WriteByte('}')
	default:
		b.WriteString(t.Kind().String())
	}
}

func planPlain(t reflect.Type, off uintptr, out *[]plainField) error {
	switch t.Kind() {
	case reflect.Bool:
		*out = append(*out, plainField{off: off, size: 1, bool: true})
	case reflect.Int8, reflect.Uint8:
		*out = append(*out, plainField{off: off, size: 1})
	case reflect.Int16, reflect.Uint16:
		*out = append(*out, plainField{off: off, size: 2})
	case reflect.Int32, reflect.Uint32, reflect.Float32:
		*out = append(*out, plainField{off: off, size: 4})
	case reflect.Int64, reflect.Uint64, reflect.Float64:
		*out = append(*out, plainField{off: off, size: 8})
	case reflect.Int, reflect.Uint, reflect.Uintptr:
		*out = append(*out, plainField{off: off, size: 8, wide: true})
	case reflect.Array:
		if t.Elem().Size() == 0 {
			return nil // nothing to write, however many (and nothing to refuse)
		}
		for i := range t.Len() {
			if err := planPlain(t.Elem(), off+uintptr(i)*t.Elem().Size(), out); err != nil {
				return err
			}
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if err := planPlain(f.Type, off+f.Offset, out); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
	default:
		return fmt.Errorf("%v is a %v, which has no plain encoding", t, t.Kind())
	}
	return nil
}

func appendPlain(dst []byte, p unsafe.Pointer, fields []plainField) []byte {
	for _, f := range fields {
		q := unsafe.Add(p, f.off)
		switch {
		case f.run > 0:
			dst = append(dst, unsafe.Slice((*byte)(q), f.run)...)
		case f.bool:
			var b byte
			if *(*bool)(q) {
				b = 1
			}
			dst = append(dst, b)
		case f.wide:
			dst = binary.LittleEndian.AppendUint64(dst, uint64(*(*uint)(q)))
		case f.size == 1:
			dst = append(dst, *(*uint8)(q))
		case f.size == 2:
			dst = binary.LittleEndian.AppendUint16(dst, *(*uint16)(q))
		case f.size == 4:
			dst = binary.LittleEndian.AppendUint32(dst, *(*uint32)(q))
		default:
			dst = binary.LittleEndian.AppendUint64(dst, *(*uint64)(q))
		}
	}
	return dst
}

func readPlain(r *wire.Reader, p unsafe.Pointer, fields []plainField, size int) {
	b := r.Raw(size)
	if r.Err() != nil {
		return
	}
	for _, f := range fields {
		q := unsafe.Add(p, f.off)
		switch {
		case f.run > 0:
			copy(unsafe.Slice((*byte)(q), f.run), b)
			b = b[f.run:]
			continue
		case f.bool:
			if b[0] > 1 {
				r.Fail(wire.ErrInvalid)
				return
			}
			*(*bool)(q) = b[0] == 1
		case f.wide:
			v := binary.LittleEndian.Uint64(b)
			if unsafe.Sizeof(uint(0)) == 4 && v>>32 != 0 && int64(v)>>31 != -1 {
				r.Fail(wire.ErrOverflow)
				return
			}
			*(*uint)(q) = uint(v)
		case f.size == 1:
			*(*uint8)(q) = b[0]
		case f.size == 2:
			*(*uint16)(q) = binary.LittleEndian.Uint16(b)
		case f.size == 4:
			*(*uint32)(q) = binary.LittleEndian.Uint32(b)
		default:
			*(*uint64)(q) = binary.LittleEndian.Uint64(b)
		}
		b = b[f.size:]
	}
}
