package wire

// BitWriter appends values of 0 to 64 bits each to a caller-owned byte slice,
// least significant bit first: the first bit written is bit 0 of the first
// byte. It pays where fields are a few bits wide (flags, quantized values);
// byte-sized fields are cheaper with Writer.
//
// Like Writer it allocates only when the slice's capacity runs out.
type BitWriter struct {
	buf []byte
	acc uint64 // pending bits, least significant first
	n   uint   // number of pending bits in acc, always < 8 between calls
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
	if n > 64 {
		n = 64
	}
	if n > 56 {
		w.WriteBits(v, 32)
		v >>= 32
		n -= 32
	}
	if n < 64 {
		v &= 1<<n - 1
	}
	w.acc |= v << w.n
	w.n += n
	for w.n >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

// WriteBool appends one bit: 1 for true.
func (w *BitWriter) WriteBool(b bool) {
	if b {
		w.WriteBits(1, 1)
	} else {
		w.WriteBits(0, 1)
	}
}

// BitLen returns the number of bits written since the last Reset, counting
// the bytes the buffer held before as 8 bits each.
func (w *BitWriter) BitLen() int { return len(w.buf)*8 + int(w.n) }

// Finish pads the pending bits with zeros to a whole byte, appends it, and
// returns the buffer. Writing may go on after it, starting at a new byte.
func (w *BitWriter) Finish() []byte {
	if w.n > 0 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc, w.n = 0, 0
	}
	return w.buf
}

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
	var v uint64
	var got uint
	for got < n {
		off := uint(r.pos & 7)
		take := min(8-off, n-got)
		bits := uint64(r.buf[r.pos>>3]>>off) & (1<<take - 1)
		v |= bits << got
		got += take
		r.pos += uint64(take)
	}
	return v
}

// ReadBool reads one bit.
func (r *BitReader) ReadBool() bool { return r.ReadBits(1) == 1 }

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
