package quicnet

import (
	"bytes"
	"testing"
)

// FuzzIdentity: the kept certificate and reset key (read from a save file
// at every start) read or are an error, never a panic; a certificate that
// reads has its leaf, and a key that reads is the bytes kept.
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
		if c, err := parseIdentityPEM(pemBytes); err == nil && (c.Leaf == nil || len(c.Certificate) == 0 || c.PrivateKey == nil) {
			t.Fatalf("a certificate read without its leaf, chain or key: %+v", c)
		}
		k, err := readResetKey(resetKey)
		if (err == nil) != (len(resetKey) == 32) || (err == nil && !bytes.Equal(k[:], resetKey)) {
			t.Fatalf("reset key % x read as % x, %v", resetKey, k, err)
		}
	})
}
