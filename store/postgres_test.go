package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-go/tandem/store"
	"github.com/tandem-go/tandem/store/storetest"
)

// pgBackend is the PostgreSQL store under the conformance suite.
var pgBackend = storetest.Backend{New: newPostgresStorage, Shared: true}

var pgApps atomic.Int64

func newPostgresStorage(t *testing.T) storetest.Storage {
	app := fmt.Sprintf("tandem-test-%d", pgApps.Add(1))
	url := storetest.PostgresURL(t) + "&application_name=" + app
	sql := func(query string, args ...any) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		tag, err := conn.Exec(ctx, query, args...)
		if err == nil && tag.RowsAffected() == 0 && !strings.HasPrefix(query, "SELECT") {
			err = errors.New("no row changed")
		}
		return err
	}
	return storetest.Storage{
		Open: func() (store.DB, error) {
			return store.Open(context.Background(), url, store.Options{Holder: "test"})
		},
		Corrupt: func(world string, key []byte) error {
			return sql(`UPDATE tandem_records SET value = set_byte(value, length(value) - 1, get_byte(value, length(value) - 1) # 1)
				WHERE world = $1 AND key = $2`, world, key)
		},
		Unformat: func() error { return sql("UPDATE tandem_store SET format = 'tandem-store/99'") },
		Break: func(store.DB) error {
			// Terminate the store's server processes, as a server restart
			// or a network failure would, and wait until they are gone.
			if err := sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
				WHERE application_name = $1 AND pid <> pg_backend_pid()`, app); err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				return err
			}
			defer conn.Close(ctx)
			for {
				var n int
				if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, app).Scan(&n); err != nil {
					return err
				}
				if n == 0 {
					return nil
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(5 * time.Millisecond):
				}
			}
		},
	}
}

func TestPostgresConformance(t *testing.T) { storetest.Conformance(t, pgBackend) }

// TestPostgresCommitAtomic makes the server refuse a commit's inserts (a
// trigger raises) and checks its deletes did not happen either.
func TestPostgresCommitAtomic(t *testing.T) {
	url := storetest.PostgresURL(t)
	ctx := context.Background()
	db, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.OpenWorld(ctx, "w")
	if err != nil {
		t.Fatal(err)
	}
	m := storetest.Model{}
	var b store.Batch
	b.Put([]byte("a"), []byte("1"))
	b.Put([]byte("b"), []byte("1"))
	if _, err := w.Commit(ctx, &b); err != nil {
		t.Fatal(err)
	}
	m.Apply(&b)
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, `CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
		CREATE TRIGGER refuse BEFORE INSERT ON tandem_records FOR EACH ROW WHEN (NEW.key = 'poison') EXECUTE FUNCTION refuse()`); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	b.Delete([]byte("a"))
	b.Put([]byte("b"), []byte("2"))
	b.Put([]byte("poison"), []byte("x"))
	if _, err := w.Commit(ctx, &b); err == nil || !strings.Contains(err.Error(), "refused by the test") {
		t.Fatalf("Commit with a refused insert: %v", err)
	}
	storetest.Check(t, w, m, 1)
	if _, err := admin.Exec(ctx, "DROP TRIGGER refuse ON tandem_records"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, &b); err != nil {
		t.Fatalf("retried Commit: %v", err)
	}
	m.Apply(&b)
	storetest.Check(t, w, m, 2)
}

// TestPostgresTakeWhileCommitting races lease takes against a holder's
// commits: every commit either lands before the take or is fenced.
func TestPostgresTakeWhileCommitting(t *testing.T) {
	url := storetest.PostgresURL(t)
	ctx := context.Background()
	hostA, err := store.Open(ctx, url, store.Options{Holder: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer hostA.Close()
	hostB, err := store.Open(ctx, url, store.Options{Holder: "b"})
	if err != nil {
		t.Fatal(err)
	}
	defer hostB.Close()
	for round := range 5 {
		a, err := hostA.OpenWorld(ctx, "w")
		if err != nil {
			t.Fatal(err)
		}
		// A holder fenced at its first commit of a round acknowledged
		// nothing since what it loaded: the world's commits of the rounds
		// before.
		loaded, err := a.Load(ctx, func(k, v []byte) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan uint64)
		go func() {
			last := loaded
			var b store.Batch
			for i := 0; ; i++ {
				b.Reset()
				b.Put(fmt.Appendf(nil, "a%d", i), []byte("a"))
				seq, err := a.Commit(ctx, &b)
				if err != nil {
					if !errors.Is(err, store.ErrFenced) {
						t.Error(err)
					}
					done <- last
					return
				}
				last = seq
			}
		}()
		time.Sleep(time.Duration(round) * 5 * time.Millisecond)
		bw, err := hostB.OpenWorld(ctx, "w")
		if err != nil {
			t.Fatal(err)
		}
		lastA := <-done
		seq, err := bw.Load(ctx, func(k, v []byte) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if seq != lastA {
			t.Errorf("round %d: the taker loads seq %d, the fenced holder's last acknowledged commit was %d", round, seq, lastA)
		}
		a.Close()
		bw.Close()
	}
}
