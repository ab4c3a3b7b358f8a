package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/tandem-go/tandem/store"
)

// Backend describes a store implementation to the conformance suite.
type Backend struct {
	// New makes fresh, empty storage (a file, a database schema) for one test.
	New func(t *testing.T) Storage
	// Shared reports whether several DBs may be open on one storage at once
	// (PostgreSQL: yes; a bbolt file is held by one DB).
	Shared bool
}

// Storage is one test's storage, and the ways the suite damages it.
type Storage struct {
	// Open opens a DB on the storage.
	Open func() (store.DB, error)
	// Corrupt changes the stored bytes of a record of world so that its
	// checksum fails. Called with every DB of the storage closed.
	Corrupt func(world string, key []byte) error
	// Unformat marks the storage as written in a format this version does
	// not read. Called with every DB of the storage closed.
	Unformat func() error
	// Break makes the next commit through db fail as a failing disk or a
	// dropped connection would. An error wrapping errors.ErrUnsupported
	// skips the test that needs it (a system that cannot break a file so).
	Break func(db store.DB) error
}

// Conformance runs the tests every store.DB implementation must pass.
func Conformance(t *testing.T, b Backend) {
	tests := []struct {
		name string
		fn   func(t *testing.T, b Backend)
	}{
		{"CommitLoad", testCommitLoad},
		{"LastOperationWins", testLastOperationWins},
		{"Reopen", testReopen},
		{"LargeRecords", testLargeRecords},
		{"ManyKeys", testManyKeys},
		{"Invalid", testInvalid},
		{"WorldsApart", testWorldsApart},
		{"Fencing", testFencing},
		{"Meta", testMeta},
		{"Corrupt", testCorrupt},
		{"Format", testFormat},
		{"ReopenAfterError", testReopenAfterError},
		{"Closed", testClosed},
		{"Canceled", testCanceled},
		{"ConcurrentCommits", testConcurrentCommits},
		{"EraseAndWorlds", testEraseAndWorlds},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, b) })
	}
}

// Model is the expected content of a world: key → value.
type Model map[string][]byte

// Apply applies the batch's effective operations to m.
func (m Model) Apply(b *store.Batch) {
	_ = b.Range(func(k, v []byte, del bool) error {
		if del {
			delete(m, string(k))
		} else {
			m[string(k)] = bytes.Clone(v)
		}
		return nil
	})
}

// Check loads w and reports any difference from m and from the sequence
// number want (records must come in key order).
func Check(t testing.TB, w store.World, m Model, want uint64) {
	t.Helper()
	got := Model{}
	var last []byte
	seq, err := w.Load(context.Background(), func(k, v []byte) error {
		if last != nil && bytes.Compare(last, k) >= 0 {
			return fmt.Errorf("key %q after %q: not in key order", k, last)
		}
		last = bytes.Clone(k)
		got[string(k)] = bytes.Clone(v)
		return nil
	})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if seq != want {
		t.Errorf("Load: seq %d, want %d", seq, want)
	}
	for k, v := range m {
		g, ok := got[k]
		switch {
		case !ok:
			t.Errorf("record %q missing", k)
		case !bytes.Equal(g, v):
			t.Errorf("record %q: %d bytes %.16x…, want %d bytes %.16x…", k, len(g), g, len(v), v)
		}
	}
	for k := range got {
		if _, ok := m[k]; !ok {
			t.Errorf("record %q present, want absent", k)
		}
	}
}

func ctx() context.Context { return context.Background() }

