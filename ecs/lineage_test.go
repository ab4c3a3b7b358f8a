package ecs

import "testing"

// A client keeps the ids of the newest run its world's lineage and the
// host's both name, below the first fresh id either gives after it.
func TestKeptBelow(t *testing.T) {
	a, b, c := RunStart{Run: 1, Fresh: 1}, RunStart{Run: 2, Fresh: 500}, RunStart{Run: 3, Fresh: 650}
	sibling := RunStart{Run: 4, Fresh: 400}
	for _, tc := range []struct {
		name      string
		held, now []RunStart
		want      NetID
	}{
		{"the same run (a cut)", []RunStart{a}, []RunStart{a}, 0},
		{"the same restored run", []RunStart{a, b}, []RunStart{a, b}, 0},
		{"a run restored from the held run's save", []RunStart{a}, []RunStart{a, b}, 500},
		{"a whole run missed", []RunStart{a}, []RunStart{a, b, c}, 500},
		{"runs restored from saves of one run", []RunStart{a, b}, []RunStart{a, sibling}, 400},
		{"runs restored from saves of one run, the other way", []RunStart{a, sibling}, []RunStart{a, b}, 400},
		{"the held run restored later", []RunStart{a, b, c}, []RunStart{a, b}, 650},
		{"two runs restored from one save", []RunStart{a, b}, []RunStart{a, RunStart{Run: 5, Fresh: 500}}, 500},
		{"the common run not the first on either side", []RunStart{a, b, c}, []RunStart{a, b, RunStart{Run: 6, Fresh: 700}}, 650},
		{"no run in common", []RunStart{a}, []RunStart{c}, 1},
		{"nothing known of what is held", nil, []RunStart{a}, 1},
	} {
		if got := KeptBelow(tc.held, tc.now); got != tc.want {
			t.Errorf("%s: KeptBelow(%v, %v) = %d, want %d", tc.name, tc.held, tc.now, got, tc.want)
		}
	}
	// A world restored again and again from its own saves: seven restores
	// apart the held run is still named, eight apart it is not.
	w := NewWorld()
	lineages := [][]RunStart{w.Lineage(nil)}
	for i := range MaxLineage + 1 {
		next := NewWorld()
		next.SetNextNetID(NetID(10 * (i + 2)))
		next.SetAncestors(lineages[i])
		lineages = append(lineages, next.Lineage(nil))
	}
	if got := KeptBelow(lineages[0], lineages[MaxLineage-1]); got != 20 {
		t.Errorf("%d restores apart, KeptBelow = %d, want 20, the first restore's fresh id", MaxLineage-1, got)
	}
	if got := KeptBelow(lineages[0], lineages[MaxLineage]); got != 1 {
		t.Errorf("%d restores apart, KeptBelow = %d, want 1: the held run is no longer named", MaxLineage, got)
	}
}

// A world names its own run, the same for its life, after the runs it was
// restored from, the newest kept; another world names another run.
func TestLineageNamesTheWorldsRunAfterItsAncestors(t *testing.T) {
	w := NewWorld()
	own := w.Lineage(nil)
	if len(own) != 1 || own[0].Run == 0 || own[0].Fresh != 1 {
		t.Fatalf("a new world's lineage is %v, want its own run, named, fresh from 1", own)
	}
	if again := w.Lineage(nil); again[0] != own[0] {
		t.Fatalf("the world's run changed from %v to %v", own[0], again[0])
	}
	if other := NewWorld().Lineage(nil); other[0].Run == own[0].Run {
		t.Fatalf("two worlds name the same run %d", own[0].Run)
	}
	var past []RunStart
	for i := range MaxLineage + 2 {
		past = append(past, RunStart{Run: uint64(100 + i), Fresh: NetID(1 + 10*i)})
	}
	w.SetNextNetID(500)
	w.SetAncestors(past)
	got := w.Lineage(nil)
	if len(got) != MaxLineage || got[0] != past[3] || got[MaxLineage-2] != past[len(past)-1] {
		t.Fatalf("restored after %d runs, the lineage is %v: want the newest %d of them, then its own", len(past), got, MaxLineage-1)
	}
	if last := got[MaxLineage-1]; last.Run == own[0].Run || last.Run == 0 || last.Fresh != 500 {
		t.Fatalf("its own run is %v: want one named anew (not %d, the name it had before the restore), fresh from 500", last, own[0].Run)
	}
	if n := testing.AllocsPerRun(10, func() { got = w.Lineage(got[:0]) }); n != 0 {
		t.Errorf("Lineage into room made allocates %.0f times", n)
	}
}

// A lineage whose fresh ids go down, with a run unnamed, or one past the
// world's own first fresh id (1 in a new world), is refused.
func TestSetAncestorsRefusesWhatNoSaveWrites(t *testing.T) {
	for _, runs := range [][]RunStart{{{Run: 0, Fresh: 1}}, {{Run: 5, Fresh: 0}}, {{Run: 5, Fresh: 9}, {Run: 6, Fresh: 8}}, {{Run: 5, Fresh: 2}}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SetAncestors(%v) did not panic", runs)
				}
			}()
			NewWorld().SetAncestors(runs)
		}()
	}
}
