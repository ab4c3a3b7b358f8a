package save

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/tandem-go/tandem/store"
)

// CheckLease reads the lease without committing: it passes while the world
// is the committer's, and once another opened the world it fails with
// store.ErrFenced, its Result marked as a check.
func TestCommitterChecksTheLease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "worlds.db")
	db, err := store.OpenBolt(path, store.Options{Holder: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	w, err := db.OpenWorld(ctx, "w")
	if err != nil {
		t.Fatal(err)
	}
	c := NewCommitter(w, 0)
	defer c.Close()
	c.CheckLease()
	if r, ok := c.Wait(ctx); !ok || !r.Check || r.Err != nil {
		t.Fatalf("a check of a lease held: %+v (%v)", r, ok)
	}
	if _, err := db.OpenWorld(ctx, "w"); err != nil { // another holder takes it
		t.Fatal(err)
	}
	c.CheckLease()
	if r, ok := c.Wait(ctx); !ok || !r.Check || !errors.Is(r.Err, store.ErrFenced) {
		t.Fatalf("a check of a lease taken: %+v (%v), want store.ErrFenced", r, ok)
	}
	if seq, err := w.Commit(ctx, &store.Batch{}); !errors.Is(err, store.ErrFenced) || seq != 0 {
		t.Fatalf("the checks committed something: seq %d, %v", seq, err)
	}
}
