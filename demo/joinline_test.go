package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// A host's join line and short code parse back to its address and
// fingerprint (the whole of it, or its first 55 bits, which the host's
// certificate passes and another fails); -join takes both as they are;
// a damaged one is refused with a message.
func TestJoinLineRoundTrips(t *testing.T) {
	sum := sha256.Sum256([]byte("a host's certificate"))
	fp := hex.EncodeToString(sum[:])
	full, short := joinLines("192.168.1.20:4242", fp)
	t.Logf("join line %s, short code %s", full, short)
	jf, err := parseJoinLine(full)
	if err != nil || !jf.full() || jf.pin() != fp || jf.addr != "192.168.1.20:4242" {
		t.Fatalf("the join line parses as %+v, %v", jf, err)
	}
	js, err := parseJoinLine(strings.ToLower(strings.ReplaceAll(short, "-", " ")))
	if err != nil || js.full() || js.addr != "192.168.1.20:4242" {
		t.Fatalf("the short code (lower case, spaced) parses as %+v, %v", js, err)
	}
	if err := js.check(sum); err != nil {
		t.Fatalf("the host's own certificate fails its short code: %v", err)
	}
	other := sum
	other[6] ^= 0x04 // bit 53: inside the code's 55
	if js.check(other) == nil {
		t.Fatal("a certificate differing in the code's bits passed the short code")
	}
	other = sum
	other[7] ^= 0x01 // bit 63: past the code
	if js.check(other) != nil {
		t.Fatal("the short code checks bits it does not carry")
	}
	// The host's printed command line, pasted whole, is a join line too.
	jc, err := parseJoinLine("join with: go run ./demo -join 10.0.0.2:4242 -pin " + fp)
	if err != nil || jc.pin() != fp || jc.addr != "10.0.0.2:4242" {
		t.Fatalf("the host's command line parses as %+v, %v", jc, err)
	}
	for _, flags := range [][]string{{"-join", full}, {"-join", short}} {
		o, err := parseOptions(flags, &bytes.Buffer{})
		if err != nil || o.join != "192.168.1.20:4242" || o.code == nil {
			t.Fatalf("parseOptions(%q) = %+v, %v", flags, o, err)
		}
		if cfg := quicConfig(o); (o.code.full() && cfg.Fingerprint != fp) || (!o.code.full() && cfg.CheckFingerprint == nil) || cfg.InsecureSkipVerify {
			t.Fatalf("-join %s dials with %+v: want the host pinned", flags[1], cfg)
		}
	}
	if _, err := parseOptions([]string{"-join", full, "-pin", fp}, &bytes.Buffer{}); err == nil {
		t.Fatal("-join with a join line and -pin accepted")
	}

	// Damage: every single character changed, two neighbours swapped, one
	// left out, and lines that are no join line at all.
	code := short[strings.IndexByte(short, '/')+1:]
	plain := strings.ReplaceAll(code, "-", "")
	var damaged []string
	for i := range plain {
		for _, c := range codeDigits {
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
		if _, err := parseJoinLine("192.168.1.20:4242/" + d); err == nil {
			missed++
		}
	}
	// The check character misses only a change by 29 (0/X, 1/Y, 2/Z).
	t.Logf("%d damaged short codes, %d accepted", len(damaged), missed)
	if missed > len(plain)*3/2 {
		t.Fatalf("%d of %d damaged short codes were accepted", missed, len(damaged))
	}
	for line, says := range map[string]string{
		"192.168.1.20:4242":               "slash",
		"192.168.1.20/" + code:            "address",
		"192.168.1.20:99999/" + code:      "port",
		"192.168.1.20:4242/" + code + "U": "U",
		full[:len(full)-3]:                "characters",
	} {
		_, err := parseJoinLine(line)
		if err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("parseJoinLine(%q) = %v, want a message about %q", line, err, says)
		}
	}
	if _, err := parseOptions([]string{"-join", "192.168.1.20:4242/" + plain[:len(plain)-1] + "0"}, &bytes.Buffer{}); err == nil && plain[len(plain)-1] != '0' {
		t.Fatal("-join took a damaged short code")
	}
}

// FuzzJoinLine: nothing typed or pasted crashes the parser, and what it
// accepts has a valid address and the bits a code carries.
func FuzzJoinLine(f *testing.F) {
	sum := sha256.Sum256(nil)
	full, short := joinLines("[::1]:4242", hex.EncodeToString(sum[:]))
	f.Add(full)
	f.Add(short)
	f.Add("join with: demo -join a:1 -pin zz")
	f.Fuzz(func(t *testing.T, s string) {
		jc, err := parseJoinLine(s)
		if err != nil {
			return
		}
		if checkAddress(jc.addr) != nil || (jc.n != 256 && jc.n != 55) || len(jc.bits)*8 < jc.n {
			t.Fatalf("accepted %q as %+v", s, jc)
		}
		jc.check(sum)
	})
}
