package store_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-go/tandem/store"
	"github.com/tandem-go/tandem/store/storetest"
)

// crashChildEnv, when set, makes the test binary the crash test's child: it
// commits to the store the variable names until it is killed.
const crashChildEnv = "TANDEM_STORE_CRASH_CHILD"

// The crash model: commit i puts key i%crashKeys and key (7i+3)%crashKeys,
// deletes key (i+crashKeys/2)%crashKeys, and sets "head" to i, so the state
// after n commits is known. Every 17th commit puts a record of 256 KiB.
const crashKeys = 64

func crashKey(j uint64) []byte { return fmt.Appendf(nil, "k%02d", j) }

// crashValue is the value commit i writes at key j: i and j, then bytes
// derived from them.
func crashValue(i, j uint64) []byte {
	n := 32 + int((i*31+j)%2000)
	if i%17 == 0 && j == i%crashKeys {
		n = 256 << 10
	}
	v := binary.LittleEndian.AppendUint64(nil, i)
	v = binary.LittleEndian.AppendUint64(v, j)
	return append(v, randomBytes(i*crashKeys+j, n)...)
}

// crashOps returns the keys commit i puts and the key it deletes (or -1).
func crashOps(i uint64) (puts []uint64, del int64) {
	puts = []uint64{i % crashKeys}
	if j := (i*7 + 3) % crashKeys; j != puts[0] {
		puts = append(puts, j)
	}
	del = int64((i + crashKeys/2) % crashKeys)
	for _, p := range puts {
		if int64(p) == del {
			del = -1
		}
	}
	return puts, del
}

func crashBatch(i uint64, b *store.Batch) {
	b.Reset()
	puts, del := crashOps(i)
	for _, j := range puts {
		b.Put(crashKey(j), crashValue(i, j))
	}
	if del >= 0 {
		b.Delete(crashKey(uint64(del)))
	}
	b.Put([]byte("head"), binary.LittleEndian.AppendUint64(nil, i))
}

// crashModel is the state after commits 1..n.
func crashModel(n uint64) storetest.Model {
	writer := map[uint64]uint64{} // key → the commit that last put it
	for i := uint64(1); i <= n; i++ {
		puts, del := crashOps(i)
		if del >= 0 {
			delete(writer, uint64(del))
		}
		for _, j := range puts {
			writer[j] = i
		}
	}
	m := storetest.Model{}
	for j, i := range writer {
		m[string(crashKey(j))] = crashValue(i, j)
	}
	if n > 0 {
		m["head"] = binary.LittleEndian.AppendUint64(nil, n)
	}
	return m
}

// crashChild commits forever, printing each commit's number after Commit
// returned.
func crashChild(target string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(3)
	}
	ctx := context.Background()
	db, err := store.Open(ctx, target, store.Options{Holder: "crash-child"})
	if err != nil {
		fail(err)
	}
	w, err := db.OpenWorld(ctx, "crash")
	if err != nil {
		fail(err)
	}
	var head uint64
	if _, err := w.Load(ctx, func(k, v []byte) error {
		if string(k) == "head" {
			head = binary.LittleEndian.Uint64(v)
		}
		return nil
	}); err != nil {
		fail(err)
	}
	var b store.Batch
	for i := head + 1; i < head+1_000_000; i++ {
		crashBatch(i, &b)
		if _, err := w.Commit(ctx, &b); err != nil {
			fail(err)
		}
		fmt.Println(i)
	}
	fail(fmt.Errorf("not killed after a million commits"))
}

// crashTest kills a committing child at random moments and checks after
// each kill that every commit it reported is there, and nothing else.
func crashTest(t *testing.T, name, target string) {
	var acked, head uint64 // the highest commit reported, the store's head
	storetest.Crash(t, storetest.CrashTest{
		Name:    name,
		Trials:  storetest.CrashTrials(t, 20),
		Command: storetest.RerunSelf(crashChildEnv, target),
		Check: func(trial int, last string) (int, error) {
			if err := storetest.Reported(last, &acked); err != nil {
				return 0, err
			}
			ctx := context.Background()
			db, err := store.Open(ctx, target, store.Options{Holder: "checker"})
			if err != nil {
				return 0, err
			}
			defer db.Close()
			w, err := db.OpenWorld(ctx, "crash")
			if err != nil {
				return 0, err
			}
			got := storetest.Model{}
			if _, err := w.Load(ctx, func(k, v []byte) error {
				got[string(k)] = bytes.Clone(v)
				return nil
			}); err != nil {
				return 0, err
			}
			var n uint64
			if h, ok := got["head"]; ok {
				n = binary.LittleEndian.Uint64(h)
			}
			if n < acked {
				return int(acked - n), nil
			}
			if n > max(acked, head)+1 {
				return 0, fmt.Errorf("store at commit %d, but the child reported %d and the store was at %d", n, acked, head)
			}
			head = n
			want := crashModel(n)
			for k, v := range want {
				if !bytes.Equal(got[k], v) {
					return 0, fmt.Errorf("after commit %d record %q differs from the model", n, k)
				}
			}
			if len(got) != len(want) {
				return 0, fmt.Errorf("after commit %d: %d records, want %d", n, len(got), len(want))
			}
			return 0, nil
		},
	})
}

func TestBoltCrash(t *testing.T) {
	crashTest(t, "store crash (bbolt)", filepath.Join(t.TempDir(), "crash.db"))
}

func TestPostgresCrash(t *testing.T) {
	crashTest(t, "store crash (PostgreSQL)", storetest.PostgresURL(t))
}