func open(t *testing.T, s Storage) store.DB {
	t.Helper()
	db, err := s.Open()
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func openWorld(t *testing.T, db store.DB, name string) store.World {
	t.Helper()
	w, err := db.OpenWorld(ctx(), name)
	if err != nil {
		t.Fatalf("OpenWorld(%q): %v", name, err)
	}
	return w
}

func commit(t testing.TB, w store.World, b *store.Batch, m Model) uint64 {
	t.Helper()
	seq, err := w.Commit(ctx(), b)
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if m != nil {
		m.Apply(b)
	}
	return seq
}

// value returns n deterministic bytes for seed.
func value(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	return p
}

func testCommitLoad(t *testing.T, bk Backend) {
	db := open(t, bk.New(t))
	w := openWorld(t, db, "arena")
	if l := w.Lease(); l.Epoch != 1 || l.World != "arena" || l.Previous != "" {
		t.Errorf("first lease %+v, want epoch 1 of arena, no previous holder", l)
	}
	m := Model{}
	Check(t, w, m, 0)
	var b store.Batch
	b.Put([]byte("entity/2"), []byte("two"))
	b.Put([]byte("entity/1"), []byte("one"))
	b.Put([]byte("meta"), []byte{})
	b.Delete([]byte("never-there"))
	if seq := commit(t, w, &b, m); seq != 1 {
		t.Errorf("first commit seq %d, want 1", seq)
	}
	Check(t, w, m, 1)
	b.Reset()
	b.Put([]byte("entity/1"), []byte("one, changed"))
	b.Delete([]byte("entity/2"))
	b.Put([]byte("entity/3"), value(3, 64))
	if seq := commit(t, w, &b, m); seq != 2 {
		t.Errorf("second commit seq %d, want 2", seq)
	}
	Check(t, w, m, 2)
	b.Reset()
	if seq := commit(t, w, &b, m); seq != 3 {
		t.Errorf("empty commit seq %d, want 3", seq)
	}
	Check(t, w, m, 3)
}

func testLastOperationWins(t *testing.T, bk Backend) {
	db := open(t, bk.New(t))
	w := openWorld(t, db, "w")
	m := Model{}
	var b store.Batch
	b.Put([]byte("a"), []byte("1"))
	b.Put([]byte("b"), []byte("1"))
	commit(t, w, &b, m)
	b.Reset()
	b.Put([]byte("a"), []byte("2"))
	b.Delete([]byte("a")) // put then delete: absent
	b.Delete([]byte("b"))
	b.Put([]byte("b"), []byte("3")) // delete then put: present
	b.Put([]byte("c"), []byte("x"))
	b.Put([]byte("c"), []byte("y"))
	commit(t, w, &b, m)
	if _, ok := m["a"]; ok || string(m["b"]) != "3" || string(m["c"]) != "y" {
		t.Fatalf("model %q: Batch.Range does not keep the last operation of each key", m)
	}
	Check(t, w, m, 2)
}

func testReopen(t *testing.T, bk Backend) {
	s := bk.New(t)
	db, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	w := openWorld(t, db, "w")
	m := Model{}
	var b store.Batch
	for i := range 50 {
		b.Put(fmt.Appendf(nil, "k%02d", i), value(uint64(i), 100+i))
	}
	commit(t, w, &b, m)
	if err := w.SetMeta(ctx(), "cert", []byte("pem")); err != nil {
		t.Fatal(err)
	}
	first := w.Lease()
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	db = open(t, s)
	w = openWorld(t, db, "w")
	l := w.Lease()
	if l.Epoch != first.Epoch+1 || l.Previous != first.Holder {
		t.Errorf("lease after reopen %+v, want epoch %d with previous holder %q", l, first.Epoch+1, first.Holder)
	}
	Check(t, w, m, 1)
	if v, ok, err := w.Meta(ctx(), "cert"); err != nil || !ok || string(v) != "pem" {
		t.Errorf("meta after reopen: %q %v %v, want \"pem\"", v, ok, err)
	}
	b.Reset()
	b.Delete([]byte("k07"))
	if seq := commit(t, w, &b, m); seq != 2 {
		t.Errorf("commit after reopen: seq %d, want 2", seq)
	}
	Check(t, w, m, 2)
}

func testLargeRecords(t *testing.T, bk Backend) {
	db := open(t, bk.New(t))
	w := openWorld(t, db, "w")
	m := Model{}
	var b store.Batch
	b.Put([]byte("chunk/big"), value(1, 8<<20))
	b.Put([]byte("chunk/mid"), value(2, 300<<10))
	b.Put(bytes.Repeat([]byte{'k'}, store.MaxKeySize), value(3, 10))
	b.Put([]byte("small"), []byte("s"))
	commit(t, w, &b, m)
	Check(t, w, m, 1)
	b.Reset()
	b.Put([]byte("chunk/big"), value(4, 5<<20)) // shrink in place
	b.Delete([]byte("chunk/mid"))
	commit(t, w, &b, m)
	Check(t, w, m, 2)
}

func testManyKeys(t *testing.T, bk Backend) {
	db := open(t, bk.New(t))
	w := openWorld(t, db, "w")
	m := Model{}
	var b store.Batch
	const n = 20000
	for i := range n {
		b.Put(fmt.Appendf(nil, "e/%08d", i*7919%n), value(uint64(i), 16+i%100))
	}
	commit(t, w, &b, m)
	b.Reset()
	for i := 0; i < n; i += 2 {
		b.Delete(fmt.Appendf(nil, "e/%08d", i))
	}
	for i := 1; i < n; i += 10 {
		b.Put(fmt.Appendf(nil, "e/%08d", i), value(uint64(n+i), 64))
	}
	commit(t, w, &b, m)
	if len(m) != n/2 {
		t.Fatalf("model has %d records, want %d", len(m), n/2)
	}
	Check(t, w, m, 2)
}

func testInvalid(t *testing.T, bk Backend) {
	db := open(t, bk.New(t))
	if _, err := db.OpenWorld(ctx(), ""); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("OpenWorld(\"\"): %v, want ErrInvalid", err)
	}
	w := openWorld(t, db, "w")
	m := Model{}
	var b store.Batch
	b.Put([]byte("kept"), []byte("1"))
	commit(t, w, &b, m)
	for name, fill := range map[string]func(b *store.Batch){
		"empty key":      func(b *store.Batch) { b.Put(nil, []byte("v")) },
		"long key":       func(b *store.Batch) { b.Delete(bytes.Repeat([]byte{'k'}, store.MaxKeySize+1)) },
		"long value":     func(b *store.Batch) { b.Put([]byte("v"), make([]byte, store.MaxValueSize+1)) },
		"one bad of two": func(b *store.Batch) { b.Delete([]byte("kept")); b.Put(nil, nil) },
	} {
		b.Reset()
		fill(&b)
		if _, err := w.Commit(ctx(), &b); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%s: Commit: %v, want ErrInvalid", name, err)
		}
	}
	if err := w.SetMeta(ctx(), "", []byte("x")); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("SetMeta with empty name: %v, want ErrInvalid", err)
	}
	Check(t, w, m, 1)
}

