package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/store"
)

// The host's save: with -save FILE (a bbolt file, or a postgres:// URL) the
// world is saved there as it changes and restored from it at the next start;
// the host's identity (its certificate, the pin clients hold, and its
// stateless-reset key) is kept there too, so a restarted host is the same
// host to its players. -save '' keeps the world in memory only.

// saveWorld is the world's name in the save.
const saveWorld = "demo"

// saveFlag is -save: a path or URL, set or not.
type saveFlag struct {
	target string
	set    bool
}

func (s *saveFlag) String() string { return s.target }

func (s *saveFlag) Set(v string) error { s.target, s.set = v, true; return nil }

// savePath returns where the host saves: -save's target, or by default
// tandem-demo/world.db in the user's state directory ($XDG_STATE_HOME, else
// ~/.local/state); "" keeps the world in memory.
func savePath(f saveFlag) (string, error) {
	if f.set {
		return f.target, nil
	}
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no home directory for the save (%v); give a file with -save, or -save '' to keep the world in memory", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "tandem-demo", "world.db"), nil
}

// hostSave is the host's open save: the store, the world's lease, and the
// identity kept in it.
type hostSave struct {
	target string
	db     store.DB
	world  store.World
	id     quicnet.Identity
}

// openSave opens the save o names (nil when -save is empty), making its directory
// for a default file, and loads the host's identity from it. It tells stderr
// where the world is saved.
func openSave(o options, stderr io.Writer) (*hostSave, error) {
	target, err := savePath(o.save)
	if err != nil || target == "" {
		if err == nil {
			fmt.Fprintln(stderr, "tandem-demo: the world lives in memory only (-save '')")
		}
		return nil, err
	}
	if !store.IsPostgres(target) {
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			return nil, fmt.Errorf("save: %w", err)
		}
	}
	ctx := context.Background()
	db, err := store.Open(ctx, target, store.Options{})
	if errors.Is(err, store.ErrLocked) {
		return nil, fmt.Errorf("save %s is in use by another host; give another with -save", target)
	}
	if err != nil {
		return nil, fmt.Errorf("save %s: %w", target, err)
	}
	w, err := db.OpenWorld(ctx, saveWorld)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("save %s: %w", target, err)
	}
	id, err := quicnet.LoadIdentity(ctx, w)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("save %s: %w", target, err)
	}
	fmt.Fprintf(stderr, "tandem-demo: saving the world to %s (-save FILE to choose, -save '' for none)\n", target)
	return &hostSave{target: target, db: db, world: w, id: id}, nil
}

// configure points the host at the save and logs to stderr each restore,
// each failed save, and each save that knows another number of players than
// the one before.
func (s *hostSave) configure(hc *tandem.HostConfig, stderr io.Writer) {
	if s == nil {
		return
	}
	hc.Store = s.world
	hc.OnRestore = func(r tandem.RestoreReport) {
		fmt.Fprintf(stderr, "tandem-demo: %v\n", r)
	}
	players := -1
	hc.OnSave = func(r tandem.SavedReport) {
		if r.Players != players { // a line when who the save knows changes, not at every save
			players = r.Players
			fmt.Fprintf(stderr, "tandem-demo: save %d (frame %d) holds %d players\n", r.Seq, r.Frame, r.Players)
		}
	}
	hc.OnSaveError = func(err error) {
		fmt.Fprintln(stderr, "tandem-demo: save failed (the world goes on; retrying):", err)
	}
}

// identity is the host's kept identity, nil without a save.
func (s *hostSave) identity() *quicnet.Identity {
	if s == nil {
		return nil
	}
	return &s.id
}

// Close closes the store, after the host's Close.
func (s *hostSave) Close() error {
	if s == nil {
		return nil
	}
	return s.db.Close()
}
