// Package joincode makes and reads join lines: one string, ADDRESS/CODE,
// that tells a player where a hosted game is and how to know it is the
// right host. The code is made from the host certificate's SHA-256
// fingerprint, as quicnet.Transport.Fingerprint gives it.
//
// In the pipeline it sits in front of package quicnet, before any
// connection: a host makes its lines with Lines from the address players
// reach it at (quicnet.ReachableAddr of its listener's address) and its
// fingerprint, and shows them; a player's client reads the line typed or
// pasted with Parse, dials Code.Addr, and pins the host with Code.Apply on
// the quicnet.Config it dials with. Nothing of it travels on the wire: the
// host's certificate comes in the TLS handshake and the client compares it
// with the code there.
//
// A join line comes in two lengths:
//
//   - the full line, to paste: 52 code characters carry all 256 bits of
//     the fingerprint, so joining with it is as safe as pinning the
//     fingerprint itself (quicnet.Config.Fingerprint);
//   - the short code, to read out: 11 characters carry the fingerprint's
//     first 55 bits, grouped by four (192.168.1.20:4242/C63K-2XDP-JE3M).
//
// Both end in a check character, so a code misheard or mistyped is refused
// by Parse, with a message saying what is wrong, before anything is sent,
// rather than failing later as a wrong host. The characters are Crockford's
// base 32: digits and letters without I, L, O and U; Parse reads I and L as
// 1 and O as 0, in either case, and skips dashes and spaces.
//
// What the short code costs in safety: the client only checks that the
// host's certificate fingerprint starts with the code's 55 bits. To pass for
// the host, someone on the network path must make a certificate whose
// fingerprint starts with those bits, about 2^55 (3.6e16) SHA-256 hashes of
// a certificate, and must do so between learning the code and the friend
// joining: days of work for a rack of GPUs, far beyond anyone who merely
// shares the Wi-Fi. That is enough for a game among friends. The full line
// leaves an attacker no such margin and is what scripts and programs should
// pass around.
package joincode

import (
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"unicode"

	"github.com/tandem-go/tandem/net/transport/quicnet"
)

// Code sizes, in base-32 characters before the check character.
const (
	fullLen  = 52 // 256 bits of fingerprint, then 4 zero bits
	shortLen = 11 // 55 bits
)

// fullBits and shortBits are the fingerprint bits each code carries.
const (
	fullBits  = 256
	shortBits = shortLen * 5
)

// digits are Crockford's base 32.
const digits = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// The check character is the sum, in the field of 32 elements (GF(2^5),
// x^5 + x^2 + 1), of each character times a weight α^i (α = x, i its place):
// any one character changed changes the sum (a weight is never 0), and so
// do any two neighbours swapped (neighbouring weights differ), whichever the
// characters. (A number mod 29 would miss 0/X, 1/Y and 2/Z swapped: 29
// apart, one code in 170.)
const checkPoly = 0b100101

// gfMul multiplies a and b in GF(2^5) modulo checkPoly.
func gfMul(a, b int) int {
	p := 0
	for b != 0 {
		if b&1 != 0 {
			p ^= a
		}
		b >>= 1
		if a <<= 1; a&0b100000 != 0 {
			a ^= checkPoly
		}
	}
	return p
}

// checkOf returns the check character's value of the code's characters ds.
func checkOf(ds []int) int {
	sum, w := 0, 1
	for _, d := range ds {
		sum ^= gfMul(w, d)
		w = gfMul(w, 2)
	}
	return sum
}

// ErrInvalid is matched (errors.Is) by every error of Parse, New and Lines:
// what was given is not a join line, an address or a fingerprint. The
// error's own message says what is wrong, written for the player.
var ErrInvalid = errors.New("joincode: not a join line")

// ErrMismatch is matched by Check's refusal, and so by the error of a Dial
// that a short code pinned (Apply): the host's certificate is not the one
// the code names. A full line's mismatch is a *quicnet.FingerprintError
// instead; both match transport.ErrUntrusted, which is the one to test for.
var ErrMismatch = errors.New("joincode: the host's certificate does not match the join code")

