package store_test

import (
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/tandem-go/tandem/store"
	"github.com/tandem-go/tandem/store/storetest"
)

// boltBackend is the bbolt store under the conformance suite.
var boltBackend = storetest.Backend{New: newBoltStorage}

func newBoltStorage(t *testing.T) storetest.Storage {
	path := filepath.Join(t.TempDir(), "worlds.db")
	return storetest.Storage{
		Open: func() (store.DB, error) {
			return store.Open(context.Background(), path, store.Options{Holder: "test"})
		},
		Corrupt: func(world string, key []byte) error {
			return rawBolt(path, func(tx *bbolt.Tx) error {
				rb := tx.Bucket([]byte("worlds")).Bucket([]byte(world)).Bucket([]byte("r"))
				v := append([]byte(nil), rb.Get(key)...)
				if len(v) == 0 {
					return errors.New("no such record")
				}
				v[len(v)-1] ^= 0x01
				return rb.Put(key, v)
			})
		},
		Unformat: func() error {
			return rawBolt(path, func(tx *bbolt.Tx) error {
				return tx.Bucket([]byte("tandem")).Put([]byte("format"), []byte("tandem-store/99"))
			})
		},
		Break: func(db store.DB) error { return breakFile(store.BoltFile(db)) },
	}
}

func rawBolt(path string, fn func(tx *bbolt.Tx) error) error {
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Update(fn)
}

func TestBoltConformance(t *testing.T) { storetest.Conformance(t, boltBackend) }

func TestBoltLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "worlds.db")
	db, err := store.OpenBolt(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = store.OpenBolt(path, store.Options{Timeout: 50 * time.Millisecond})
	if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second open of a held file: %v, want ErrLocked", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("second open took %v with a 50 ms timeout", d)
	}
	db.Close()
	db, err = store.OpenBolt(path, store.Options{Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatalf("open after the holder closed: %v", err)
	}
	db.Close()
}