func testWorldsApart(t *testing.T, bk Backend) {
	db := open(t, bk.New(t))
	a, c := openWorld(t, db, "a"), openWorld(t, db, "c")
	ma, mc := Model{}, Model{}
	var b store.Batch
	b.Put([]byte("k"), []byte("of a"))
	commit(t, a, &b, ma)
	b.Reset()
	b.Put([]byte("k"), []byte("of c"))
	b.Put([]byte("only c"), []byte("1"))
	commit(t, c, &b, mc)
	commit(t, c, &b, mc)
	if err := a.SetMeta(ctx(), "id", []byte("a")); err != nil {
		t.Fatal(err)
	}
	Check(t, a, ma, 1)
	Check(t, c, mc, 2)
	if _, ok, err := c.Meta(ctx(), "id"); ok || err != nil {
		t.Errorf("world c sees a's meta (%v, %v)", ok, err)
	}
}

func testFencing(t *testing.T, bk Backend) {
	s := bk.New(t)
	db := open(t, s)
	second := db
	if bk.Shared {
		second = open(t, s) // another host on the same database
	}
	first := openWorld(t, db, "w")
	m := Model{}
	var b store.Batch
	b.Put([]byte("k"), []byte("first"))
	commit(t, first, &b, m)
	if err := first.SetMeta(ctx(), "cert", []byte("first")); err != nil {
		t.Fatal(err)
	}

	taker := openWorld(t, second, "w")
	if l := taker.Lease(); l.Epoch != first.Lease().Epoch+1 || l.Previous != first.Lease().Holder {
		t.Errorf("taker's lease %+v, want epoch %d after holder %q", l, first.Lease().Epoch+1, first.Lease().Holder)
	}
	b.Reset()
	b.Put([]byte("k"), []byte("late write"))
	b.Put([]byte("new"), []byte("late write"))
	b.Delete([]byte("k"))
	_, err := first.Commit(ctx(), &b)
	var fe *store.FencedError
	if !errors.Is(err, store.ErrFenced) || !errors.As(err, &fe) {
		t.Fatalf("fenced holder's Commit: %v, want ErrFenced", err)
	}
	if fe.Epoch != first.Lease().Epoch || fe.Now != taker.Lease().Epoch || fe.Holder != taker.Lease().Holder || fe.World != "w" {
		t.Errorf("FencedError %+v, want epoch %d, now %d by %q", fe, first.Lease().Epoch, taker.Lease().Epoch, taker.Lease().Holder)
	}
	if err := first.SetMeta(ctx(), "cert", []byte("late")); !errors.Is(err, store.ErrFenced) {
		t.Errorf("fenced holder's SetMeta: %v, want ErrFenced", err)
	}
	if _, err := first.Load(ctx(), func(k, v []byte) error { return nil }); !errors.Is(err, store.ErrFenced) {
		t.Errorf("fenced holder's Load: %v, want ErrFenced", err)
	}
	if _, err := first.Commit(ctx(), &b); !errors.Is(err, store.ErrFenced) {
		t.Errorf("fenced holder's second Commit: %v, want ErrFenced (a fenced World stays fenced)", err)
	}
	Check(t, taker, m, 1) // nothing of the refused commits
	if v, _, err := taker.Meta(ctx(), "cert"); err != nil || string(v) != "first" {
		t.Errorf("meta after a fenced SetMeta: %q, %v; want \"first\"", v, err)
	}
	b.Reset()
	b.Put([]byte("k"), []byte("taker"))
	if seq := commit(t, taker, &b, m); seq != 2 {
		t.Errorf("taker's commit seq %d, want 2", seq)
	}
	Check(t, taker, m, 2)
}

