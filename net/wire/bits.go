package wire

import (
	"encoding/binary"
	"math/bits"
)

// BitWriter appends values of 0 to 64 bits each to a caller-owned byte slice,
// least significant bit first: the first bit written is bit 0 of the first
// byte. It pays where fields are a few bits wide (flags, quantized values,
// the replication items' variable-length codes); byte-sized fields are
// cheaper with Writer.
//
// Bits gather in a 64-bit accumulator that goes to the slice eight bytes at a
// time. Like Writer it allocates only when the slice's capacity runs out.
type BitWriter struct {
	buf []byte
	acc uint64 // pending bits, least significant first
	n   uint   // number of pending bits in acc, always < 64 between calls
}

// NewBitWriter returns a BitWriter that appends to buf after its current
// contents (pass buf[:0] to start empty).
func NewBitWriter(buf []byte) BitWriter { return BitWriter{buf: buf} }

// Reset makes w append to buf after its current contents and drops pending
// bits.
func (w *BitWriter) Reset(buf []byte) { *w = BitWriter{buf: buf} }

// WriteBits appends the low n bits of v (n from 0 to 64; more is taken as 64).
// Bits of v above n are ignored.
func (w *BitWriter) WriteBits(v uint64, n uint) {
	if n < 64 {
		v &= 1<<(n&63) - 1
	} else {
		n = 64
	}
	// w.n < 64 always: the masks only spare the shifts their check.
	w.acc |= v << (w.n & 63)
	if w.n+n < 64 {
		w.n += n
		return
	}
	w.buf = binary.LittleEndian.AppendUint64(w.buf, w.acc)
	spill := 64 - w.n // bits of v that went out, 1 to 64
	w.n = w.n + n - 64
	if spill >= 64 {
		w.acc = 0
	} else {
		w.acc = v >> (spill & 63)
	}
}

// WriteBool appends one bit: 1 for true.
func (w *BitWriter) WriteBool(b bool) {
	var v uint64
	if b {
		v = 1
	}
	w.WriteBits(v, 1)
}

// WriteExpGolomb appends u in the order-k Exp-Golomb code (see
// PROTOCOL.md §1): with v = u + 2^k of bit length L, L−1−k zero bits, a one,
// then the low L−1 bits of v. Small values take few bits (order 0: 0 in one
// bit, 1–2 in three, 3–6 in five); k shifts that scale by 2^k. k is at most
// MaxExpGolombOrder and u below 2^63.
func (w *BitWriter) WriteExpGolomb(u uint64, k uint) {
	v := u + 1<<k
	l := uint(bits.Len64(v)) - 1 // bits after the leading one
	q := l - k                   // zero bits before the one
	if q+l < 63 {
		// The prefix, the one and the low bits in one write.
		w.WriteBits((v&(1<<l-1))<<(q+1)|1<<q, 2*q+1+k)
		return
	}
	w.WriteBits(0, q)
	w.WriteBits(1, 1)
	w.WriteBits(v, l)
}

// WriteSigned appends v zig-zag mapped (0, −1, 1, −2, … become 0, 1, 2, 3, …)
// in the order-k Exp-Golomb code.
func (w *BitWriter) WriteSigned(v int64, k uint) { w.WriteExpGolomb(ZigZag(v), k) }

// BitLen returns the number of bits written since the last Reset, counting
// the bytes the buffer held before as 8 bits each.
func (w *BitWriter) BitLen() int { return len(w.buf)*8 + int(w.n) }

// Truncate drops what was written after the first n bits (n from BitLen
// before the writes to take back), so a writer can try a value and take it
// back when it does not fit.
func (w *BitWriter) Truncate(n int) {
	if n >= w.BitLen() {
		return
	}
	if n >= 8*len(w.buf) {
		w.n = uint(n - 8*len(w.buf))
		w.acc &= 1<<w.n - 1
		return
	}
	// Take the whole bytes from n on back into the accumulator.
	full := n / 8
	w.n = uint(n - 8*full)
	w.acc = uint64(w.buf[full]) & (1<<w.n - 1)
	w.buf = w.buf[:full]
}

// Finish pads the pending bits with zeros to a whole byte, appends them, and
// returns the buffer. Writing may go on after it, starting at a new byte.
func (w *BitWriter) Finish() []byte {
	for w.n > 0 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.n = w.n - min(w.n, 8)
	}
	w.acc = 0
	return w.buf
}

// MaxExpGolombOrder is the largest order k of an Exp-Golomb code.
const MaxExpGolombOrder = 31

