package save_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/save"
	"github.com/tandem-go/tandem/store"
)

// A save names its world's lineage, and a world restored from it comes
// after those runs, a restore of a restore after both. A save of format 1,
// written before saves named runs, restores a world that knows no run
// before its own, and the next save names that one.
func TestASaveNamesItsWorldsLineage(t *testing.T) {
	dir := t.TempDir()
	st := openWorld(t, filepath.Join(dir, "a.db"))
	first := newRig()
	first.populate(6)
	first.t.Start()
	commit(t, first, st)

	second := newRig()
	if _, err := second.t.Load(context.Background(), st, nil, nil); err != nil {
		t.Fatal(err)
	}
	m := generic.NewMap1[ecs.NetworkIdentity](second.w.Arche())
	m.NewWith(&ecs.NetworkIdentity{}) // an id of the second run's own
	want := append(first.w.Lineage(nil), ecs.RunStart{Run: second.w.Lineage(nil)[1].Run, Fresh: 7})
	if got := second.w.Lineage(nil); !slices.Equal(got, want) {
		t.Fatalf("restored, the world's lineage is %v, want %v: the saved run, then its own, fresh from 7", got, want)
	}
	st2 := openWorld(t, filepath.Join(dir, "b.db"))
	second.t.Start()
	second.t.MarkAll() // a whole save, into a store of its own
	commit(t, second, st2)

	third := newRig()
	if _, err := third.t.Load(context.Background(), st2, nil, nil); err != nil {
		t.Fatal(err)
	}
	got := third.w.Lineage(nil)
	if len(got) != 3 || !slices.Equal(got[:2], want) || got[2].Fresh != 8 || got[2].Run == want[1].Run {
		t.Fatalf("a restore of a restore names %v, want %v and then its own run, fresh from 8", got, want)
	}

	// The head as format 1 wrote it: no runs.
	head := records(t, st2)[string([]byte{0x01})]
	old := head[:len(head)-1-2*12]
	old[0] = 1
	var b store.Batch
	b.Put([]byte{0x01}, old)
	if _, err := st2.Commit(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	fourth := newRig()
	if _, err := fourth.t.Load(context.Background(), st2, nil, nil); err != nil {
		t.Fatalf("a save of format 1 does not restore: %v", err)
	}
	if got := fourth.w.Lineage(nil); len(got) != 1 || got[0].Fresh != 8 {
		t.Fatalf("restored from a save of format 1, the world's lineage is %v, want its own run alone, fresh from 8", got)
	}
	fourth.t.Start()
	commit(t, fourth, st2)
	now := records(t, st2)[string([]byte{0x01})]
	if f := now[0]; f != 2 {
		t.Fatalf("the next save's head is of format %d, want 2", f)
	}
	if want := headOf(append([]byte{2}, old[1:]...), 1, fourth.w.Lineage(nil)); string(now) != string(want) {
		t.Fatalf("the next save's head is % x, want % x: the counts, then the restored world's own run", now, want)
	}
}

// A head whose lineage no save writes is refused as a mismatch, the
// restore's error, and nothing panics.
func TestAHeadWithABadLineageIsRefused(t *testing.T) {
	st := openWorld(t, filepath.Join(t.TempDir(), "a.db"))
	r := newRig()
	r.populate(3)
	r.t.Start()
	commit(t, r, st)
	good := records(t, st)[string([]byte{0x01})]
	counts := good[:len(good)-13] // up to the lineage; the counter is 4
	for _, tc := range []struct {
		name string
		runs []ecs.RunStart
		n    int
	}{
		{"no runs", nil, 0},
		{"more runs than a lineage lists", make([]ecs.RunStart, ecs.MaxLineage+1), ecs.MaxLineage + 1},
		{"an unnamed run", []ecs.RunStart{{Run: 0, Fresh: 1}}, 1},
		{"no fresh id", []ecs.RunStart{{Run: 3, Fresh: 0}}, 1},
		{"fresh ids going down", []ecs.RunStart{{Run: 3, Fresh: 3}, {Run: 4, Fresh: 2}}, 2},
		{"a fresh id past the counter", []ecs.RunStart{{Run: 3, Fresh: 5}}, 1},
	} {
		var b store.Batch
		b.Put([]byte{0x01}, headOf(counts, tc.n, tc.runs))
		if _, err := st.Commit(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		r2 := newRig()
		if _, err := r2.t.Load(context.Background(), st, nil, nil); !errors.Is(err, save.ErrMismatch) {
			t.Errorf("a head with %s restores: %v, want ErrMismatch", tc.name, err)
		}
	}
}