func testMeta(t *testing.T, bk Backend) {
	s := bk.New(t)
	db := open(t, s)
	w := openWorld(t, db, "w")
	if v, ok, err := w.Meta(ctx(), "cert"); v != nil || ok || err != nil {
		t.Errorf("absent meta: %q %v %v", v, ok, err)
	}
	cert := value(7, 1500)
	if err := w.SetMeta(ctx(), "cert", cert); err != nil {
		t.Fatal(err)
	}
	if err := w.SetMeta(ctx(), "reset-key", value(8, 32)); err != nil {
		t.Fatal(err)
	}
	if err := w.SetMeta(ctx(), "empty", []byte{}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := w.Meta(ctx(), "cert")
	if err != nil || !ok || !bytes.Equal(got, cert) {
		t.Fatalf("Meta(cert) = %d bytes, %v, %v", len(got), ok, err)
	}
	got[0] ^= 0xff // a copy: changing it changes nothing stored
	if again, _, _ := w.Meta(ctx(), "cert"); !bytes.Equal(again, cert) {
		t.Error("Meta returned stored memory, not a copy")
	}
	if v, ok, err := w.Meta(ctx(), "empty"); !ok || len(v) != 0 || err != nil {
		t.Errorf("empty meta: %q %v %v", v, ok, err)
	}
	Check(t, w, Model{}, 0) // meta is not in the records, nor a commit
	if err := w.SetMeta(ctx(), "reset-key", nil); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := w.Meta(ctx(), "reset-key"); ok {
		t.Error("meta set to nil still present")
	}
	db.Close()
	db = open(t, s)
	w = openWorld(t, db, "w")
	if v, ok, err := w.Meta(ctx(), "cert"); !ok || !bytes.Equal(v, cert) || err != nil {
		t.Errorf("meta after reopen: %d bytes, %v, %v", len(v), ok, err)
	}
}

func testCorrupt(t *testing.T, bk Backend) {
	s := bk.New(t)
	db := open(t, s)
	w := openWorld(t, db, "w")
	var b store.Batch
	for i := range 20 {
		b.Put(fmt.Appendf(nil, "k%02d", i), value(uint64(i), 200))
	}
	commit(t, w, &b, nil)
	if err := w.SetMeta(ctx(), "cert", []byte("pem")); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := s.Corrupt("w", []byte("k13")); err != nil {
		t.Fatal(err)
	}
	db = open(t, s)
	w = openWorld(t, db, "w")
	n := 0
	_, err := w.Load(ctx(), func(k, v []byte) error { n++; return nil })
	var ce *store.CorruptError
	if !errors.Is(err, store.ErrCorrupt) || !errors.As(err, &ce) {
		t.Fatalf("Load of a corrupt record: %v, want ErrCorrupt", err)
	}
	if string(ce.Key) != "k13" || ce.World != "w" {
		t.Errorf("CorruptError names world %q key %q, want w, k13", ce.World, ce.Key)
	}
	if n != 13 {
		t.Errorf("Load gave %d records before the corrupt one, want 13 (in key order)", n)
	}
	if v, ok, err := w.Meta(ctx(), "cert"); !ok || string(v) != "pem" || err != nil {
		t.Errorf("meta beside a corrupt record: %q %v %v", v, ok, err)
	}
}

func testFormat(t *testing.T, bk Backend) {
	s := bk.New(t)
	db := open(t, s)
	openWorld(t, db, "w")
	db.Close()
	if err := s.Unformat(); err != nil {
		t.Fatal(err)
	}
	db, err := s.Open()
	if err == nil {
		db.Close()
	}
	if !errors.Is(err, store.ErrFormat) {
		t.Fatalf("Open of a store in another format: %v, want ErrFormat", err)
	}
}

func testReopenAfterError(t *testing.T, bk Backend) {
	s := bk.New(t)
	db := open(t, s)
	w := openWorld(t, db, "w")
	m := Model{}
	var b store.Batch
	b.Put([]byte("a"), []byte("1"))
	commit(t, w, &b, m)
	if err := s.Break(db); errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	} else if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	b.Put([]byte("a"), []byte("2"))
	b.Put([]byte("b"), value(9, 10000))
	_, err := w.Commit(ctx(), &b)
	if err == nil || errors.Is(err, store.ErrFenced) || errors.Is(err, store.ErrInvalid) {
		t.Fatalf("Commit after Break: %v, want an I/O error", err)
	}
	// The same batch, retried, lands: the World reopened what failed.
	seq, err := w.Commit(ctx(), &b)
	if err != nil {
		t.Fatalf("retried Commit: %v", err)
	}
	m.Apply(&b)
	if seq != 2 {
		t.Errorf("retried commit seq %d, want 2 (the failed one did not land)", seq)
	}
	Check(t, w, m, 2)
	db.Close()
	db = open(t, s)
	Check(t, openWorld(t, db, "w"), m, 2)
}

