package quicnet

import (
	"bytes"
	"crypto/x509"
	"slices"
	"testing"
)

// FuzzIdentity: the kept certificate and reset key (read from a save file
// at every start) read or are an error, never a panic; a certificate that
// reads has its leaf and is kept again as itself (its chain, fingerprint
// and key read back the same after identityPEM), and a key that reads is
// the bytes kept.
func FuzzIdentity(f *testing.F) {
	cert, err := NewCertificate("localhost")
	if err != nil {
		f.Fatal(err)
	}
	good, err := identityPEM(cert)
	if err != nil {
		f.Fatal(err)
	}
	key := bytes.Repeat([]byte{7}, 32)
	f.Add(good, key)
	f.Add(good[:len(good)/2], key[:31])
	f.Add(append(bytes.Clone(good), good...), append(bytes.Clone(key), 0))
	f.Add([]byte("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"), []byte{})
	f.Fuzz(func(t *testing.T, pemBytes, resetKey []byte) {
		if c, err := parseIdentityPEM(pemBytes); err == nil {
			if c.Leaf == nil || len(c.Certificate) == 0 || c.PrivateKey == nil {
				t.Fatalf("a certificate read without its leaf, chain or key: %+v", c)
			}
			kept, err := identityPEM(c)
			if err != nil {
				t.Fatalf("a certificate read cannot be kept again: %v", err)
			}
			again, err := parseIdentityPEM(kept)
			if err != nil {
				t.Fatalf("a certificate kept again does not read: %v", err)
			}
			k1, _ := x509.MarshalPKCS8PrivateKey(c.PrivateKey)
			k2, _ := x509.MarshalPKCS8PrivateKey(again.PrivateKey)
			if !slices.EqualFunc(c.Certificate, again.Certificate, bytes.Equal) || !bytes.Equal(k1, k2) ||
				Fingerprint(again.Certificate[0]) != Fingerprint(c.Certificate[0]) {
				t.Fatalf("a certificate kept again reads as another: chain of %d → %d, the same key %v", len(c.Certificate), len(again.Certificate), bytes.Equal(k1, k2))
			}
		}
		k, err := readResetKey(resetKey)
		if (err == nil) != (len(resetKey) == 32) || (err == nil && !bytes.Equal(k[:], resetKey)) {
			t.Fatalf("reset key % x read as % x, %v", resetKey, k, err)
		}
	})
}
