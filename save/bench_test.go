package save_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/store"
)

// benchWorld is a rig of n networked entities (Transform, Velocity, and
// health on every third) whose first save is done.
func benchWorld(b *testing.B, n int) (*rig, []arche.Entity) {
	r := newRig()
	a := r.w.Arche()
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](a)
	hm := generic.NewMap1[health](a)
	es := make([]arche.Entity, 0, n)
	for i := range n {
		e := m.NewWith(&ecs.Transform{X: float64(i)}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		if i%3 == 0 {
			hm.Assign(e, &health{HP: 100})
		}
		es = append(es, e)
	}
	r.t.Start()
	r.sched.Step()
	var batch store.Batch
	if _, err := r.t.Fill(&batch); err != nil {
		b.Fatal(err)
	}
	r.t.Committed()
	return r, es
}

// BenchmarkSave is the cost of a save on the simulation goroutine: the
// tracker reading a frame's journal of `changes` reported writes (among
// 100,000 entities) and filling the save's batch with them. The commit runs
// on the committer's goroutine and is measured by BenchmarkCommit.
func BenchmarkSave(b *testing.B) {
	const n = 100_000
	for _, changes := range []int{10, 1000} {
		b.Run(fmt.Sprintf("entities-%d/changes-%d", n, changes), func(b *testing.B) {
			r, es := benchWorld(b, n)
			a := r.w.Arche()
			stride := n / changes
			var batch store.Batch
			x := 0.0
			save := func() {
				x++
				for i := 0; i < n; i += stride {
					(*ecs.Transform)(a.Get(es[i], r.w.IDs.Transform)).X = x
					ecs.MutateComponent(r.w, es[i], r.w.IDs.Transform)
				}
				r.t.Update(r.w)
				fs, err := r.t.Fill(&batch)
				if err != nil || fs.Entities != changes {
					b.Fatalf("fill: %+v, %v", fs, err)
				}
				r.t.Committed()
				r.w.EndFrame()
			}
			save() // the journal's and the tracker's lists grow to a save's size once
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				save()
			}
			b.ReportMetric(float64(batch.Size()), "bytes/save")
		})
	}
}

// BenchmarkCommit is what a save costs the committer: one bbolt commit (two
// fsyncs) of the batch of BenchmarkSave, from Commit to durable.
func BenchmarkCommit(b *testing.B) {
	const n = 100_000
	for _, changes := range []int{10, 1000} {
		b.Run(fmt.Sprintf("entities-%d/changes-%d", n, changes), func(b *testing.B) {
			r, es := benchWorld(b, n)
			st := openWorld(b, filepath.Join(b.TempDir(), "bench.db"))
			a := r.w.Arche()
			r.t.MarkAll()
			var batch store.Batch
			if _, err := r.t.Fill(&batch); err != nil {
				b.Fatal(err)
			}
			if _, err := st.Commit(context.Background(), &batch); err != nil {
				b.Fatal(err)
			}
			r.t.Committed()
			stride := n / changes
			x := 0.0
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				x++
				for i := 0; i < n; i += stride {
					(*ecs.Transform)(a.Get(es[i], r.w.IDs.Transform)).X = x
					ecs.MutateComponent(r.w, es[i], r.w.IDs.Transform)
				}
				r.t.Update(r.w)
				if _, err := r.t.Fill(&batch); err != nil {
					b.Fatal(err)
				}
				r.w.EndFrame()
				b.StartTimer()
				if _, err := st.Commit(context.Background(), &batch); err != nil {
					b.Fatal(err)
				}
				r.t.Committed()
			}
		})
	}
}
