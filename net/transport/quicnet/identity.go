package quicnet

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Identity is what makes a host the same host to its players across
// restarts: the certificate whose fingerprint they pin, and the key of its
// QUIC stateless resets (so the clients of a host that restarted on the same
// address learn at once that their old connection is gone). Keep it beside
// the host's saves with LoadIdentity, and give it to the host's Config with
// Apply.
type Identity struct {
	Certificate tls.Certificate
	ResetKey    [32]byte
	// Made says LoadIdentity made the certificate now (there was none, or
	// the one kept was about to expire): clients holding an older pin must
	// be given the new one.
	Made bool
}

// MetaStore keeps small named records: a store.World's Meta and SetMeta.
type MetaStore interface {
	Meta(ctx context.Context, name string) (value []byte, ok bool, err error)
	SetMeta(ctx context.Context, name string, value []byte) error
}

// The meta records LoadIdentity keeps.
const (
	// MetaCertificate holds the certificate and its key, PEM (CERTIFICATE,
	// then PRIVATE KEY in PKCS #8).
	MetaCertificate = "tandem.certificate"
	// MetaResetKey holds the 32-byte stateless-reset key.
	MetaResetKey = "tandem.reset-key"
)

// renewBefore is how long before its expiry a kept certificate is replaced.
const renewBefore = 7 * 24 * time.Hour

// LoadIdentity returns the identity kept in m, making what is missing and
// keeping it there (durably, before it returns): a certificate as
// NewCertificate makes for hosts, replaced when the one kept expires within
// a week, and a reset key, made once. A record that does not read is an
// error: replacing it would break every pin silently.
func LoadIdentity(ctx context.Context, m MetaStore, hosts ...string) (Identity, error) {
	var id Identity
	pemBytes, ok, err := m.Meta(ctx, MetaCertificate)
	if err != nil {
		return Identity{}, fmt.Errorf("quicnet: reading the kept certificate: %w", err)
	}
	if ok {
		cert, err := parseIdentityPEM(pemBytes)
		if err != nil {
			return Identity{}, fmt.Errorf("quicnet: the kept certificate (meta %q) does not read: %w; remove it to make a new one (every pin changes)", MetaCertificate, err)
		}
		id.Certificate = cert
	}
	if !ok || time.Until(id.Certificate.Leaf.NotAfter) < renewBefore {
		cert, err := NewCertificate(hosts...)
		if err != nil {
			return Identity{}, err
		}
		enc, err := identityPEM(cert)
		if err != nil {
			return Identity{}, err
		}
		if err := m.SetMeta(ctx, MetaCertificate, enc); err != nil {
			return Identity{}, fmt.Errorf("quicnet: keeping the new certificate: %w", err)
		}
		id.Certificate, id.Made = cert, true
	}
	key, ok, err := m.Meta(ctx, MetaResetKey)
	switch {
	case err != nil:
		return Identity{}, fmt.Errorf("quicnet: reading the kept reset key: %w", err)
	case ok:
		if id.ResetKey, err = readResetKey(key); err != nil {
			return Identity{}, err
		}
	default:
		if _, err := rand.Read(id.ResetKey[:]); err != nil {
			return Identity{}, err
		}
		if err := m.SetMeta(ctx, MetaResetKey, id.ResetKey[:]); err != nil {
			return Identity{}, fmt.Errorf("quicnet: keeping the new reset key: %w", err)
		}
	}
	return id, nil
}

// Apply makes cfg present the identity: its certificate and reset key.
func (id *Identity) Apply(cfg *Config) {
	cfg.Certificate = &id.Certificate
	cfg.StatelessResetKey = &id.ResetKey
}

// Fingerprint returns the certificate's fingerprint, the pin clients hold.
func (id *Identity) Fingerprint() string { return Fingerprint(id.Certificate.Certificate[0]) }

func identityPEM(cert tls.Certificate) ([]byte, error) {
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("quicnet: encoding the certificate's key: %w", err)
	}
	var out []byte
	for _, der := range cert.Certificate {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	}
	return append(out, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key})...), nil
}

// readResetKey reads the kept reset key: exactly 32 bytes.
func readResetKey(b []byte) ([32]byte, error) {
	var key [32]byte
	if len(b) != len(key) {
		return key, fmt.Errorf("quicnet: the kept reset key (meta %q) has %d bytes, want %d; remove it to make a new one", MetaResetKey, len(b), len(key))
	}
	copy(key[:], b)
	return key, nil
}

// LoadResetKey returns the stateless-reset key kept in the file at path,
// for Config.StatelessResetKey of a host that keeps no Identity in a store.
// On first use it makes the file (and its directory, mode 0700) with a new
// random key, readable and writable by its owner only (mode 0600). A file
// that is not 32 bytes long is refused, not replaced: delete it to make a
// new key. Keeping the key across restarts lets the clients of a host
// restarted on the same address learn at once that their connection is
// gone.
func LoadResetKey(path string) (*[32]byte, error) {
	var key [32]byte
	b, err := os.ReadFile(path)
	switch {
	case err == nil && len(b) == len(key):
		copy(key[:], b)
		return &key, nil
	case err == nil:
		return nil, fmt.Errorf("quicnet: reset key %s holds %d bytes, not %d; delete it to make a new one", path, len(b), len(key))
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("quicnet: reset key: %w", err)
	}
	if _, err := rand.Read(key[:]); err != nil {
		return nil, fmt.Errorf("quicnet: reset key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("quicnet: reset key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("quicnet: reset key: %w", err)
	}
	_, err = f.Write(key[:])
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("quicnet: reset key: %w", err)
	}
	return &key, nil
}

// parseIdentityPEM reads the kept certificate: its chain and its key, PEM,
// as identityPEM writes them.
func parseIdentityPEM(b []byte) (tls.Certificate, error) {
	cert, err := tls.X509KeyPair(b, b)
	if err != nil {
		return tls.Certificate{}, err
	}
	if len(cert.Certificate) == 0 {
		return tls.Certificate{}, errors.New("no certificate")
	}
	if cert.Leaf == nil {
		if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return tls.Certificate{}, err
		}
	}
	return cert, nil
}
