package joincode_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/net/transport/quicnet/joincode"
)

// digits are the characters of a code (Crockford's base 32).
const digits = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// lines returns the join line and short code of a host at addr with
// fingerprint fp, failing the test if Lines refuses them.
func lines(t *testing.T, addr, fp string) (full, short string) {
	t.Helper()
	full, short, err := joincode.Lines(addr, fp)
	if err != nil {
		t.Fatal(err)
	}
	return full, short
}

// A host's join line and short code parse back to its address and
// fingerprint: the whole of it, pinned as quicnet.Config.Fingerprint, or its
// first 55 bits, checked by quicnet.Config.CheckFingerprint (which the
// host's certificate passes and another fails).
func TestRoundTrip(t *testing.T) {
	sum := sha256.Sum256([]byte("a host's certificate"))
	fp := hex.EncodeToString(sum[:])
	full, short := lines(t, "192.168.1.20:4242", fp)
	t.Logf("join line %s, short code %s", full, short)
	if !strings.HasPrefix(full, "192.168.1.20:4242/") || len(full) != len("192.168.1.20:4242/")+53 {
		t.Fatalf("join line %q: want the address, a slash and 53 characters", full)
	}
	if !strings.HasPrefix(short, "192.168.1.20:4242/") || len(short) != len("192.168.1.20:4242/")+14 {
		t.Fatalf("short code %q: want the address, a slash and 12 characters grouped by four", short)
	}

	jf, err := joincode.Parse(full)
	if err != nil || !jf.Full() || jf.Addr() != "192.168.1.20:4242" {
		t.Fatalf("the join line parses as %+v, %v", jf, err)
	}
	cfg := quicnet.Config{InsecureSkipVerify: true, CheckFingerprint: func([32]byte) error { return nil }}
	jf.Apply(&cfg)
	if cfg.Fingerprint != fp || cfg.CheckFingerprint != nil || cfg.InsecureSkipVerify {
		t.Fatalf("the join line applied: %+v, want the fingerprint pinned and nothing else", cfg)
	}
	if jf.Check(sum) != nil {
		t.Fatal("the host's own certificate fails its join line")
	}

	js, err := joincode.Parse(strings.ToLower(strings.ReplaceAll(short, "-", " ")))
	if err != nil || js.Full() || js.Addr() != "192.168.1.20:4242" {
		t.Fatalf("the short code (lower case, spaced) parses as %+v, %v", js, err)
	}
	cfg = quicnet.Config{InsecureSkipVerify: true, Fingerprint: fp}
	js.Apply(&cfg)
	if cfg.Fingerprint != "" || cfg.CheckFingerprint == nil || cfg.InsecureSkipVerify {
		t.Fatalf("the short code applied: %+v, want its check and nothing else", cfg)
	}
	if err := cfg.CheckFingerprint(sum); err != nil {
		t.Fatalf("the host's own certificate fails its short code: %v", err)
	}
	other := sum
	other[6] ^= 0x04 // bit 53: inside the code's 55
	if js.Check(other) == nil {
		t.Fatal("a certificate differing in the code's bits passed the short code")
	}
	other = sum
	other[7] ^= 0x01 // bit 63: past the code
	if js.Check(other) != nil {
		t.Fatal("the short code checks bits it does not carry")
	}
	other = sum
	other[31] ^= 0x01 // the last bit: in the join line
	if err := jf.Check(other); !errors.Is(err, joincode.ErrMismatch) || !strings.Contains(err.Error(), "does not match the join code") {
		t.Fatalf("a certificate differing in its last bit: %v, want refused by the join line", err)
	}

	// I, L and O read as 1, 1 and 0; spaces around the line are ignored.
	code := short[strings.IndexByte(short, '/')+1:]
	misread := strings.NewReplacer("1", "l", "0", "o").Replace(code)
	if jm, err := joincode.Parse("  192.168.1.20:4242/" + misread + "\n"); err != nil || jm.Addr() != "192.168.1.20:4242" || jm.Check(sum) != nil {
		t.Fatalf("the short code written %q: %+v, %v", misread, jm, err)
	}

	// New is the join line given as address and fingerprint apart.
	jn, err := joincode.New("192.168.1.20:4242", strings.ToUpper(fp))
	if err != nil || !jn.Full() || jn.Addr() != "192.168.1.20:4242" {
		t.Fatalf("New: %+v, %v", jn, err)
	}
	cfg = quicnet.Config{}
	jn.Apply(&cfg)
	if cfg.Fingerprint != fp {
		t.Fatalf("New applied: %+v, want the fingerprint pinned", cfg)
	}

	// IPv6 and host names travel as they are.
	for _, addr := range []string{"[2001:db8::1]:4242", "game.example.org:4242"} {
		full, short := lines(t, addr, fp)
		for _, line := range []string{full, short} {
			if c, err := joincode.Parse(line); err != nil || c.Addr() != addr || c.Check(sum) != nil {
				t.Fatalf("%q parses as %+v, %v", line, c, err)
			}
		}
	}
}