func TestBoltNotAStore(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, randomBytes(1, 64<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := store.OpenBolt(junk, store.Options{}); !errors.Is(err, store.ErrFormat) && !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("open of a file of random bytes: %v, want ErrFormat or ErrCorrupt", err)
	}
	other := filepath.Join(dir, "other.db")
	if err := rawBolt(other, func(tx *bbolt.Tx) error { _, err := tx.CreateBucket([]byte("theirs")); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := store.OpenBolt(other, store.Options{}); !errors.Is(err, store.ErrFormat) {
		t.Errorf("open of another program's bbolt file: %v, want ErrFormat", err)
	}
}

// TestBoltDamagedPages overwrites random stretches of a store's data pages:
// Open and Load must either read exactly what was committed (the damage hit
// unused space) or fail with ErrCorrupt or ErrFormat; never panic, never
// hand back other data.
func TestBoltDamagedPages(t *testing.T) {
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean.db")
	db, err := store.OpenBolt(clean, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := db.OpenWorld(context.Background(), "w")
	m := storetest.Model{}
	var b store.Batch
	for i := range 3000 {
		b.Put([]byte{byte(i >> 8), byte(i)}, randomBytes(uint64(i), 20+i%300))
	}
	if _, err := w.Commit(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	m.Apply(&b)
	db.Close()
	orig, err := os.ReadFile(clean)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096 // bbolt's page size is the OS page size
	if len(orig)%page != 0 || len(orig) < 8*page {
		t.Fatalf("store file of %d bytes", len(orig))
	}
	r := rand.New(rand.NewPCG(7, 7))
	outcomes := map[string]int{}
	for trial := range 60 {
		damaged := append([]byte(nil), orig...)
		off := 2*page + r.IntN(len(orig)-2*page-64) // not the two meta pages
		n := 1 + r.IntN(64)
		if trial%3 == 0 {
			n = page // a whole page's worth
			if off+n > len(damaged) {
				off = len(damaged) - n
			}
		}
		for i := range n {
			damaged[off+i] = byte(r.Uint32())
		}
		path := filepath.Join(dir, "damaged.db")
		if err := os.WriteFile(path, damaged, 0o600); err != nil {
			t.Fatal(err)
		}
		outcomes[loadDamaged(t, path, m)]++
	}
	t.Logf("outcomes of 60 damaged files: %v", outcomes)
	if outcomes["corrupt"]+outcomes["format"] == 0 {
		t.Error("no damaged file was found corrupt")
	}
}

func loadDamaged(t *testing.T, path string, m storetest.Model) string {
	t.Helper()
	db, err := store.OpenBolt(path, store.Options{Timeout: 100 * time.Millisecond})
	if err == nil {
		defer db.Close()
		var w store.World
		if w, err = db.OpenWorld(context.Background(), "w"); err == nil {
			got := storetest.Model{}
			_, err = w.Load(context.Background(), func(k, v []byte) error {
				got[string(k)] = append([]byte(nil), v...)
				return nil
			})
			if err == nil {
				if len(got) != len(m) {
					t.Errorf("damaged file loaded %d records without an error, want %d", len(got), len(m))
				}
				for k, v := range m {
					if string(got[k]) != string(v) {
						t.Errorf("damaged file loaded record %q with other data and no error", k)
						break
					}
				}
				return "intact"
			}
		}
	}
	switch {
	case errors.Is(err, store.ErrCorrupt):
		return "corrupt"
	case errors.Is(err, store.ErrFormat):
		return "format"
	}
	t.Errorf("damaged file: %v, want ErrCorrupt or ErrFormat", err)
	return "other"
}

func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	return p
}

// freelistChildEnv, when set, makes TestBoltDamagedFreelist the child that
// opens the damaged file it names.
const freelistChildEnv = "TANDEM_FREELIST_CHILD"

// TestBoltDamagedFreelist: the freelist page carries no checksum, and bbolt
// sizes a slice by the count it states: a damaged count (0xFFFF, then 2⁴³
// page ids: 64 TiB) killed the process inside bbolt.Open, with nothing to
// recover. Now such a file, one whose freelist page is not one, and one
// whose count outgrows its page, are store.ErrCorrupt. The open runs in a
// child process, so that a regression fails this test instead of ending the
// whole run.
func TestBoltDamagedFreelist(t *testing.T) {
	if path := os.Getenv(freelistChildEnv); path != "" {
		_, err := store.OpenBolt(path, store.Options{Timeout: 100 * time.Millisecond})
		if !errors.Is(err, store.ErrCorrupt) {
			t.Fatalf("open: %v, want store.ErrCorrupt", err)
		}
		return
	}
	clean := filepath.Join(t.TempDir(), "clean.db")
	db, err := store.OpenBolt(clean, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := db.OpenWorld(context.Background(), "w")
	var b store.Batch
	b.Put([]byte("k"), []byte("v"))
	if _, err := w.Commit(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	db.Close()
	orig, err := os.ReadFile(clean)
	if err != nil {
		t.Fatal(err)
	}
	// The newer meta page's freelist page (layout: store/boltcheck.go).
	le := binary.LittleEndian
	meta := func(i int) (txid, freelist uint64) {
		m := orig[i*4096+16:]
		return le.Uint64(m[48:]), le.Uint64(m[32:])
	}
	tx0, fl0 := meta(0)
	tx1, fl1 := meta(1)
	fl := int(fl0)
	if tx1 > tx0 {
		fl = int(fl1)
	}
	for name, damage := range map[string]func(p []byte){
		"huge count": func(p []byte) {
			le.PutUint16(p[10:], 0xFFFF)
			le.PutUint64(p[16:], 1<<43)
		},
		"count past its page": func(p []byte) { le.PutUint16(p[10:], 0xFFFE) },
		"not a freelist page": func(p []byte) { le.PutUint16(p[8:], 0x02) },
	} {
		t.Run(name, func(t *testing.T) {
			damaged := append([]byte(nil), orig...)
			damage(damaged[fl*4096:])
			path := filepath.Join(t.TempDir(), "damaged.db")
			if err := os.WriteFile(path, damaged, 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestBoltDamagedFreelist$")
			cmd.Env = append(os.Environ(), freelistChildEnv+"="+path)
			if out, err := cmd.CombinedOutput(); err != nil {
				if len(out) > 600 {
					out = out[:600]
				}
				t.Fatalf("opening a file whose freelist is damaged (%s): %v\n%s", name, err, out)
			}
		})
	}
}
