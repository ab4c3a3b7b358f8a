package store_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/tandem-go/tandem/store"
	"github.com/tandem-go/tandem/store/storetest"
)

// BenchmarkCommit measures a commit of 10 and of 1,000 changed records of 64
// bytes in a world holding 100,000, for each backend: the cost of a save
// that changed that much, on the committer goroutine.
func BenchmarkCommit(b *testing.B) {
	const records, size = 100_000, 64
	backends := []struct {
		name   string
		target func(b *testing.B) string
	}{
		{"bbolt", func(b *testing.B) string { return filepath.Join(b.TempDir(), "bench.db") }},
		{"postgres", func(b *testing.B) string { return storetest.PostgresURL(b) }},
	}
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			ctx := context.Background()
			db, err := store.Open(ctx, be.target(b), store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			w, err := db.OpenWorld(ctx, "bench")
			if err != nil {
				b.Fatal(err)
			}
			var batch store.Batch
			val := make([]byte, size)
			key := func(i int) []byte { return fmt.Appendf(nil, "e/%08d", i) }
			for i := range records {
				binary.LittleEndian.PutUint64(val, uint64(i))
				batch.Put(key(i), val)
			}
			if _, err := w.Commit(ctx, &batch); err != nil {
				b.Fatal(err)
			}
			keys := make([][]byte, records)
			for i := range keys {
				keys[i] = key(i)
			}
			for _, changes := range []int{10, 1000} {
				b.Run(fmt.Sprintf("records-%d/changes-%d", records, changes), func(b *testing.B) {
					r := rand.New(rand.NewPCG(1, uint64(changes)))
					b.ReportAllocs()
					for b.Loop() {
						batch.Reset()
						for range changes {
							binary.LittleEndian.PutUint64(val, r.Uint64())
							batch.Put(keys[r.IntN(records)], val)
						}
						if _, err := w.Commit(ctx, &batch); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*changes), "ns/record")
				})
			}
		})
	}
}

// BenchmarkBatchFill measures filling a reused batch with 1,000 puts of 64
// bytes, the part of a save that runs on the simulation goroutine.
func BenchmarkBatchFill(b *testing.B) {
	var batch store.Batch
	key := make([]byte, 10)
	val := make([]byte, 64)
	b.ReportAllocs()
	for b.Loop() {
		batch.Reset()
		for i := range 1000 {
			binary.LittleEndian.PutUint64(key, uint64(i))
			batch.Put(key, val)
		}
	}
}
