package replicate

import (
	"bytes"
	"errors"
	"testing"

	"github.com/tandem-go/tandem/net/wire"
)

// FuzzStreamCode: a stream code's one-write fast path, its word and its
// table's word write the bits of its general path, and reading them gives
// the value back. And the decoder, given any bits (data, read from bit
// off = k>>5 on), returns ErrTruncated, ErrOverflow, or a value whose code
// is exactly the bits it read (an Exp-Golomb code, behind a zero flag or
// not, is canonical: one word a value), never reading past the buffer nor
// letting the bits after the word change what it read; ErrTruncated only
// where more bits would have ended the word.
func FuzzStreamCode(f *testing.F) {
	for _, u := range []uint64{0, 1, 2, 3, 1024, 1<<32 - 1, 1<<33 + 5, 1<<62 - 1} {
		f.Add(false, uint8(0), u, []byte(nil))
		f.Add(true, uint8(4), u, []byte(nil))
		f.Add(true, uint8(31), u, []byte(nil))
	}
	// Words read from arbitrary bits: a value's own, a long prefix, the
	// longest prefix an order accepts and one past it, and a cut word.
	f.Add(false, uint8(3|5<<5), uint64(0), []byte{0xa5, 0x3c, 0x00, 0x01, 0xff})
	f.Add(false, uint8(0), uint64(0), []byte{0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add(true, uint8(0), uint64(0), []byte{1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add(false, uint8(0), uint64(0), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add(false, uint8(31|7<<5), uint64(0), []byte{0, 0, 0, 0, 0x01})
	f.Add(true, uint8(2), uint64(0), []byte{0x02, 0x00})
	f.Fuzz(func(t *testing.T, zero bool, k uint8, u uint64, data []byte) {
		c := code{zero: zero, k: k % (maxOrder + 1)}
		u &= 1<<62 - 1 // Exp-Golomb codes values below 2⁶³; streams carry at most 2³³
		var fast, slow wire.BitWriter
		fast.WriteBits(5, 3) // not byte-aligned
		slow.WriteBits(5, 3)
		c.write(&fast, u)
		c.put(&slow, u)
		fb, sb := fast.BitLen(), slow.BitLen()
		a, b := string(fast.Finish()), string(slow.Finish())
		if fb != sb || a != b {
			t.Fatalf("code %+v, %d: fast path %d bits % x, general %d bits % x", c, u, fb, a, sb, b)
		}
		r := wire.NewBitReader([]byte(a))
		r.ReadBits(3)
		if got := c.get(&r); got != u || r.Err() != nil {
			t.Fatalf("code %+v: wrote %d, read %d (%v)", c, u, got, r.Err())
		}
		// The word the messages' writers take (a count of 0: longer than
		// 64 bits, put's) and the table's, for the values it holds.
		var tabs codeTables
		wx, wn := c.word(u)
		tx, tn := tabs.of(c).word(u)
		if wn == 0 && sb-3 <= 64 {
			t.Fatalf("code %+v, %d: word says longer than 64 bits, the code is %d", c, u, sb-3)
		}
		for _, w := range []struct {
			name string
			x    uint64
			n    uint
		}{{"word", wx, wn}, {"table", tx, tn}} {
			if w.n == 0 {
				continue // put's
			}
			var ww wire.BitWriter
			ww.WriteBits(5, 3)
			ww.WriteBits(w.x, w.n)
			if got := ww.BitLen(); got != sb || string(ww.Finish()) != b {
				t.Fatalf("code %+v, %d: %s %d bits, general %d bits % x", c, u, w.name, got-3, sb-3, b)
			}
		}

		decodeAny(t, c, uint(k>>5), data)
	})
}

// decodeAny reads one value in code c from data, bit off on, and checks
// what it read (FuzzStreamCode).
func decodeAny(t *testing.T, c code, off uint, data []byte) {
	if uint(len(data))*8 < off {
		return
	}
	r := wire.NewBitReader(data)
	r.ReadBits(off)
	left := r.BitsLeft()
	v := c.get(&r)
	err := r.Err()
	switch {
	case errors.Is(err, wire.ErrTruncated):
		// More bits would have ended the word: ones end any prefix, and
		// 128 of them hold the rest of any word.
		more := append(bytes.Clone(data), bytes.Repeat([]byte{0xff}, 16)...)
		r := wire.NewBitReader(more)
		r.ReadBits(off)
		c.get(&r)
		if err := r.Err(); err != nil && !errors.Is(err, wire.ErrOverflow) {
			t.Fatalf("code %+v: % x from bit %d is cut (%v), and with 128 one bits after it still %v", c, data, off, err, r.Err())
		}
		return
	case errors.Is(err, wire.ErrOverflow):
		return
	case err != nil:
		t.Fatalf("code %+v: % x from bit %d: error %v, neither ErrTruncated nor ErrOverflow", c, data, off, err)
	}
	n := left - r.BitsLeft() // the word's bits
	if n < 1 || n > left {
		t.Fatalf("code %+v: % x from bit %d: read %d bits of %d", c, data, off, n, left)
	}
	// What follows the word does not change it.
	for _, fill := range []byte{0x00, 0xff} {
		more := append(bytes.Clone(data), bytes.Repeat([]byte{fill}, 9)...)
		r := wire.NewBitReader(more)
		r.ReadBits(off)
		before := r.BitsLeft()
		if got := c.get(&r); got != v || r.Err() != nil || before-r.BitsLeft() != n {
			t.Fatalf("code %+v: % x from bit %d: %d in %d bits; followed by %#x bytes: %d in %d bits (%v)", c, data, off, v, n, fill, got, before-r.BitsLeft(), r.Err())
		}
	}
	// Canonical: v's code, by both writers, is the word read.
	var read wire.BitWriter
	rr := wire.NewBitReader(data)
	read.WriteBits(rr.ReadBits(off), off)
	for m := n; m > 0; m -= min(m, 64) {
		read.WriteBits(rr.ReadBits(uint(min(m, 64))), uint(min(m, 64)))
	}
	want := read.Finish()
	for _, fast := range []bool{false, true} {
		var w wire.BitWriter
		head := wire.NewBitReader(data)
		w.WriteBits(head.ReadBits(off), off)
		if fast {
			c.write(&w, v)
		} else {
			c.put(&w, v)
		}
		if got := w.BitLen() - int(off); got != n || !bytes.Equal(w.Finish(), want) {
			t.Fatalf("code %+v: % x from bit %d read %d in %d bits; written again (fast path %v): %d bits % x, want % x", c, data, off, v, n, fast, got, w.Finish(), want)
		}
	}
}