// A zero Code matches no host, and neither does its Apply.
func TestZeroCodeRefuses(t *testing.T) {
	var c joincode.Code
	var cfg quicnet.Config
	c.Apply(&cfg)
	if c.Full() || c.Check([32]byte{}) == nil || cfg.CheckFingerprint == nil || cfg.CheckFingerprint([32]byte{}) == nil {
		t.Fatal("the zero Code accepted a host")
	}
}

// Lines and New refuse what no join line holds: an address that is not
// HOST:PORT, a fingerprint that is not a SHA-256.
func TestLinesAndNewRefuse(t *testing.T) {
	sum := sha256.Sum256(nil)
	fp := hex.EncodeToString(sum[:])
	for _, c := range []struct{ addr, fp string }{
		{"192.168.1.20", fp},
		{":4242", fp},
		{"192.168.1.20:0", fp},
		{"192.168.1.20 :4242", fp},
		{"192.168.1.20:4242", fp[:62]},
		{"192.168.1.20:4242", fp[:63] + "g"},
		{"192.168.1.20:4242", ""},
	} {
		if full, short, err := joincode.Lines(c.addr, c.fp); !errors.Is(err, joincode.ErrInvalid) {
			t.Errorf("Lines(%q, %q) = %q, %q", c.addr, c.fp, full, short)
		}
		if code, err := joincode.New(c.addr, c.fp); !errors.Is(err, joincode.ErrInvalid) {
			t.Errorf("New(%q, %q) = %+v", c.addr, c.fp, code)
		}
	}
	if _, err := joincode.New("192.168.1.20:4242", "ab"); err == nil || !strings.Contains(err.Error(), "64 hex digits") {
		t.Errorf("New with a short fingerprint: %v, want a message about its 64 hex digits", err)
	}
}

// A damaged code is refused before anything is sent: every single character
// changed, two neighbours swapped, one left out, and lines that are no join
// line at all, each with a message about what is wrong.
func TestDamagedCodesRefused(t *testing.T) {
	sum := sha256.Sum256([]byte("a host's certificate"))
	full, short := lines(t, "192.168.1.20:4242", hex.EncodeToString(sum[:]))
	code := short[strings.IndexByte(short, '/')+1:]
	plain := strings.ReplaceAll(code, "-", "")
	var damaged []string
	for i := range plain {
		for _, c := range digits {
			if byte(c) != plain[i] {
				damaged = append(damaged, plain[:i]+string(c)+plain[i+1:])
			}
		}
		if i+1 < len(plain) && plain[i] != plain[i+1] {
			damaged = append(damaged, plain[:i]+plain[i+1:i+2]+plain[i:i+1]+plain[i+2:])
		}
		damaged = append(damaged, plain[:i]+plain[i+1:])
	}
	missed := 0
	for _, d := range damaged {
		if _, err := joincode.Parse("192.168.1.20:4242/" + d); err == nil {
			missed++
		}
	}
	// The check character catches every character changed and every two
	// neighbours swapped.
	if missed > 0 {
		t.Fatalf("%d of %d damaged short codes were accepted", missed, len(damaged))
	}
	for line, says := range map[string]string{
		"192.168.1.20:4242":               "slash",
		"192.168.1.20/" + code:            "address",
		"192.168.1.20 :4242/" + code:      "address",
		"192.168.1.20:99999/" + code:      "port",
		"192.168.1.20:4242/" + code + "U": "U",
		full[:len(full)-3]:                "characters",
		full[:len(full)-2] + "ZZ":         "damaged",
	} {
		_, err := joincode.Parse(line)
		if !errors.Is(err, joincode.ErrInvalid) || !strings.Contains(err.Error(), says) {
			t.Errorf("Parse(%q) = %v, want a message about %q", line, err, says)
		}
	}
	check := plain[len(plain)-1]
	wrong := plain[:len(plain)-1] + string(digits[(strings.IndexByte(digits, check)+1)%32])
	if _, err := joincode.Parse("192.168.1.20:4242/" + wrong); err == nil || !strings.Contains(err.Error(), "last character does not match") {
		t.Errorf("a wrong check character: %v, want a message about it", err)
	}
	// A full code whose last character sets the 4 bits past the
	// fingerprint, with its check character right.
	data := []byte(full[strings.IndexByte(full, '/')+1 : len(full)-1])
	data[len(data)-1] = digits[strings.IndexByte(digits, data[len(data)-1])|1]
	past := 0 // check characters that make it past the check
	for _, c := range digits {
		_, err := joincode.Parse("192.168.1.20:4242/" + string(data) + string(c))
		switch {
		case err == nil:
			t.Fatalf("a full code with bits past the fingerprint was accepted")
		case strings.Contains(err.Error(), "do not spell a fingerprint"):
			past++
		}
	}
	if past != 1 {
		t.Errorf("a full code with bits past the fingerprint: %d check characters lead to a message about them, want 1", past)
	}
}

