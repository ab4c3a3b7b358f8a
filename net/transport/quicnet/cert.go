package quicnet

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/tandem-go/tandem/net/transport"
)

// NewCertificate generates a self-signed ECDSA P-256 certificate valid for
// one year, for "localhost" and the given host names and IP addresses.
// Clients trust it by pinning its Fingerprint.
func NewCertificate(hosts ...string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("quicnet: generating a key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("quicnet: generating a serial number: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "tandem host"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{"localhost"},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("quicnet: creating a certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("quicnet: parsing the new certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// Fingerprint returns the SHA-256 of a DER-encoded certificate as 64
// lower-case hex digits: the form a join line carries and Config.Fingerprint
// takes.
func Fingerprint(leafDER []byte) string {
	sum := sha256.Sum256(leafDER)
	return hex.EncodeToString(sum[:])
}

// ParseFingerprint decodes a certificate fingerprint written as
// Fingerprint writes it (and as Config.Fingerprint takes it): the 32 bytes
// of a SHA-256 in hex, colons, spaces and case ignored. Its error says what
// to do.
func ParseFingerprint(s string) ([]byte, error) {
	clean := strings.Map(func(r rune) rune {
		if r == ':' || r == ' ' {
			return -1
		}
		return r
	}, s)
	b, err := hex.DecodeString(clean)
	if err != nil || len(b) != sha256.Size {
		return nil, fmt.Errorf("quicnet: Fingerprint %q is not a SHA-256 fingerprint; copy the 64 hex digits the host printed", s)
	}
	return b, nil
}

// FingerprintError is the error Dial returns when the host's certificate is
// not the pinned one: the join line is wrong or stale, or someone is
// impersonating the host.
type FingerprintError struct {
	// Want is the pinned fingerprint, Got the host's (hex, lower case).
	Want, Got string
}

// Error says what was expected and what the host showed.
func (e *FingerprintError) Error() string {
	return fmt.Sprintf("quicnet: the host's certificate fingerprint is %s, not the pinned %s; check the join line (the host may have a new certificate, or someone is impersonating it)", e.Got, e.Want)
}

// Unwrap returns transport.ErrUntrusted.
func (e *FingerprintError) Unwrap() error { return transport.ErrUntrusted }

// serverTLS is the host's TLS configuration.
func (t *Transport) serverTLS() *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{t.cert},
		NextProtos:   []string{ALPN},
		MinVersion:   tls.VersionTLS13,
	}
}

// pinCheck remembers why a dial refused the host's certificate.
type pinCheck struct {
	mu       sync.Mutex
	mismatch error
}

func (p *pinCheck) failure() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mismatch
}

// untrusted is a refusal of Config.CheckFingerprint: it reads as the
// check's own error and is a transport.ErrUntrusted too, as a pin mismatch
// is (a reconnecting client then stops rather than dial the wrong host
// again).
type untrusted struct{ error }

// Unwrap returns the check's error and transport.ErrUntrusted.
func (u untrusted) Unwrap() []error { return []error{u.error, transport.ErrUntrusted} }

// clientTLS is a dial's TLS configuration; a pin mismatch is recorded in pc.
func (t *Transport) clientTLS(serverName string, pc *pinCheck) *tls.Config {
	conf := &tls.Config{
		ServerName: serverName,
		NextProtos: []string{ALPN},
		MinVersion: tls.VersionTLS13,
		RootCAs:    t.cfg.RootCAs,
	}
	switch {
	case t.pin != nil:
		// Chain verification is off; the pin alone decides.
		conf.InsecureSkipVerify = true
		conf.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return errors.New("quicnet: the host sent no certificate")
			}
			sum := sha256.Sum256(raw[0])
			if string(sum[:]) == string(t.pin) {
				return nil
			}
			err := &FingerprintError{Want: hex.EncodeToString(t.pin), Got: hex.EncodeToString(sum[:])}
			pc.mu.Lock()
			pc.mismatch = err
			pc.mu.Unlock()
			return err
		}
	case t.cfg.CheckFingerprint != nil:
		// Chain verification is off; the game's check alone decides.
		conf.InsecureSkipVerify = true
		conf.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return errors.New("quicnet: the host sent no certificate")
			}
			err := t.cfg.CheckFingerprint(sha256.Sum256(raw[0]))
			if err != nil {
				err = untrusted{err}
				pc.mu.Lock()
				pc.mismatch = err
				pc.mu.Unlock()
			}
			return err
		}
	case t.cfg.InsecureSkipVerify:
		conf.InsecureSkipVerify = true
		t.cfg.Logger.Warn("quicnet: dialing without verifying the host's certificate; anyone on the path can impersonate the host. Pin its fingerprint instead: join with the host's join line (joincode; -join HOST:PORT/CODE on a launch command line) or give Config.Fingerprint (-pin).",
			"server", serverName)
	}
	return conf
}