// invalid is an error of Parse, New or Lines: its text is for the player,
// and it is an ErrInvalid.
type invalid string

func (e invalid) Error() string        { return string(e) }
func (e invalid) Is(target error) bool { return target == ErrInvalid }

// mismatch is Check's refusal, an ErrMismatch.
type mismatch struct{}

func (mismatch) Error() string {
	return "the host's certificate does not match the join code: check the code with the host (a host that does not keep its certificate has a new code each time it starts), or someone is impersonating the host"
}
func (mismatch) Is(target error) bool { return target == ErrMismatch }

// Code is a parsed join line: where the host is and the fingerprint bits
// its certificate must show. The zero Code matches no host.
type Code struct {
	addr string
	bits []byte // the fingerprint's first n bits, the rest of the last byte zero
	n    int    // bits the code carries: fullBits, shortBits, or 0 for none
}

// Lines returns the full join line and the short code of a host that
// players reach at addr (HOST:PORT) and whose certificate has fingerprint,
// the 64 hex digits quicnet.Transport.Fingerprint returns (colons, spaces
// and case are ignored, as quicnet.Config.Fingerprint ignores them). It
// fails only for an address Parse would refuse or a fingerprint that is not
// a SHA-256.
func Lines(addr, fingerprint string) (full, short string, err error) {
	if err := checkAddr(addr); err != nil {
		return "", "", fmt.Errorf("joincode: %w", err)
	}
	fp, ok := decodeFingerprint(fingerprint)
	if !ok {
		return "", "", invalid(fmt.Sprintf("joincode: %q is not a certificate fingerprint: want the 64 hex digits of a SHA-256, as quicnet.Transport.Fingerprint gives them", fingerprint))
	}
	return addr + "/" + encode(fp, fullLen), addr + "/" + group(encode(fp, shortLen)), nil
}

// New returns the Code of the full join line of the host at addr whose
// certificate has fingerprint (hex, as Lines takes it): for a game that
// receives the address and the fingerprint apart, as two flags or in a
// matchmaker's answer, and pins the host with Apply all the same. Its
// errors are written for the player, as Parse's are.
func New(addr, fingerprint string) (Code, error) {
	if err := checkAddr(addr); err != nil {
		return Code{}, err
	}
	fp, ok := decodeFingerprint(fingerprint)
	if !ok {
		return Code{}, invalid("the host's fingerprint is damaged: it should be 64 hex digits; copy it again")
	}
	return Code{addr: addr, bits: fp, n: fullBits}, nil
}

// Parse reads a join line or a short code as a player typed or pasted it:
// ADDRESS/CODE, with spaces around either ignored. A damaged one is refused
// with an error that says what is wrong and what to do, written to be shown
// to the player as it is.
func Parse(line string) (Code, error) {
	s := strings.TrimSpace(line)
	slash := strings.LastIndexByte(s, '/')
	if slash < 0 {
		return Code{}, invalid("a join line is the host's address, a slash and its code, like 192.168.1.20:4242/C63K-2XDP-JE3M")
	}
	addr, code := strings.TrimSpace(s[:slash]), s[slash+1:]
	if err := checkAddr(addr); err != nil {
		return Code{}, err
	}
	var ds []int
	for _, r := range strings.ToUpper(code) {
		switch r {
		case '-', ' ':
			continue
		case 'I', 'L':
			r = '1'
		case 'O':
			r = '0'
		}
		d := strings.IndexRune(digits, r)
		if d < 0 {
			return Code{}, invalid(fmt.Sprintf("the code has %q, which no join code has (digits and letters except I, L, O and U); check it with the host", r))
		}
		ds = append(ds, d)
	}
	n := len(ds) - 1
	if n != shortLen && n != fullLen {
		return Code{}, invalid(fmt.Sprintf("the code has %d characters; a short code has %d and a full join line's %d, its check character included: some are missing or doubled", len(ds), shortLen+1, fullLen+1))
	}
	if checkOf(ds[:n]) != ds[n] {
		return Code{}, invalid("the code is damaged: its last character does not match the others; ask the host to read it again")
	}
	c := Code{addr: addr, n: fullBits, bits: make([]byte, (n*5+7)/8)}
	if n == shortLen {
		c.n = shortBits
	}
	for i, d := range ds[:n] {
		for j := range 5 {
			if d&(0x10>>j) != 0 {
				bit := i*5 + j
				c.bits[bit/8] |= 0x80 >> (bit % 8)
			}
		}
	}
	if n == fullLen {
		if c.bits[32] != 0 {
			return Code{}, invalid("the code is damaged: its last characters do not spell a fingerprint; copy the whole line again")
		}
		c.bits = c.bits[:32]
	}
	return c, nil
}

