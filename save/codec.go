package save

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

// Codec is the exact encoding of a value of type T in a save: Append writes v
// at full precision, Read reads what Append wrote back into v, bit for bit.
// It is never the quantized wire image: a value read back from a save is the
// value that was saved. Read must report what it cannot read with r.Fail (the
// Reader's errors: truncated input, a value out of range); a save that does
// not read is refused whole.
type Codec[T any] struct {
	// Name identifies the component or state in the save: the same name must
	// read the same encoding in every version of the game that reads the
	// save. Default: the type's name.
	Name string
	// Append appends v's encoding to dst and returns the extended slice. It
	// runs on the simulation goroutine for every changed value of a save:
	// make it allocate nothing beyond dst's growth.
	Append func(dst []byte, v *T) []byte
	// Read sets v from what Append wrote. v holds the zero value.
	Read func(r *wire.Reader, v *T)
	// Layout describes the encoding (at most MaxLayout bytes): a save
	// records it beside the Name, and a restore refuses a save whose
	// component or state of that name was written with another Layout
	// (ErrMismatch) rather than read one layout's bytes as another's: a
	// reordered struct read with its fields swapped. Plain sets it from T's
	// fields (their names, kinds and order). A hand-written codec names its
	// encoding ("ledger v1") and names it anew when the encoding changes,
	// or leaves it empty (not checked) and reads older encodings itself.
	// wire.AppendString, AppendVarint and AppendUvarint write what
	// wire.Reader's String, Varint and Uvarint read.
	Layout string
}

// MaxLayout is the longest Codec.Layout; Plain describes a type whose
// description is longer by a digest of it.
const MaxLayout = 1024

// Plain returns the exact codec of a plain type T: booleans, integers and
// floats (int, uint and uintptr as 64 bits), and arrays and structs of them,
// exported fields or not. Each field is written little-endian in declaration
// order, floats as their IEEE 754 bits (NaNs and negative zeros kept), so a
// value reads back bit for bit on any machine. Appending and reading allocate
// nothing. Adding, removing, renaming or reordering fields changes the
// encoding, and its Layout with it: a save written before is refused
// (ErrMismatch) rather than read wrong. To keep such a save, write a codec
// by hand that reads the old encoding, with the old Layout.
//
// It panics if T holds anything else (a pointer, string, slice, map,
// interface, channel or function): write a Codec by hand for such a type.
func Plain[T any]() Codec[T] {
	t := reflect.TypeFor[T]()
	var fields []plainField
	if err := planPlain(t, 0, &fields); err != nil {
		panic(fmt.Sprintf("save: Plain[%v]: %v; write a save.Codec by hand for it", t, err))
	}
	size := 0
	for _, f := range fields {
		size += int(f.size)
	}
	fields = mergeRuns(fields)
	return Codec[T]{
		Name:   t.String(),
		Layout: plainLayout(t),
		Append: func(dst []byte, v *T) []byte {
			return appendPlain(dst, unsafe.Pointer(v), fields)
		},
		Read: func(r *wire.Reader, v *T) {
			readPlain(r, unsafe.Pointer(v), fields, size)
		},
	}
}

// plainField is one scalar of a plain type, where it is and how wide, or a
// run of scalars that memory holds as the save does.
type plainField struct {
	off  uintptr
	size uint8  // 1, 2, 4 or 8 bytes on the save
	bool bool   // a bool: 0 or 1 on the save
	wide bool   // int, uint or uintptr: the machine's width in memory, 8 bytes on the save
	run  uint32 // > 0: this many bytes copied as they are
}

// littleEndian reports whether this machine stores integers as the save
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

// plainLayout describes Plain's encoding of t: its fields in order, each
// with its name and the kind it is saved as ("{X float64; Hits [4]int32}";
// int, uint and uintptr as the 64 bits they are saved in). A description
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
