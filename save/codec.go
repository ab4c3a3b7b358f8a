package save

import (
	"fmt"
	"reflect"

	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/save/plain"
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
const MaxLayout = plain.MaxLayout

// Plain returns the exact codec of a plain type T: booleans, integers and
// floats (int, uint and uintptr as 64 bits), and arrays and structs of them,
// exported fields or not. Each field is written little-endian in declaration
// order, floats as their IEEE 754 bits (NaNs and negative zeros kept), so a
// value reads back bit for bit on any machine. Appending and reading allocate
// nothing. Adding, removing, renaming or reordering fields changes the
// encoding, and its Layout with it: a save written before is refused
// (ErrMismatch) rather than read wrong. To keep such a save, write a codec
// by hand that reads the old encoding, with the old Layout. The encoding is
// package plain's.
//
// It panics if T holds anything else (a pointer, string, slice, map,
// interface, channel or function): write a Codec by hand for such a type.
func Plain[T any]() Codec[T] {
	e, err := plain.Of[T]()
	if err != nil {
		panic(fmt.Sprintf("save: Plain[%v]: %v; write a save.Codec by hand for it", reflect.TypeFor[T](), err))
	}
	return Codec[T]{Name: reflect.TypeFor[T]().String(), Layout: e.Layout, Append: e.Append, Read: e.Read}
}
