package tandem

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-go/tandem/store"
	"github.com/tandem-go/tandem/store/storetest"
)

// saveStore is a backend the host's save tests run on: every save and
// restore test runs once with bbolt and once with PostgreSQL (the server
// storetest starts for the test binary).
type saveStore struct {
	name string
	// target returns a new, empty place to save to: a bbolt file, or a
	// postgres:// URL of a schema of its own.
	target func(t testing.TB) string
	// corrupt flips a bit of an entity record of world "world" at target,
	// under its checksum.
	corrupt func(t *testing.T, target string)
}

var saveStores = []saveStore{
	{name: "bbolt", target: savePath, corrupt: corrupt},
	{name: "postgres", target: storetest.PostgresURL, corrupt: corruptPostgres},
}

// forEachStore runs test once per backend, as a subtest named after it.
func forEachStore(t *testing.T, test func(t *testing.T, s saveStore)) {
	for _, s := range saveStores {
		t.Run(s.name, func(t *testing.T) { test(t, s) })
	}
}

// corruptPostgres is corrupt for a PostgreSQL target: the last byte of the
// first entity record's value (key 0x03…) flipped in place.
func corruptPostgres(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	tag, err := c.Exec(ctx, `
UPDATE tandem_records SET value = set_byte(value, length(value)-1, get_byte(value, length(value)-1) # 1)
WHERE world = 'world' AND key = (
	SELECT key FROM tandem_records WHERE world = 'world' AND get_byte(key, 0) = 3 ORDER BY key LIMIT 1)`)
	if err != nil {
		t.Fatal(err)
	}
	if tag.RowsAffected() != 1 {
		t.Fatalf("no entity record to corrupt (%d rows)", tag.RowsAffected())
	}
}

// copyWorld copies the newest save of world "world" at from into world
// "world" at to, record for record: a copy of the save to restore from.
func copyWorld(t *testing.T, from, to string) {
	t.Helper()
	ctx := context.Background()
	var b store.Batch
	src, err := store.Open(ctx, from, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := src.OpenWorld(ctx, "world")
	if err == nil {
		_, err = w.Load(ctx, func(key, value []byte) error { b.Put(key, value); return nil })
	}
	src.Close()
	if err != nil {
		t.Fatal(err)
	}
	dst, err := store.Open(ctx, to, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	w, err = dst.OpenWorld(ctx, "world")
	if err == nil {
		_, err = w.Commit(ctx, &b)
	}
	if err != nil {
		t.Fatal(err)
	}
}
