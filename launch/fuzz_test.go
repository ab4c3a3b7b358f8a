package launch

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/tandem-go/tandem/net/transport/quicnet/joincode"
)

// FuzzParseJoin: nothing a player pastes makes ParseJoin panic; what it
// accepts names an address the host's lines can be made for, and a pasted
// "join with" line with an address and a whole pin parses to that address
// pinned by that fingerprint.
func FuzzParseJoin(f *testing.F) {
	sum := sha256.Sum256([]byte("a host"))
	fp := hex.EncodeToString(sum[:])
	full, short, _ := joincode.Lines("192.168.1.20:4242", fp)
	f.Add(full, "10.0.0.2:4242")
	f.Add(short, "[::1]:1")
	f.Add("join with: go run ./demo -join 10.0.0.2:4242 -pin "+fp, "a:1")
	f.Add("-join -pin -join x -pin", "")
	f.Fuzz(func(t *testing.T, line, addr string) {
		if c, err := ParseJoin(line); err == nil {
			if _, _, err := joincode.Lines(c.Addr(), fp); err != nil {
				t.Fatalf("ParseJoin(%q) accepted the address %q, which Lines refuses: %v", line, c.Addr(), err)
			}
		}
		if w := strings.Fields(addr); len(w) != 1 || w[0] != addr || addr == "-pin" || addr == "--pin" {
			return // not one word of a pasted line
		}
		pasted := "join with: mygame -join " + addr + " -pin " + fp
		c, err := ParseJoin(pasted)
		if _, _, lerr := joincode.Lines(addr, fp); lerr != nil {
			return // not an address a host prints
		}
		if err != nil || c.Addr() != addr || !c.Full() || c.Check(sum) != nil {
			t.Fatalf("the pasted line %q parses as %+v, %v; want %s pinned", pasted, c, err, addr)
		}
	})
}
