package replicate

import (
	"testing"

	"github.com/tandem-go/tandem/net/wire"
)

// FuzzStreamCode: a stream code's one-write fast path writes the bits of
// its general path, and reading them gives the value back.
func FuzzStreamCode(f *testing.F) {
	for _, u := range []uint64{0, 1, 2, 3, 1024, 1<<32 - 1, 1<<33 + 5, 1<<62 - 1} {
		f.Add(false, uint8(0), u)
		f.Add(true, uint8(4), u)
		f.Add(true, uint8(31), u)
	}
	f.Fuzz(func(t *testing.T, zero bool, k uint8, u uint64) {
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
	})
}
