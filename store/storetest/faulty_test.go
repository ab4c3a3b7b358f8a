package storetest_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-go/tandem/store"
	"github.com/tandem-go/tandem/store/storetest"
)

func TestFaulty(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "w.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w, err := db.OpenWorld(ctx, "w")
	if err != nil {
		t.Fatal(err)
	}
	f := storetest.NewFaulty(w)
	var b store.Batch
	b.Put([]byte("a"), []byte("1"))

	disk := errors.New("disk on fire")
	f.Fail(disk)
	if _, err := f.Commit(ctx, &b); err != disk {
		t.Fatalf("Commit while failing: %v, want the given error", err)
	}
	storetest.Check(t, f, storetest.Model{}, 0)
	f.Fail(nil)

	release := f.Block()
	done := make(chan uint64)
	go func() {
		seq, err := f.Commit(ctx, &b)
		if err != nil {
			t.Error(err)
		}
		done <- seq
	}()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := f.WaitBlocked(wctx, 1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		t.Fatal("a blocked Commit returned before release")
	default:
	}
	storetest.Check(t, f, storetest.Model{}, 0)
	release()
	if seq := <-done; seq != 1 {
		t.Errorf("released commit seq %d, want 1", seq)
	}
	storetest.Check(t, f, storetest.Model{"a": []byte("1")}, 1)
	if calls, blocked := f.Calls(); calls != 2 || blocked != 0 {
		t.Errorf("Calls() = %d, %d; want 2, 0", calls, blocked)
	}

	loads := f.Loads()
	f.FailLoad(disk)
	read := 0
	if _, err := f.Load(ctx, func(k, v []byte) error { read++; return nil }); err != disk || read != 1 {
		t.Fatalf("Load while failing: %v after %d records, want the given error after the one record", err, read)
	}
	stop := errors.New("stop")
	if _, err := f.Load(ctx, func(k, v []byte) error { return stop }); err != stop {
		t.Fatalf("Load stopped by its callback while failing: %v, want the callback's error", err)
	}
	f.FailLoad(nil)
	if _, err := f.Load(ctx, func(k, v []byte) error { return nil }); err != nil {
		t.Fatalf("Load after failing: %v", err)
	}
	if n := f.Loads() - loads; n != 3 {
		t.Fatalf("Loads() counted %d of three loads", n)
	}

	f.Block()
	c, cancel2 := context.WithCancel(ctx)
	go func() { _ = f.WaitBlocked(ctx, 1); cancel2() }()
	if _, err := f.Commit(c, &b); !errors.Is(err, context.Canceled) {
		t.Errorf("blocked Commit whose context ends: %v, want context.Canceled", err)
	}
}
