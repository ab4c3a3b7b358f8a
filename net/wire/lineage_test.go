package wire

import (
	"errors"
	"testing"
)

// A Welcome or Resumed names its world's lineage: one run at least, at most
// MaxLineage, each named, with fresh ids from 1 that never go down. One
// without is malformed: a client could not tell which of the ids it holds
// still name what they named.
func TestAnAnswerNamesItsLineage(t *testing.T) {
	full := make([]RunStart, MaxLineage)
	for i := range full {
		full[i] = RunStart{Run: uint64(i + 1), Fresh: uint32(100 * i)}
	}
	full[0].Fresh = 1
	for _, tc := range []struct {
		name string
		runs Lineage
		err  error
	}{
		{"one run", LineageOf(RunStart{7, 1}), nil},
		{"three runs", LineageOf(RunStart{7, 1}, RunStart{9, 50}, RunStart{3, 50}), nil},
		{"the most runs", LineageOf(full...), nil},
		{"no run", Lineage{}, ErrInvalid},
		{"an unnamed run", LineageOf(RunStart{7, 1}, RunStart{0, 50}), ErrInvalid},
		{"no fresh id", LineageOf(RunStart{7, 0}), ErrInvalid},
		{"fresh ids going down", LineageOf(RunStart{7, 60}, RunStart{9, 50}), ErrInvalid},
	} {
		w := goldenWelcome()
		w.Runs = tc.runs
		var gw Welcome
		if err := gw.Decode(w.Encode(nil)); !errors.Is(err, tc.err) || err == nil && gw.Runs != tc.runs {
			t.Errorf("a Welcome with %s: %v, %+v; want %v", tc.name, err, gw.Runs, tc.err)
		}
		r := goldenResumed()
		r.Runs = tc.runs
		var gr Resumed
		if err := gr.Decode(r.Encode(nil)); !errors.Is(err, tc.err) || err == nil && gr.Runs != tc.runs {
			t.Errorf("a Resumed with %s: %v, %+v; want %v", tc.name, err, gr.Runs, tc.err)
		}
	}
	// More runs than a lineage lists: a count no host writes.
	msg := goldenWelcome().Encode(nil)
	at := len(msg) - (1 + 12) // the count of its one run
	if msg[at] != 1 {
		t.Fatalf("the golden Welcome's lineage count is %d, want 1 at %d", msg[at], at)
	}
	msg[at] = MaxLineage + 1
	var gw Welcome
	if err := gw.Decode(msg); !errors.Is(err, ErrTrailing) {
		t.Errorf("a Welcome listing %d runs, one written: %v, want ErrTrailing", MaxLineage+1, err)
	}
	// A Lineage made by hand with more runs than it holds encodes (as a
	// count no decoder takes) rather than panics.
	w := goldenWelcome()
	w.Runs.N = MaxLineage + 1
	if err := gw.Decode(w.Encode(nil)); err == nil {
		t.Errorf("a Welcome encoded with a count of %d runs decodes", MaxLineage+1)
	}
}

// LineageOf keeps the newest MaxLineage runs, oldest first.
func TestLineageOfKeepsTheNewest(t *testing.T) {
	runs := make([]RunStart, MaxLineage+3)
	for i := range runs {
		runs[i] = RunStart{Run: uint64(i + 1), Fresh: uint32(i + 1)}
	}
	l := LineageOf(runs...)
	if l.N != MaxLineage || l.Runs[0].Run != 4 || l.Own().Run != uint64(MaxLineage+3) {
		t.Fatalf("LineageOf %d runs: %d listed, the first %d, its own %d; want %d, 4 and %d", len(runs), l.N, l.Runs[0].Run, l.Own().Run, MaxLineage, MaxLineage+3)
	}
}
