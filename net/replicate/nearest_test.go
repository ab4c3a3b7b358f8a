package replicate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNearestFindsWhatEverySquareWould checks the block index of a peer's
// squares against a look at every square, for armies packed and spread,
// radii of one cell to many, and cells at the ends of the int32s, where a
// block's neighbours would lie past the range.
func TestNearestFindsWhatEverySquareWould(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 300 {
		var g grid
		g.r = []int64{1, 2, 16, 17, 100, 1 << 16}[round%6]
		g.whole = rng.Int64N(g.r + 1)
		spread := []int64{4, 40, 400, 1 << 20, 1 << 33}[round%5]
		base := []int64{0, -1 << 31, 1<<31 - 1, -12345}[round%4]
		coord := func() int32 {
			return int32(min(max(base+rng.Int64N(spread)-spread/2, math.MinInt32), math.MaxInt32))
		}
		at := make([]atSquare, nearSquares+1+rng.IntN(400))
		for i := range at {
			at[i] = atSquare{x: coord(), y: coord()}
		}
		var ix squareIndex
		g.indexSquares(&ix, at)
		for range 50 {
			x, y := coord(), coord()
			if rng.IntN(4) == 0 { // next to a square
				s := at[rng.IntN(len(at))]
				x = int32(min(max(int64(s.x)+rng.Int64N(2*g.r+3)-g.r-1, math.MinInt32), math.MaxInt32))
				y = int32(min(max(int64(s.y)+rng.Int64N(2*g.r+3)-g.r-1, math.MinInt32), math.MaxInt32))
			}
			want := int64(math.MaxInt64)
			for _, s := range at {
				want = min(want, max(dist(s.x, x), dist(s.y, y)))
			}
			got := g.nearest(&ix, at, x, y)
			// Within grid.whole any distance weighs the same, and past the
			// radius too: what nearest must get right is the weight's.
			if clampNear(&g, got) != clampNear(&g, want) {
				t.Fatalf("round %d (radius %d, whole %d, %d squares): cell (%d, %d) is %d from its nearest square, nearest said %d",
					round, g.r, g.whole, len(at), x, y, want, got)
			}
		}
	}
}

// clampNear is a distance as it decides a weight: within grid.whole the
// same, past the radius the radius.
func clampNear(g *grid, d int64) int64 {
	if d <= g.whole {
		return 0
	}
	return min(d, g.r)
}

// TestUnackedKeepsEachSlotsNewest checks the pass that prunes an owner's
// list of changes: once per slot, the newest, past the acknowledged frame,
// in the order listed, and its scratch left empty.
func TestUnackedKeepsEachSlotsNewest(t *testing.T) {
	var o ownRefresh
	o.acked = 10
	list := []ownForce{{slot: 3, at: 9}, {slot: 5, at: 11}, {slot: 3, at: 12}, {slot: 200, at: 10}, {slot: 5, at: 13}, {slot: 7, at: 11}, {slot: 3, at: 12}}
	got := o.unacked(list)
	// Each slot's newest, kept in the order its newest was listed.
	want := []ownForce{{slot: 5, at: 13}, {slot: 7, at: 11}, {slot: 3, at: 12}}
	if len(got) != len(want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("kept %v, want %v", got, want)
		}
	}
	for _, w := range o.seen {
		if w != 0 {
			t.Fatalf("the scratch set holds %v after the pass", o.seen)
		}
	}
	if got := o.unacked(nil); len(got) != 0 {
		t.Fatalf("an empty list kept %v", got)
	}
}