func testClosed(t *testing.T, bk Backend) {
	db := open(t, bk.New(t))
	w := openWorld(t, db, "w")
	var b store.Batch
	b.Put([]byte("a"), []byte("1"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx(), &b); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Commit on a closed World: %v, want ErrClosed", err)
	}
	w2 := openWorld(t, db, "w")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w2.Commit(ctx(), &b); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Commit after DB.Close: %v, want ErrClosed", err)
	}
	if _, err := w2.Load(ctx(), func(k, v []byte) error { return nil }); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Load after DB.Close: %v, want ErrClosed", err)
	}
	if _, err := db.OpenWorld(ctx(), "w"); !errors.Is(err, store.ErrClosed) {
		t.Errorf("OpenWorld after DB.Close: %v, want ErrClosed", err)
	}
}

func testCanceled(t *testing.T, bk Backend) {
	db := open(t, bk.New(t))
	w := openWorld(t, db, "w")
	c, cancel := context.WithCancel(ctx())
	cancel()
	var b store.Batch
	b.Put([]byte("a"), []byte("1"))
	if _, err := w.Commit(c, &b); !errors.Is(err, context.Canceled) {
		t.Errorf("Commit with a canceled context: %v, want context.Canceled", err)
	}
	Check(t, w, Model{}, 0)
	if seq := commit(t, w, &b, nil); seq != 1 {
		t.Errorf("commit after a canceled one: seq %d, want 1", seq)
	}
}

