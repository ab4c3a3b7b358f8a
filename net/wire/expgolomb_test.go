package wire

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpGolombLayout pins the code's bits: order 0 gives 0 → "1",
// 1 → "0 1 0", 2 → "0 1 1", 3 → "00 1 00"; order 2 gives 0 → "1 00".
func TestExpGolombLayout(t *testing.T) {
	cases := []struct {
		u    uint64
		k    uint
		bits string // in writing order
	}{
		{0, 0, "1"}, {1, 0, "010"}, {2, 0, "011"}, {3, 0, "00100"}, {6, 0, "00111"}, {7, 0, "0001000"},
		{0, 2, "100"}, {3, 2, "111"}, {4, 2, "01000"}, {5, 2, "01100"},
	}
	for _, c := range cases {
		w := NewBitWriter(nil)
		w.WriteExpGolomb(c.u, c.k)
		if w.BitLen() != len(c.bits) {
			t.Fatalf("EG%d(%d) takes %d bits, want %d", c.k, c.u, w.BitLen(), len(c.bits))
		}
		out := w.Finish()
		r := NewBitReader(out)
		for i, ch := range c.bits {
			if got := r.ReadBool(); got != (ch == '1') {
				t.Fatalf("EG%d(%d) bit %d = %v, want %c", c.k, c.u, i, got, ch)
			}
		}
		r.Reset(out)
		if got := r.ReadExpGolomb(c.k); got != c.u || r.Finish() != nil {
			t.Fatalf("EG%d(%d) reads back %d (%v)", c.k, c.u, got, r.Err())
		}
	}
}

func TestExpGolombRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type val struct {
		u    uint64
		k    uint
		bits uint // plain bits written before it
	}
	var vals []val
	for i := range 20000 {
		shift := uint(rng.IntN(63))
		u := rng.Uint64() >> (1 + shift)
		if i%7 == 0 {
			u = uint64(rng.IntN(4))
		}
		vals = append(vals, val{u: u, k: uint(rng.IntN(MaxExpGolombOrder + 1)), bits: uint(rng.IntN(9))})
	}
	vals = append(vals, val{u: math.MaxInt64, k: 0}, val{u: math.MaxInt64 - (1<<31 - 1), k: 31}, val{u: 1 << 40, k: 31})
	w := NewBitWriter(nil)
	for _, v := range vals {
		w.WriteBits(0x55, v.bits)
		w.WriteExpGolomb(v.u, v.k)
	}
	out := w.Finish()
	r := NewBitReader(out)
	for i, v := range vals {
		if got := r.ReadBits(v.bits); got != 0x55&(1<<v.bits-1) {
			t.Fatalf("value %d: plain bits %x", i, got)
		}
		if got := r.ReadExpGolomb(v.k); got != v.u {
			t.Fatalf("value %d: EG%d(%d) read back as %d (%v)", i, v.k, v.u, got, r.Err())
		}
	}
	if err := r.Finish(); err != nil {
		t.Fatal(err)
	}
	w.Reset(nil)
	for _, v := range []int64{0, -1, 1, -300, 1 << 40, math.MinInt64 / 2} {
		w.WriteSigned(v, 3)
	}
	r.Reset(w.Finish())
	for _, v := range []int64{0, -1, 1, -300, 1 << 40, math.MinInt64 / 2} {
		if got := r.ReadSigned(3); got != v {
			t.Fatalf("signed %d read back as %d", v, got)
		}
	}
}

func TestExpGolombErrors(t *testing.T) {
	// The one never comes: truncated, however long the run of zeros.
	for _, in := range [][]byte{{0}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}} {
		r := NewBitReader(in)
		if r.ReadExpGolomb(0) != 0 || r.Err() == nil {
			t.Fatalf("% x: no error", in)
		}
	}
	// Three zeros, the one, three value bits: a code ending at the last bit.
	r := NewBitReader([]byte{0b0000_1000})
	if r.ReadExpGolomb(0) != 7 || r.Err() != nil {
		t.Fatalf("a code ending at the last bit: %v", r.Err())
	}
	// Seven zeros, the one at the last bit, seven value bits missing.
	r.Reset([]byte{0b1000_0000})
	if r.ReadExpGolomb(0) != 0 || !errors.Is(r.Err(), ErrTruncated) {
		t.Fatalf("missing value bits: %v", r.Err())
	}
	// A prefix longer than any value below 2^63: overflow, not a huge read.
	long := make([]byte, 12)
	long[11] = 0x80
	r.Reset(long)
	if r.ReadExpGolomb(0) != 0 || !errors.Is(r.Err(), ErrOverflow) {
		t.Fatalf("64-bit prefix: %v", r.Err())
	}
}

// FuzzExpGolomb decodes a run of Exp-Golomb codes of orders taken from the
// input: no panic, every value re-encodes to the bits it was read from.
func FuzzExpGolomb(f *testing.F) {
	f.Add([]byte{0, 0x01})
	f.Add([]byte{3, 0x2a, 0xff, 0x00, 0x10})
	f.Add([]byte{31, 0, 0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1 {
			return
		}
		k := uint(data[0] % (MaxExpGolombOrder + 1))
		in := data[1:]
		r := NewBitReader(in)
		w := NewBitWriter(nil)
		for r.BitsLeft() >= 8 {
			u := r.ReadExpGolomb(k)
			if r.Err() != nil {
				return
			}
			w.WriteExpGolomb(u, k)
		}
		left := uint(r.BitsLeft())
		w.WriteBits(r.ReadBits(left), left)
		if out := w.Finish(); !bytes.Equal(out, in) {
			t.Fatalf("read % x, wrote back % x", in, out)
		}
	})
}

func TestBitWriterTruncate(t *testing.T) {
	for cut := 0; cut <= 130; cut++ {
		w := NewBitWriter(nil)
		w.WriteBits(0xa5a5a5a5a5a5a5a5, 64)
		w.WriteBits(0x3, 2)
		w.WriteBits(0x5a5a5a5a5a5a5a5a, 64)
		w.Truncate(cut)
		if w.BitLen() != cut {
			t.Fatalf("cut %d: BitLen %d", cut, w.BitLen())
		}
		w.WriteBits(0x1ff, 9)
		r := NewBitReader(w.Finish())
		want := NewBitWriter(nil)
		want.WriteBits(0xa5a5a5a5a5a5a5a5, 64)
		want.WriteBits(0x3, 2)
		want.WriteBits(0x5a5a5a5a5a5a5a5a, 64)
		ref := NewBitReader(want.Finish())
		for i := 0; i < cut; i++ {
			if r.ReadBool() != ref.ReadBool() {
				t.Fatalf("cut %d: bit %d differs", cut, i)
			}
		}
		if r.ReadBits(9) != 0x1ff {
			t.Fatalf("cut %d: bits written after the cut", cut)
		}
	}
}