// Over many hosts, every code with two neighbours swapped or one character
// changed is refused: the full line and the short code. (Two neighbours 29
// apart, 0/X, 1/Y or 2/Z, swapped passed the check it had, in one code of
// 170: a template's test of a damaged code hung when it picked one.)
func TestEverySwapAndChangeRefused(t *testing.T) {
	for h := range 2000 {
		sum := sha256.Sum256([]byte(fmt.Sprint("host ", h)))
		full, short := lines(t, "10.0.0.1:4242", hex.EncodeToString(sum[:]))
		for _, line := range []string{full, strings.ReplaceAll(short, "-", "")} {
			code := line[strings.IndexByte(line, '/')+1:]
			for i := range len(code) - 1 {
				if code[i] != code[i+1] {
					swapped := code[:i] + code[i+1:i+2] + code[i:i+1] + code[i+2:]
					if _, err := joincode.Parse("10.0.0.1:4242/" + swapped); err == nil {
						t.Fatalf("%s with characters %d and %d swapped (%s) was accepted", code, i, i+1, swapped)
					}
				}
				changed := code[:i] + string(digits[(strings.IndexByte(digits, code[i])+1+h%31)%32]) + code[i+1:]
				if _, err := joincode.Parse("10.0.0.1:4242/" + changed); err == nil {
					t.Fatalf("%s with character %d changed (%s) was accepted", code, i, changed)
				}
			}
		}
	}
}

// A code applied to a client's quicnet.Config connects to its host and
// refuses another: the join line with a *quicnet.FingerprintError, the
// short code with Check's error.
func TestApplyPinsTheHost(t *testing.T) {
	host, err := quicnet.New(quicnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := host.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr := quicnet.ReachableAddr(l.Addr())
	stranger, err := quicnet.New(quicnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ownFull, ownShort := lines(t, addr, host.Fingerprint())
	otherFull, otherShort := lines(t, addr, stranger.Fingerprint())
	for _, c := range []struct {
		line string
		ok   bool
	}{{ownFull, true}, {ownShort, true}, {otherFull, false}, {otherShort, false}} {
		code, err := joincode.Parse(c.line)
		if err != nil {
			t.Fatal(err)
		}
		var cfg quicnet.Config
		code.Apply(&cfg)
		client, err := quicnet.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, err := client.Dial(ctx, code.Addr())
		cancel()
		var fe *quicnet.FingerprintError
		switch {
		case c.ok && err != nil:
			t.Fatalf("%s: the host's own code failed: %v", c.line, err)
		case c.ok:
			conn.Close(transport.CloseNormal, "")
		case err == nil:
			conn.Close(transport.CloseNormal, "")
			t.Fatalf("%s: another host's code connected", c.line)
		case code.Full() && !errors.As(err, &fe):
			t.Fatalf("%s: %v, want a *quicnet.FingerprintError", c.line, err)
		case !code.Full() && !strings.Contains(err.Error(), "does not match the join code"):
			t.Fatalf("%s: %v, want the short code's refusal", c.line, err)
		}
	}
}
