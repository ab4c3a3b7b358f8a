package tandem

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-go/tandem/store"
)

// TestOpenSave: the default path is in the user's state directory; a save
// opened makes its directory; one held by another host is ErrLocked, saying
// so.
func TestOpenSave(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	p, err := DefaultSavePath("shop")
	if err != nil || p != filepath.Join(dir, "shop", "world.db") {
		t.Fatalf("DefaultSavePath: %q, %v", p, err)
	}
	sf, err := OpenSave(context.Background(), p, "world")
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	if !sf.Identity.Made || sf.Target != p {
		t.Fatalf("a new save: %+v", sf)
	}
	_, err = OpenSave(context.Background(), p, "world")
	if !errors.Is(err, store.ErrLocked) || !strings.Contains(err.Error(), "in use by another host") {
		t.Fatalf("a save held by another host: %v", err)
	}
}
