package quicnet

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-go/tandem/store"
)

func identityStore(t *testing.T, path string) (store.DB, store.World) {
	t.Helper()
	db, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := db.OpenWorld(context.Background(), "world")
	if err != nil {
		t.Fatal(err)
	}
	return db, w
}

// TestIdentityOutlivesTheHost: a host's identity is made once and kept in its
// store; a host restarted on the store presents the same certificate, so a
// client pinning the first host's fingerprint connects to the second, and
// the same reset key.
func TestIdentityOutlivesTheHost(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "world.db")
	db, w := identityStore(t, path)
	first, err := LoadIdentity(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Made {
		t.Fatal("a first identity not made")
	}
	db.Close()

	db, w = identityStore(t, path)
	defer db.Close()
	again, err := LoadIdentity(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if again.Made || again.Fingerprint() != first.Fingerprint() || again.ResetKey != first.ResetKey {
		t.Fatalf("the restarted host's identity differs (made %v)", again.Made)
	}
	var hc Config
	again.Apply(&hc)
	host, err := New(hc)
	if err != nil {
		t.Fatal(err)
	}
	l, err := host.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	client, err := New(Config{Fingerprint: first.Fingerprint()})
	if err != nil {
		t.Fatal(err)
	}
	dialAccept(t, client, l) // fails the test unless the pin holds

	// A record that does not read is an error, not a new identity.
	if err := w.SetMeta(ctx, MetaCertificate, []byte("not a certificate")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadIdentity(ctx, w); err == nil || !strings.Contains(err.Error(), "does not read") {
		t.Fatalf("a damaged certificate record: %v", err)
	}
}

// TestLoadResetKey: the key file is made once, mode 0600 (its directory
// with it), and read back the same on every later load; a file of the wrong
// size is refused, not replaced.
func TestLoadResetKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "reset-key")
	a, err := LoadResetKey(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 32 {
		t.Fatalf("the key file: %v %v; want 32 bytes, mode 0600", fi, err)
	}
	if *a == ([32]byte{}) {
		t.Fatal("the new key is all zeros")
	}
	b, err := LoadResetKey(path)
	if err != nil || *a != *b {
		t.Fatalf("the second load read another key (%v)", err)
	}
	if err := os.WriteFile(path, []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadResetKey(path); err == nil || !strings.Contains(err.Error(), "holds 5 bytes") {
		t.Fatalf("a key file of the wrong size: %v, want refused", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "short" {
		t.Fatalf("the refused key file was rewritten: %q", b)
	}
}
