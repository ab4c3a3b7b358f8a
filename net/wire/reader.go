package wire

import (
	"math"
	"unicode/utf8"
)

// Reader decodes values from a byte slice it does not own.
//
// Errors are sticky: the first malformed value sets Err, and every later read
// returns a zero value and leaves Err as it is, so a decoder reads all its
// fields and checks Err once. A Reader never panics on any input and never
// allocates, except String, which allocates exactly the checked length.
// Slices it returns alias the input. The zero Reader reads an empty input.
type Reader struct {
	buf []byte
	off int
	err error
}

// NewReader returns a Reader over p.
func NewReader(p []byte) Reader { return Reader{buf: p} }

// Reset makes r read p from the start and clears its error.
func (r *Reader) Reset(p []byte) { *r = Reader{buf: p} }

// Err returns the first error met, or nil.
func (r *Reader) Err() error { return r.err }

// Fail records err as the Reader's error unless one is already set. Decoders
// use it to report a field that parsed but holds a value the layout forbids.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// Len returns the number of unread bytes (0 once an error is set).
func (r *Reader) Len() int {
	if r.err != nil {
		return 0
	}
	return len(r.buf) - r.off
}

// Offset returns the number of bytes read so far.
func (r *Reader) Offset() int { return r.off }

// Finish returns Err, or ErrTrailing when unread bytes remain. Call it when
// a message should have been read completely.
func (r *Reader) Finish() error {
	if r.err == nil && r.off != len(r.buf) {
		r.err = ErrTrailing
	}
	return r.err
}

// take returns the next n bytes, or nil and sets ErrTruncated.
func (r *Reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.buf)-r.off {
		r.err = ErrTruncated
		return nil
	}
	p := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	return p
}

// U8 reads one byte.
func (r *Reader) U8() uint8 {
	p := r.take(1)
	if p == nil {
		return 0
	}
	return p[0]
}

// Bool reads one byte that must be 0 or 1 (anything else is ErrInvalid).
func (r *Reader) Bool() bool {
	v := r.U8()
	if v > 1 {
		r.Fail(ErrInvalid)
		return false
	}
	return v == 1
}

// U16 reads 2 bytes, little-endian.
func (r *Reader) U16() uint16 {
	p := r.take(2)
	if p == nil {
		return 0
	}
	return uint16(p[0]) | uint16(p[1])<<8
}

// U32 reads 4 bytes, little-endian.
func (r *Reader) U32() uint32 {
	p := r.take(4)
	if p == nil {
		return 0
	}
	return uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
}

// U64 reads 8 bytes, little-endian.
func (r *Reader) U64() uint64 {
	p := r.take(8)
	if p == nil {
		return 0
	}
	return uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
		uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56
}

// F32 reads 4 bytes as the IEEE 754 bits of a float32.
func (r *Reader) F32() float32 { return math.Float32frombits(r.U32()) }

// F64 reads 8 bytes as the IEEE 754 bits of a float64.
func (r *Reader) F64() float64 { return math.Float64frombits(r.U64()) }

// Uvarint reads an unsigned varint. More than 64 bits is ErrOverflow, a form
// longer than the shortest is ErrNonCanonical, an input that ends inside it
// ErrTruncated.
func (r *Reader) Uvarint() uint64 {
	if r.err == nil {
		// The common forms of one to three bytes, without the loop.
		if b := r.buf[r.off:]; len(b) >= 3 {
			b0 := b[0]
			if b0 < 0x80 {
				r.off++
				return uint64(b0)
			}
			if b1 := b[1]; b1 < 0x80 {
				if b1 != 0 {
					r.off += 2
					return uint64(b0&0x7f) | uint64(b1)<<7
				}
			} else if b2 := b[2]; b2 < 0x80 && b2 != 0 {
				r.off += 3
				return uint64(b0&0x7f) | uint64(b1&0x7f)<<7 | uint64(b2)<<14
			}
		} else if len(b) > 0 && b[0] < 0x80 {
			r.off++
			return uint64(b[0])
		}
	}
	return r.uvarintSlow()
}

func (r *Reader) uvarintSlow() uint64 {
	if r.err != nil {
		return 0
	}
	var v uint64
	for i := 0; i < MaxVarintLen; i++ {
		if r.off >= len(r.buf) {
			r.err = ErrTruncated
			return 0
		}
		b := r.buf[r.off]
		r.off++
		if i == MaxVarintLen-1 && b > 1 {
			r.err = ErrOverflow
			return 0
		}
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			if b == 0 && i > 0 {
				r.err = ErrNonCanonical
				return 0
			}
			return v
		}
	}
	r.err = ErrOverflow
	return 0
}

// Uvarint32 reads an unsigned varint that must fit 32 bits (else ErrOverflow).
func (r *Reader) Uvarint32() uint32 {
	v := r.Uvarint()
	if v > math.MaxUint32 {
		r.Fail(ErrOverflow)
		return 0
	}
	return uint32(v)
}

// Varint reads a zig-zag encoded signed varint.
func (r *Reader) Varint() int64 { return UnZigZag(r.Uvarint()) }

// Count reads an unsigned varint that must not exceed limit (else
// ErrTooLarge). Use it for lengths and element counts before allocating.
func (r *Reader) Count(limit int) int {
	v := r.Uvarint()
	if r.err != nil {
		return 0
	}
	if limit < 0 || v > uint64(limit) {
		r.err = ErrTooLarge
		return 0
	}
	return int(v)
}

// Raw reads the next n bytes. The slice aliases the input.
func (r *Reader) Raw(n int) []byte { return r.take(n) }

// Rest reads every unread byte. The slice aliases the input.
func (r *Reader) Rest() []byte { return r.take(r.Len()) }

// LenBytes reads a varint length of at most limit bytes (else ErrTooLarge),
// then that many bytes. The slice aliases the input; nothing is allocated.
func (r *Reader) LenBytes(limit int) []byte {
	n := r.Count(limit)
	if r.err != nil {
		return nil
	}
	return r.take(n)
}

// String reads a varint length of at most limit bytes, then that many bytes
// of valid UTF-8 (else ErrInvalid), as a new string. It allocates the
// checked length, never more.
func (r *Reader) String(limit int) string {
	p := r.LenBytes(limit)
	if p == nil {
		return ""
	}
	if !utf8.Valid(p) {
		r.Fail(ErrInvalid)
		return ""
	}
	return string(p)
}