// maxExpGolombPrefix is the longest run of zero bits a reader accepts before
// an Exp-Golomb code's one: values up to 2^63 need 63 minus the order.
const maxExpGolombPrefix = 63

// BitReader reads values written by BitWriter. Like Reader it never panics,
// never allocates, and keeps the first error (ErrTruncated when the input
// ends inside a value); later reads return 0.
type BitReader struct {
	buf []byte
	pos uint64 // bit position
	err error
}

// NewBitReader returns a BitReader over p.
func NewBitReader(p []byte) BitReader { return BitReader{buf: p} }

// Reset makes r read p from its first bit and clears its error.
func (r *BitReader) Reset(p []byte) { *r = BitReader{buf: p} }

// Err returns the first error met, or nil.
func (r *BitReader) Err() error { return r.err }

// Fail records err unless an error is already set.
func (r *BitReader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// BitsLeft returns the number of unread bits (0 once an error is set).
func (r *BitReader) BitsLeft() int {
	if r.err != nil {
		return 0
	}
	return int(uint64(len(r.buf))*8 - r.pos)
}

// peek returns the next 64 bits from the reader's position (zeros past the
// end), least significant first, without moving.
func (r *BitReader) peek() uint64 {
	byteOff := r.pos >> 3
	shift := r.pos & 7
	var v uint64
	if byteOff+8 <= uint64(len(r.buf)) {
		v = binary.LittleEndian.Uint64(r.buf[byteOff:])
	} else {
		for i := uint64(0); byteOff+i < uint64(len(r.buf)); i++ {
			v |= uint64(r.buf[byteOff+i]) << (8 * i)
		}
	}
	v >>= shift
	if shift > 0 && byteOff+8 < uint64(len(r.buf)) {
		v |= uint64(r.buf[byteOff+8]) << (64 - shift)
	}
	return v
}

// ReadBits reads n bits (0 to 64; more is taken as 64), least significant
// first.
func (r *BitReader) ReadBits(n uint) uint64 {
	if n > 64 {
		n = 64
	}
	if r.err != nil {
		return 0
	}
	if uint64(n) > uint64(len(r.buf))*8-r.pos {
		r.err = ErrTruncated
		return 0
	}
	if n == 0 {
		return 0
	}
	v := r.peek()
	r.pos += uint64(n)
	if n < 64 {
		v &= 1<<n - 1
	}
	return v
}

// ReadBool reads one bit.
func (r *BitReader) ReadBool() bool { return r.ReadBits(1) == 1 }

// ReadExpGolomb reads an order-k Exp-Golomb code (see WriteExpGolomb). A run
// of zeros longer than a value below 2^63 can have is ErrOverflow.
func (r *BitReader) ReadExpGolomb(k uint) uint64 {
	if r.err != nil {
		return 0
	}
	left := uint64(len(r.buf))*8 - r.pos
	w := r.peek()
	q := uint(bits.TrailingZeros64(w))
	if q >= 32 {
		// A long prefix: count it past the window.
		q = 0
		for {
			if r.err != nil {
				return 0
			}
			if r.ReadBool() {
				break
			}
			q++
			if q+k > maxExpGolombPrefix {
				r.Fail(ErrOverflow)
				return 0
			}
		}
		low := r.ReadBits(q + k)
		return (1<<(q+k) | low) - 1<<k
	}
	if uint64(q) >= left {
		r.err = ErrTruncated
		return 0
	}
	l := q + k
	if q+1+l <= 64 {
		if uint64(q+1+l) > left {
			r.err = ErrTruncated
			return 0
		}
		r.pos += uint64(q + 1 + l)
		low := (w >> (q + 1))
		if l < 64 {
			low &= 1<<l - 1
		}
		return (1<<l | low) - 1<<k
	}
	r.pos += uint64(q + 1)
	low := r.ReadBits(l)
	if r.err != nil {
		return 0
	}
	if l > 63 {
		r.Fail(ErrOverflow)
		return 0
	}
	return (1<<l | low) - 1<<k
}

// ReadSigned reads what WriteSigned wrote.
func (r *BitReader) ReadSigned(k uint) int64 { return UnZigZag(r.ReadExpGolomb(k)) }

// Finish checks that only the zero padding of the last byte is left: it
// returns Err, ErrTrailing when whole bytes remain, or ErrInvalid when the
// padding bits are not zero.
func (r *BitReader) Finish() error {
	if r.err != nil {
		return r.err
	}
	left := uint64(len(r.buf))*8 - r.pos
	if left >= 8 {
		r.err = ErrTrailing
		return r.err
	}
	if left > 0 && r.ReadBits(uint(left)) != 0 {
		r.err = ErrInvalid
	}
	return r.err
}
