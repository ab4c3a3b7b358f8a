package quicnet

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/tandem-go/tandem/net/transport"
)

// listenOnly starts a host and returns its transport and listener.
func listenOnly(t *testing.T, cfg Config) (*Transport, string) {
	t.Helper()
	hostT, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := hostT.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return hostT, ln.Addr().String()
}

func TestPinnedFingerprintConnects(t *testing.T) {
	p := newPair(t, Config{}, Config{}) // newPair pins the host's fingerprint
	if err := p.client.SendDatagram([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	recvDatagram(t, p.host)
	fp := p.hostT.Fingerprint()
	if len(fp) != 64 || strings.ToLower(fp) != fp {
		t.Fatalf("Fingerprint = %q, want 64 lower-case hex digits", fp)
	}
	// Upper case with colons is the same pin.
	var colons strings.Builder
	for i := 0; i < len(fp); i += 2 {
		if i > 0 {
			colons.WriteByte(':')
		}
		colons.WriteString(strings.ToUpper(fp[i : i+2]))
	}
	tr, err := New(Config{Fingerprint: colons.String()})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := dialAccept(t, tr, p.ln)
	if c.Err() != nil {
		t.Fatal(c.Err())
	}
}

func TestWrongFingerprintRefused(t *testing.T) {
	hostT, addr := listenOnly(t, Config{})
	other, err := NewCertificate()
	if err != nil {
		t.Fatal(err)
	}
	pinned := Fingerprint(other.Certificate[0])
	clientT, err := New(Config{Fingerprint: pinned})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	c, err := clientT.Dial(ctx, addr)
	if err == nil {
		c.Close(0, "")
		t.Fatal("Dial with a wrong fingerprint succeeded")
	}
	var fe *FingerprintError
	if !errors.As(err, &fe) || !errors.Is(err, transport.ErrUntrusted) {
		t.Fatalf("err = %v, want a *FingerprintError (transport.ErrUntrusted)", err)
	}
	if fe.Want != pinned || fe.Got != hostT.Fingerprint() {
		t.Fatalf("FingerprintError = %+v, want Want %s Got %s", fe, pinned, hostT.Fingerprint())
	}
	if !strings.Contains(err.Error(), "check the join line") {
		t.Fatalf("error does not say what to do: %v", err)
	}
}

func TestUnverifiedHostRefusedWithoutPin(t *testing.T) {
	_, addr := listenOnly(t, Config{})
	clientT, err := New(Config{}) // no pin, system roots: a self-signed host fails
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	c, err := clientT.Dial(ctx, addr)
	if err == nil {
		c.Close(0, "")
		t.Fatal("a self-signed host was accepted without a pin")
	}
	if _, ok := errors.AsType[*FingerprintError](err); ok {
		t.Fatalf("err = %v: no pin was given", err)
	}
}

func TestRootCAsVerifyHost(t *testing.T) {
	cert, err := NewCertificate("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	_, addr := listenOnly(t, Config{Certificate: &cert})
	roots := x509.NewCertPool()
	roots.AddCert(cert.Leaf)
	clientT, err := New(Config{RootCAs: roots})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	c, err := clientT.Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Close(0, "")
}

func TestInsecureSkipVerifyWarns(t *testing.T) {
	var mu sync.Mutex
	var logged bytes.Buffer
	logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logged}, nil))
	p := newPair(t, Config{}, Config{InsecureSkipVerify: true, Logger: logger})
	if p.client.Err() != nil {
		t.Fatal(p.client.Err())
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logged.String(), "level=WARN") || !strings.Contains(logged.String(), "without verifying") {
		t.Fatalf("no warning logged; got %q", logged.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestConfigRefusesBadValues(t *testing.T) {
	for _, cfg := range []Config{
		{Fingerprint: "abc"},
		{Fingerprint: strings.Repeat("zz", 32)},
		{MaxMessageSize: -1},
		{MaxMessageSize: 2 << 30},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted it", cfg)
		}
	}
}

func TestGivenCertificateIsUsed(t *testing.T) {
	cert, err := NewCertificate("game.example")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := New(Config{Certificate: &cert})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Fingerprint() != Fingerprint(cert.Certificate[0]) {
		t.Fatal("Fingerprint is not the given certificate's")
	}
	if cert.Leaf.DNSNames[1] != "game.example" {
		t.Fatalf("DNS names %v", cert.Leaf.DNSNames)
	}
}

// CheckFingerprint decides alone: it sees the host's SHA-256, its error is
// what Dial returns, and nothing is logged about skipped verification.
func TestCheckFingerprintDecides(t *testing.T) {
	hostT, addr := listenOnly(t, Config{})
	var logs bytes.Buffer
	refusal := errors.New("not the host the code names")
	for _, accept := range []bool{true, false} {
		var seen string
		clientT, err := New(Config{Logger: slog.New(slog.NewTextHandler(&logs, nil)), CheckFingerprint: func(sum [32]byte) error {
			seen = hexOf(sum)
			if accept {
				return nil
			}
			return refusal
		}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		c, err := clientT.Dial(ctx, addr)
		cancel()
		if seen != hostT.Fingerprint() {
			t.Fatalf("the check saw %q, want the host's fingerprint %s", seen, hostT.Fingerprint())
		}
		switch {
		case accept && err != nil:
			t.Fatalf("accepted by the check, Dial failed: %v", err)
		case accept:
			c.Close(0, "")
		case !errors.Is(err, refusal) || !errors.Is(err, transport.ErrUntrusted):
			t.Fatalf("refused by the check, Dial returned %v, want the check's error, an ErrUntrusted", err)
		}
	}
	if strings.Contains(logs.String(), "without verifying") {
		t.Fatalf("a checked dial logged a warning about skipped verification:\n%s", logs.String())
	}
}

func hexOf(sum [32]byte) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 64)
	for i, v := range sum {
		b[2*i], b[2*i+1] = digits[v>>4], digits[v&15]
	}
	return string(b)
}
