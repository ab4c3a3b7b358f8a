package tandem

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/store"
)

// DefaultSavePath returns where a game called app keeps its host's save
// unless told otherwise: app/world.db in the user's state directory
// ($XDG_STATE_HOME, else ~/.local/state). OpenSave makes the directory.
func DefaultSavePath(app string) (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("tandem: no home directory for the save (%v); give the save's file", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, app, "world.db"), nil
}

// SaveFile is a host's open save: the store, the lease of its world in it,
// and the host's identity kept beside the world (its certificate, the pin
// its players hold, and its stateless-reset key), so that a restarted host
// is the same host to them. Give World to HostConfig.Store and Identity to
// the transport (Identity.Apply); close the SaveFile after the host.
type SaveFile struct {
	// Target is the file or URL the save was opened at; print it through
	// store.Describe, which leaves a PostgreSQL URL's password out.
	Target string
	// DB is the store the save lives in; closing the SaveFile closes it.
	DB store.DB
	// World is the world's record set, its lease held by this host.
	World store.World
	// Identity is the host's, made and kept the first time.
	Identity quicnet.Identity
}

// OpenSave opens the save at target (a bbolt file, its directory made if
// missing, or a postgres:// URL), takes the lease of the world called world
// in it, and loads the host's identity kept there (quicnet.LoadIdentity, for
// hosts, the names or addresses a new certificate is made for; made and kept
// the first time). A file another host holds is an
// error matching store.ErrLocked that says so.
func OpenSave(ctx context.Context, target, world string, hosts ...string) (*SaveFile, error) {
	if !store.IsPostgres(target) {
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			return nil, fmt.Errorf("tandem: the save's directory: %w", err)
		}
	}
	db, err := store.Open(ctx, target, store.Options{})
	if errors.Is(err, store.ErrLocked) {
		return nil, fmt.Errorf("tandem: the save %s is in use by another host; stop it, or give this one another save: %w", store.Describe(target), err)
	}
	if err != nil {
		return nil, fmt.Errorf("tandem: open the save %s: %w", store.Describe(target), err)
	}
	w, err := db.OpenWorld(ctx, world)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("tandem: open world %q of the save %s: %w", world, store.Describe(target), err)
	}
	id, err := quicnet.LoadIdentity(ctx, w, hosts...)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("tandem: the host's identity in the save %s: %w", store.Describe(target), err)
	}
	return &SaveFile{Target: target, DB: db, World: w, Identity: id}, nil
}

// Close closes the store: after the host's Close.
func (s *SaveFile) Close() error { return s.DB.Close() }
