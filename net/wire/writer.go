package wire

import "math"

// MaxVarintLen is the most bytes a 64-bit varint takes.
const MaxVarintLen = 10

// Writer appends encoded values to a caller-owned byte slice: what Reader
// reads back, method for method (U32 for U32, LenBytes for LenBytes). A
// codec's Append (an input's, a command's) writes with one:
//
//	w := wire.NewWriter(dst)
//	w.U32(in.Tower)
//	w.F32(in.X)
//	return w.Bytes()
//
// It allocates only when the slice's capacity runs out (append semantics):
// give it a buffer with room for a whole message and encoding allocates
// nothing. The zero Writer appends to a nil slice. A Writer is a small value;
// keep one per goroutine and Reset it for each message.
type Writer struct {
	buf []byte
}

// NewWriter returns a Writer that appends to buf after its current contents
// (pass buf[:0] to start empty).
func NewWriter(buf []byte) Writer { return Writer{buf: buf} }

// Reset makes w append to buf after its current contents (pass buf[:0] to
// start empty). The Writer forgets its previous buffer.
func (w *Writer) Reset(buf []byte) { w.buf = buf }

// Bytes returns everything written, including what buf held when it was
// given. The slice aliases the Writer's buffer: it changes with later writes.
func (w *Writer) Bytes() []byte { return w.buf }

// Len returns the number of bytes in the buffer.
func (w *Writer) Len() int { return len(w.buf) }

// Truncate cuts the buffer back to n bytes, undoing later writes. n outside
// [0, Len()] is clamped.
func (w *Writer) Truncate(n int) {
	if n < 0 {
		n = 0
	}
	if n < len(w.buf) {
		w.buf = w.buf[:n]
	}
}

// U8 appends one byte.
func (w *Writer) U8(v uint8) { w.buf = append(w.buf, v) }

// Bool appends 1 for true, 0 for false, in one byte.
func (w *Writer) Bool(v bool) {
	if v {
		w.buf = append(w.buf, 1)
	} else {
		w.buf = append(w.buf, 0)
	}
}

// U16 appends v as 2 bytes, little-endian.
func (w *Writer) U16(v uint16) { w.buf = append(w.buf, byte(v), byte(v>>8)) }

// U32 appends v as 4 bytes, little-endian.
func (w *Writer) U32(v uint32) {
	w.buf = append(w.buf, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

// U64 appends v as 8 bytes, little-endian.
func (w *Writer) U64(v uint64) {
	w.buf = append(w.buf, byte(v), byte(v>>8), byte(v>>16), byte(v>>24),
		byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

// F32 appends the IEEE 754 bits of v as 4 bytes, little-endian.
func (w *Writer) F32(v float32) { w.U32(math.Float32bits(v)) }

// F64 appends the IEEE 754 bits of v as 8 bytes, little-endian.
func (w *Writer) F64(v float64) { w.U64(math.Float64bits(v)) }

// Uvarint appends v as an unsigned varint: 7 bits a byte, least significant
// group first, the high bit set on every byte but the last; 1 to 10 bytes,
// always the shortest form.
func (w *Writer) Uvarint(v uint64) { w.buf = AppendUvarint(w.buf, v) }

// Varint appends v zig-zag encoded ((v << 1) ^ (v >> 63)) as an unsigned
// varint, so small magnitudes of either sign take few bytes.
func (w *Writer) Varint(v int64) { w.buf = AppendUvarint(w.buf, ZigZag(v)) }

// Raw appends p as it is, with no length.
func (w *Writer) Raw(p []byte) { w.buf = append(w.buf, p...) }

// LenBytes appends len(p) as an unsigned varint, then p.
func (w *Writer) LenBytes(p []byte) {
	w.buf = AppendUvarint(w.buf, uint64(len(p)))
	w.buf = append(w.buf, p...)
}

// String appends len(s) as an unsigned varint, then the bytes of s.
func (w *Writer) String(s string) { w.buf = AppendString(w.buf, s) }

// AppendString appends s to dst as Writer.String does (what Reader.String
// reads back) and returns the extended slice: for a codec's Append.
func AppendString(dst []byte, s string) []byte {
	dst = AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// AppendVarint appends v to dst zig-zagged, as Writer.Varint does (what
// Reader.Varint reads back), and returns the extended slice.
func AppendVarint(dst []byte, v int64) []byte { return AppendUvarint(dst, ZigZag(v)) }

// AppendUvarint appends v to dst as an unsigned varint (see Writer.Uvarint)
// and returns the extended slice.
func AppendUvarint(dst []byte, v uint64) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// UvarintLen returns the number of bytes the varint encoding of v takes.
func UvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// ZigZag maps a signed integer to an unsigned one so that small magnitudes
// give small values: 0→0, -1→1, 1→2, -2→3, ...
func ZigZag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// UnZigZag inverts ZigZag.
func UnZigZag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
