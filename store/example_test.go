package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tandem-go/tandem/store"
)

// A host opens its world, restores it, and saves what changed.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	db, err := store.Open(ctx, filepath.Join(dir, "worlds.db"), store.Options{Holder: "host-1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	w, err := db.OpenWorld(ctx, "arena") // takes the lease
	if err != nil {
		fmt.Println(err)
		return
	}
	seq, err := w.Load(ctx, func(key, value []byte) error { return nil }) // restore here
	fmt.Println("restored commit", seq, err)

	var b store.Batch // usually filled on the simulation goroutine, committed off it
	b.Put([]byte("entity/1"), []byte("position 1,2"))
	b.Put([]byte("entity/2"), []byte("position 5,5"))
	seq, err = w.Commit(ctx, &b)
	fmt.Println("committed", seq, err)

	b.Reset()
	b.Delete([]byte("entity/2"))
	seq, _ = w.Commit(ctx, &b)
	_, _ = w.Load(ctx, func(key, value []byte) error {
		fmt.Printf("%s = %s\n", key, value)
		return nil
	})
	fmt.Println("lease epoch", w.Lease().Epoch, "commit", seq)
	// Output:
	// restored commit 0 <nil>
	// committed 1 <nil>
	// entity/1 = position 1,2
	// lease epoch 1 commit 2
}
