package replicate

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortKeys checks that sortKeys puts keys in id order and keeps every
// key, on sorted keys, two ascending runs (with duplicates across them) and
// random keys, short and long.
func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	key := func() uint64 { return uint64(rng.Uint32N(5000))<<32 | uint64(rng.Uint32N(1<<24)) }
	run := func(n int) []uint64 {
		r := make([]uint64, n)
		for i := range r {
			r[i] = key()
		}
		slices.Sort(r)
		return r
	}
	var cases [][]uint64
	for _, n := range []int{0, 1, 2, 47, 48, 49, 1000} {
		cases = append(cases, run(n))
		a, b := run(n/3), run(n-n/3)
		cases = append(cases, append(a, b...))
		dup := append(run(n/2), 0)
		cases = append(cases, append(dup[:len(dup)-1], dup[:len(dup)-1]...))
		random := make([]uint64, n)
		for i := range random {
			random[i] = key()
		}
		cases = append(cases, random)
	}
	var tmp []uint64
	for i, keys := range cases {
		want := slices.Clone(keys)
		slices.Sort(want)
		var got []uint64
		got, tmp = sortKeys(slices.Clone(keys), tmp)
		if !slices.IsSortedFunc(got, func(a, b uint64) int { return int(a>>32) - int(b>>32) }) {
			t.Fatalf("case %d (%d keys): not in id order", i, len(keys))
		}
		if slices.Sort(got); !slices.Equal(got, want) {
			t.Fatalf("case %d (%d keys): keys lost or made up", i, len(keys))
		}
	}
}