func testConcurrentCommits(t *testing.T, bk Backend) {
	db := open(t, bk.New(t))
	w := openWorld(t, db, "w")
	const goroutines, each = 4, 10
	var mu sync.Mutex
	seqs := map[uint64]bool{}
	m := Model{}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			var b store.Batch
			for i := range each {
				b.Reset()
				k := fmt.Appendf(nil, "g%d/%d", g, i)
				b.Put(k, k)
				seq, err := w.Commit(ctx(), &b)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				seqs[seq] = true
				m[string(k)] = k
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for s := uint64(1); s <= goroutines*each; s++ {
		if !seqs[s] {
			t.Errorf("no commit got seq %d", s)
		}
	}
	Check(t, w, m, goroutines*each)
}

// testEraseAndWorlds: Worlds lists the committed worlds in name order; Erase
// empties a world (records, meta, sequence) atomically under its lease,
// leaves the others alone, takes it off the list until its next commit, and
// is fenced like Commit.
func testEraseAndWorlds(t *testing.T, bk Backend) {
	s := bk.New(t)
	db := open(t, s)
	if names, err := db.Worlds(ctx()); err != nil || len(names) != 0 {
		t.Fatalf("Worlds of an empty store: %q, %v", names, err)
	}
	worlds := map[string]store.World{}
	models := map[string]Model{}
	for _, name := range []string{"b", "a", "c", "never"} {
		worlds[name] = openWorld(t, db, name)
		models[name] = Model{}
		if name == "never" {
			continue // opened, never committed
		}
		var b store.Batch
		b.Put([]byte("k1"), []byte(name))
		b.Put([]byte("k2"), bytes.Repeat([]byte(name), 100))
		commit(t, worlds[name], &b, models[name])
		if err := worlds[name].SetMeta(ctx(), "cert", []byte(name)); err != nil {
			t.Fatal(err)
		}
	}
	listed := func(want ...string) {
		t.Helper()
		names, err := db.Worlds(ctx())
		if err != nil || fmt.Sprint(names) != fmt.Sprint(want) {
			t.Fatalf("Worlds: %q, %v; want %q", names, err, want)
		}
	}
	listed("a", "b", "c")

	if err := worlds["b"].Erase(ctx()); err != nil {
		t.Fatal(err)
	}
	Check(t, worlds["b"], Model{}, 0)
	if _, ok, err := worlds["b"].Meta(ctx(), "cert"); ok || err != nil {
		t.Errorf("meta after Erase: present %v, %v", ok, err)
	}
	Check(t, worlds["a"], models["a"], 1)
	Check(t, worlds["c"], models["c"], 1)
	if v, _, err := worlds["c"].Meta(ctx(), "cert"); err != nil || string(v) != "c" {
		t.Errorf("another world's meta after Erase: %q, %v", v, err)
	}
	listed("a", "c")

	// The erased world takes commits again from sequence 1, and is listed.
	var b store.Batch
	b.Put([]byte("k3"), []byte("again"))
	models["b"] = Model{}
	if seq := commit(t, worlds["b"], &b, models["b"]); seq != 1 {
		t.Errorf("the first commit after Erase: seq %d, want 1", seq)
	}
	Check(t, worlds["b"], models["b"], 1)
	listed("a", "b", "c")

	// Erase is fenced: a holder whose world was taken erases nothing.
	second := db
	if bk.Shared {
		second = open(t, s)
	}
	taker := openWorld(t, second, "a")
	if err := worlds["a"].Erase(ctx()); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("a fenced holder's Erase: %v, want ErrFenced", err)
	}
	Check(t, taker, models["a"], 1)
	if err := worlds["c"].Close(); err != nil {
		t.Fatal(err)
	}
	if err := worlds["c"].Erase(ctx()); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Erase of a closed World: %v, want ErrClosed", err)
	}
}