// Addr returns the host's address, HOST:PORT, to dial.
func (c Code) Addr() string { return c.addr }

// Full reports whether the code carries the whole fingerprint (a full join
// line, or New) rather than a short code's first 55 bits.
func (c Code) Full() bool { return c.n == fullBits }

// Check reports whether a host certificate's SHA-256 starts with the
// code's bits, comparing in constant time: nil if it does, else an error
// that says the host is not the one the code names. It is what Apply sets
// as quicnet.Config.CheckFingerprint for a short code.
func (c Code) Check(sum [32]byte) error {
	if c.n == 0 {
		return invalid("joincode: no join code to check the host against; read one with Parse")
	}
	whole := c.n / 8
	eq := subtle.ConstantTimeCompare(sum[:whole], c.bits[:whole])
	if rest := c.n % 8; rest > 0 {
		mask := byte(0xff << (8 - rest))
		eq &= subtle.ConstantTimeByteEq(sum[whole]&mask, c.bits[whole]&mask)
	}
	if eq != 1 {
		return mismatch{}
	}
	return nil
}

// Apply pins the host on cfg, a client's configuration: a full code sets
// cfg.Fingerprint (a mismatch fails Dial with a *quicnet.FingerprintError),
// a short code sets cfg.CheckFingerprint to Check. Either way it clears the
// other one and cfg.InsecureSkipVerify. A zero Code's check refuses every
// host.
func (c Code) Apply(cfg *quicnet.Config) {
	cfg.InsecureSkipVerify = false
	if c.Full() {
		cfg.Fingerprint = hex.EncodeToString(c.bits)
		cfg.CheckFingerprint = nil
		return
	}
	cfg.Fingerprint = ""
	cfg.CheckFingerprint = c.Check
}

// encode writes the first chars characters' worth of fingerprint fp in base
// 32, then the check character.
func encode(fp []byte, chars int) string {
	var b strings.Builder
	ds := make([]int, 0, chars)
	for i := range chars {
		d := 0
		for j := range 5 {
			bit := i*5 + j
			d <<= 1
			if bit < len(fp)*8 && fp[bit/8]&(0x80>>(bit%8)) != 0 {
				d |= 1
			}
		}
		b.WriteByte(digits[d])
		ds = append(ds, d)
	}
	b.WriteByte(digits[checkOf(ds)])
	return b.String()
}

// group puts a dash between every four characters.
func group(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i += 4 {
		if i > 0 {
			b.WriteByte('-')
		}
		b.WriteString(s[i:min(i+4, len(s))])
	}
	return b.String()
}

// decodeFingerprint reads a SHA-256 fingerprint in hex, as
// quicnet.ParseFingerprint does.
func decodeFingerprint(s string) ([]byte, bool) {
	fp, err := quicnet.ParseFingerprint(s)
	return fp, err == nil
}

// checkAddr reports whether addr is HOST:PORT, with no spaces in it (Parse
// trims them, and no host name has one).
func checkAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || strings.ContainsFunc(addr, unicode.IsSpace) {
		return invalid(fmt.Sprintf("%q is not an address: write HOST:PORT, like 192.168.1.20:4242", addr))
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return invalid(fmt.Sprintf("the port %q is not a port number (1 to 65535)", port))
	}
	return nil
}
