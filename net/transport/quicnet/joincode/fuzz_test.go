package joincode_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/net/transport/quicnet/joincode"
)

// FuzzParse: nothing typed or pasted makes Parse panic, and a code it
// accepts has an address Lines takes; the lines Lines makes of any address
// it takes and any fingerprint parse back to that address and that
// fingerprint's bits: all 256 for the join line, exactly the first 55 for
// the short code.
func FuzzParse(f *testing.F) {
	sum := sha256.Sum256(nil)
	full, short, _ := joincode.Lines("[::1]:4242", hex.EncodeToString(sum[:]))
	f.Add(full, "[::1]:4242", sum[:])
	f.Add(short, "192.168.1.20:4242", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add("join with: demo -join a:1 -pin zz", "a/b:1", []byte(nil))
	f.Add("a:1/"+short[len("[::1]:4242/"):]+"0", " a:1", []byte("x"))
	f.Fuzz(func(t *testing.T, line, addr string, fpBytes []byte) {
		if c, err := joincode.Parse(line); err == nil {
			if _, _, err := joincode.Lines(c.Addr(), hex.EncodeToString(sum[:])); err != nil {
				t.Fatalf("Parse(%q) accepted the address %q, which Lines refuses: %v", line, c.Addr(), err)
			}
			c.Check(sum)
		}

		var fp [32]byte
		copy(fp[:], fpBytes)
		full, short, err := joincode.Lines(addr, hex.EncodeToString(fp[:]))
		if err != nil {
			return
		}
		jf, err := joincode.Parse(full)
		if err != nil || !jf.Full() || jf.Addr() != addr {
			t.Fatalf("the join line %q parses as %+v, %v", full, jf, err)
		}
		var cfg quicnet.Config
		jf.Apply(&cfg)
		if cfg.Fingerprint != hex.EncodeToString(fp[:]) {
			t.Fatalf("the join line %q pins %q, want %x", full, cfg.Fingerprint, fp)
		}
		js, err := joincode.Parse(short)
		if err != nil || js.Full() || js.Addr() != addr {
			t.Fatalf("the short code %q parses as %+v, %v", short, js, err)
		}
		if err := js.Check(fp); err != nil {
			t.Fatalf("the short code %q refuses its own fingerprint: %v", short, err)
		}
		for bit := range 256 {
			other := fp
			other[bit/8] ^= 0x80 >> (bit % 8)
			if refused := js.Check(other) != nil; refused != (bit < 55) {
				t.Fatalf("the short code %q with fingerprint bit %d flipped: refused %t, want %t", short, bit, refused, bit < 55)
			}
			if jf.Check(other) == nil {
				t.Fatalf("the join line %q accepts its fingerprint with bit %d flipped", full, bit)
			}
		}
	})
}
