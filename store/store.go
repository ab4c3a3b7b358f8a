package store

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
)

// DB is an open store of worlds: one bbolt file or one PostgreSQL database.
// Safe for concurrent use.
type DB interface {
	// OpenWorld takes the lease of the world called name, creating the world
	// empty when it does not exist, and returns it. Any World that held it
	// before is fenced from then on. Names are 1 to 255 bytes.
	OpenWorld(ctx context.Context, name string) (World, error)
	// Worlds returns the names of the worlds holding a commit, sorted: those
	// opened and never committed, or erased since, are left out. For an
	// operator's listing; it takes no lease.
	Worlds(ctx context.Context) ([]string, error)
	// Close closes the store and every World opened from it (their calls
	// then return ErrClosed). Leases are kept: the next OpenWorld of a world
	// takes the next epoch.
	Close() error
}

// World is one world of a store, held under a lease. Safe for concurrent use:
// calls run one at a time. See the package documentation for the intended
// pattern (one committer goroutine; Load before the first Commit).
type World interface {
	// Name returns the world's name.
	Name() string
	// Lease returns the lease this World took.
	Lease() Lease
	// Load calls fn with every record of the newest commit, in key order,
	// and returns that commit's sequence number (0 when the world was never
	// committed). key and value are valid only during the call. It stops at
	// fn's first error and returns it. On any error, discard what fn was
	// given: a record that fails its checksum is an error matching
	// ErrCorrupt, an unknown format ErrFormat, a lease taken over ErrFenced.
	Load(ctx context.Context, fn func(key, value []byte) error) (seq uint64, err error)
	// Commit applies the batch atomically and durably and returns the
	// commit's sequence number (one more than the previous commit's). It
	// fails with ErrFenced if the lease was taken over, and ErrInvalid for a
	// key or value out of bounds; then nothing was written. After any other
	// error the commit may or may not have landed: retry the same batch.
	// The batch is read, not kept; the caller may reuse it when Commit
	// returns. An empty batch commits nothing but checks the lease and
	// advances the sequence number.
	Commit(ctx context.Context, b *Batch) (seq uint64, err error)
	// Meta returns a copy of the meta record called name, and false when
	// there is none. Corruption and a lease taken over are reported like
	// Load's: a read of any name is the cheap check of the lease a host
	// makes between saves (save.Committer.CheckLease).
	Meta(ctx context.Context, name string) (value []byte, ok bool, err error)
	// SetMeta stores the meta record called name (1 to MaxKeySize bytes;
	// value at most MaxValueSize bytes) durably, fenced like Commit. A nil
	// value deletes it.
	SetMeta(ctx context.Context, name string, value []byte) error
	// Erase removes every record and meta record of the world atomically,
	// fenced like Commit, and sets its sequence number back to 0: Load then
	// finds a world never committed (a host starts it new), and the lease
	// stays this World's, so a holder that took the world before is fenced
	// still. For retiring a world (DB.Worlds leaves it out) or starting one
	// afresh under its name.
	Erase(ctx context.Context) error
	// Close releases the World; its later calls return ErrClosed. The lease
	// stays with this holder until someone else opens the world.
	Close() error
}

// Lease is a World's claim on its world.
type Lease struct {
	World string
	// Epoch counts the takes of this world: 1 for the first, one more for
	// each OpenWorld since, in any process.
	Epoch uint64
	// Holder is Options.Holder of the DB that took the lease.
	Holder string
	// Previous is the holder of the epoch before, "" for the first take.
	Previous string
	// Taken is when the lease was taken (the store's clock: this host's with
	// bbolt, the server's with PostgreSQL).
	Taken time.Time
}

// Options configure Open.
type Options struct {
	// Holder names this process in leases (a pod name, a host name). The
	// default is the host name and the process id.
	Holder string
	// Timeout bounds the wait for the bbolt file lock held by another
	// opener, in this process or another (then Open fails with
	// ErrLocked), and for connecting to PostgreSQL. Default 1 s for bbolt,
	// 10 s for PostgreSQL.
	Timeout time.Duration
}

func (o Options) holder() string {
	if o.Holder != "" {
		return o.Holder
	}
	h, err := os.Hostname()
	if err != nil || h == "" {
		h = "host"
	}
	return fmt.Sprintf("%s:%d", h, os.Getpid())
}

// Open opens the store a target names: a URL starting with postgres:// or
// postgresql:// (in any case) opens that PostgreSQL database (pgx's connection string; the
// tables are created when missing); anything else is the path of a bbolt
// file, created when missing (its directory must exist).
func Open(ctx context.Context, target string, opts Options) (DB, error) {
	switch {
	case target == "":
		return nil, invalidf("an empty store target: give a file path or a postgres:// URL")
	case IsPostgres(target):
		return OpenPostgres(ctx, target, opts)
	default:
		return OpenBolt(target, opts)
	}
}

// Describe returns target as a log line or an error may show it: a
// PostgreSQL URL without its passwords (the user's, in the user part or
// the query, and a client key's sslpassword: "xxxxx" in their place),
// anything else as it is. Print a target only
// through it: a fleet's URL comes from a secret, and its logs are read by
// more people than the secret is.
func Describe(target string) string {
	if !IsPostgres(target) {
		return target
	}
	u, err := url.Parse(lowerScheme(target))
	if err != nil {
		return "a PostgreSQL URL that does not parse"
	}
	q, hidden := u.Query(), false
	for k := range q {
		if strings.Contains(strings.ToLower(k), "password") { // password, sslpassword
			q.Set(k, "xxxxx")
			hidden = true
		}
	}
	if hidden {
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// IsPostgres reports whether Open would treat target as a PostgreSQL URL:
// one whose scheme is postgres or postgresql, in any case (a URL's scheme
// is case-insensitive: POSTGRES://db/x is the database, not a file).
func IsPostgres(target string) bool {
	return postgresScheme(target) != ""
}

// postgresScheme returns target's scheme and its "://", as written, when
// it names PostgreSQL, and "" otherwise.
func postgresScheme(target string) string {
	for _, s := range [...]string{"postgres://", "postgresql://"} {
		if len(target) >= len(s) && strings.EqualFold(target[:len(s)], s) {
			return target[:len(s)]
		}
	}
	return ""
}

// lowerScheme returns a PostgreSQL target with its scheme in lower case,
// the only spelling pgx takes for a URL.
func lowerScheme(target string) string {
	s := postgresScheme(target)
	return strings.ToLower(s) + target[len(s):]
}

// maxWorldName is the longest world name, in bytes.
const maxWorldName = 255

func checkWorldName(name string) error {
	if name == "" || len(name) > maxWorldName {
		return invalidf("a world name of %d bytes: names are 1 to %d bytes", len(name), maxWorldName)
	}
	return nil
}

func checkMeta(name string, value []byte) error {
	if name == "" || len(name) > MaxKeySize {
		return invalidf("a meta name of %d bytes: names are 1 to %d bytes", len(name), MaxKeySize)
	}
	if len(value) > MaxValueSize {
		return invalidf("meta %q has %d bytes: at most %d fit", name, len(value), MaxValueSize)
	}
	return nil
}
