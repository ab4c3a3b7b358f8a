package main

import (
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// A join line is how a player tells a friend where the game is and how to
// know it is the right host: one string, the host's address and a code made
// from its certificate's SHA-256 fingerprint, written ADDRESS/CODE. It comes
// in two lengths:
//
//   - the full line, to paste: 52 code characters carry the whole 256-bit
//     fingerprint, so joining with it is as safe as the -pin flag;
//   - the short code, to read out: 11 characters carry the fingerprint's
//     first 55 bits, grouped by four (192.168.1.20:4242/K7Q2-M9XD-PA3F).
//
// Each ends in a check character, so a code misheard or mistyped is refused
// before anything is sent, with a message, rather than failing as a wrong
// host. The characters are Crockford's base 32 (digits and letters without
// I, L, O and U; I and L read as 1, O as 0, any case, dashes and spaces
// ignored).
//
// The short code's trade-off: the client checks that the host's certificate
// fingerprint starts with the code's 55 bits. Someone on the network path who
// wants to impersonate the host must make a certificate whose fingerprint
// starts with those bits, about 2^55 (3.6e16) tries of SHA-256 over a
// certificate, and must do it between learning the code and the friend
// joining: days for a rack of GPUs, out of reach for anyone casually on the
// same Wi-Fi. That is enough for a game among friends; the full line leaves no
// such margin to an attacker, and is what a script should use.

// Code sizes, characters of base 32 before the check character.
const (
	fullCodeLen  = 52 // 256 bits of fingerprint, 4 bits of zero padding
	shortCodeLen = 11 // 55 bits
)

const codeDigits = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// checkModulus makes the check character: a prime below 32, so that any one
// character changed, and any two neighbours swapped, change the check (but
// for the pairs 0/X, 1/Y, 2/Z, which are 29 apart).
const checkModulus = 29

// joinCode holds a parsed join line: where the host is and the fingerprint
// bits it must show.
type joinCode struct {
	addr string
	bits []byte // the fingerprint's first nbits bits, the rest of the last byte zero
	n    int    // bits the code carries: 256 or 55
}

// encodeCode writes the first n characters' worth of fingerprint fp (bytes)
// in base 32, with the check character.
func encodeCode(fp []byte, chars int) string {
	var b strings.Builder
	sum := 0
	for i := range chars {
		d := 0
		for j := range 5 {
			bit := i*5 + j
			d <<= 1
			if bit < len(fp)*8 && fp[bit/8]&(0x80>>(bit%8)) != 0 {
				d |= 1
			}
		}
		b.WriteByte(codeDigits[d])
		sum = (sum*32 + d) % checkModulus
	}
	b.WriteByte(codeDigits[sum])
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

// joinLines returns the full join line and the short code of a host reached
// at addr whose certificate fingerprint is fpHex (64 hex digits).
func joinLines(addr, fpHex string) (full, short string) {
	fp, err := hex.DecodeString(fpHex)
	if err != nil || len(fp) != 32 {
		panic("demo: joinLines of a fingerprint that is not a SHA-256: " + fpHex)
	}
	return addr + "/" + encodeCode(fp, fullCodeLen), addr + "/" + group(encodeCode(fp, shortCodeLen))
}

// parseJoinLine reads what a player pasted or typed: a join line or short
// code (ADDRESS/CODE), or the host's whole printed "join with" line
// (... -join ADDRESS -pin HEX). It returns an error that says what is wrong
// for a damaged one.
func parseJoinLine(s string) (joinCode, error) {
	s = strings.TrimSpace(s)
	if f := strings.Fields(s); len(f) > 1 {
		// The host's printed command line, pasted whole.
		var addr, pin string
		for i := 0; i+1 < len(f); i++ {
			switch f[i] {
			case "-join", "--join":
				addr = f[i+1]
			case "-pin", "--pin":
				pin = f[i+1]
			}
		}
		if addr != "" && pin != "" {
			fp, err := hex.DecodeString(pin)
			if err != nil || len(fp) != 32 {
				return joinCode{}, errors.New("the pin in that line is damaged: it should be 64 hex digits")
			}
			jc := joinCode{addr: addr, bits: fp, n: 256}
			return jc, checkAddress(addr)
		}
	}
	slash := strings.LastIndexByte(s, '/')
	if slash < 0 {
		return joinCode{}, errors.New("a join line is the host's address, a slash and its code, like 192.168.1.20:4242/K7Q2-M9XD-PA3F")
	}
	addr, code := strings.TrimSpace(s[:slash]), s[slash+1:]
	if err := checkAddress(addr); err != nil {
		return joinCode{}, err
	}
	var digits []int
	for _, r := range strings.ToUpper(code) {
		switch r {
		case '-', ' ':
			continue
		case 'I', 'L':
			r = '1'
		case 'O':
			r = '0'
		}
		d := strings.IndexRune(codeDigits, r)
		if d < 0 {
			return joinCode{}, fmt.Errorf("the code has %q, which no join code has (digits and letters except I, L, O and U); check it with the host", r)
		}
		digits = append(digits, d)
	}
	n := len(digits) - 1
	if n != shortCodeLen && n != fullCodeLen {
		return joinCode{}, fmt.Errorf("the code has %d characters; a short code has %d and a full join line %d: some are missing or doubled", len(digits), shortCodeLen+1, fullCodeLen+1)
	}
	sum := 0
	for _, d := range digits[:n] {
		sum = (sum*32 + d) % checkModulus
	}
	if sum != digits[n] {
		return joinCode{}, errors.New("the code is damaged: its last character does not match the others; ask the host to read it again")
	}
	jc := joinCode{addr: addr, n: 256}
	if n == shortCodeLen {
		jc.n = shortCodeLen * 5
	}
	jc.bits = make([]byte, (n*5+7)/8)
	for i, d := range digits[:n] {
		for j := range 5 {
			if d&(0x10>>j) != 0 {
				bit := i*5 + j
				jc.bits[bit/8] |= 0x80 >> (bit % 8)
			}
		}
	}
	if n == fullCodeLen {
		if jc.bits[32] != 0 {
			return joinCode{}, errors.New("the code is damaged: its last characters do not spell a fingerprint; copy the whole line again")
		}
		jc.bits = jc.bits[:32]
	}
	return jc, nil
}

// checkAddress reports whether addr is HOST:PORT.
func checkAddress(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return fmt.Errorf("%q is not an address: write HOST:PORT, like 192.168.1.20:4242", addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("the port %q is not a port number (1 to 65535)", port)
	}
	return nil
}

// full reports whether the code pins the whole fingerprint.
func (j joinCode) full() bool { return j.n == 256 }

// pin returns the whole fingerprint in hex, for a full line.
func (j joinCode) pin() string { return hex.EncodeToString(j.bits) }

// check reports whether a host certificate's SHA-256 starts with the code's
// bits: the quicnet.Config.CheckFingerprint of a short code.
func (j joinCode) check(sum [32]byte) error {
	whole := j.n / 8
	ok := subtle.ConstantTimeCompare(sum[:whole], j.bits[:whole]) == 1
	if rest := j.n % 8; rest > 0 {
		mask := byte(0xff << (8 - rest))
		ok = ok && sum[whole]&mask == j.bits[whole]&mask
	}
	if !ok {
		return errors.New("the host's certificate does not match the join code: check the code with the host (it changes each time the host starts), or someone is impersonating the host")
	}
	return nil
}
