package interp

import (
	"math/rand/v2"
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// receivedBetween finds, a word of its bitmap at a time, the frame a scan
// of one frame at a time finds: the newest frame heard between lo and hi
// within the window remembered, at every alignment of the range to the
// words, across the ring's wrap and below the forgotten frames. (A host
// numbering its States 2,000 frames apart had each item of each State
// scan 1,024 frames.)
func TestReceivedBetweenFindsWhatAFrameByFrameScanFinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 200 {
		var tl timeline
		tl.have = true
		tl.newest = ecs.Frame(rng.IntN(5000))
		heard := map[ecs.Frame]bool{}
		for range rng.IntN(40) {
			if f := tl.newest - ecs.Frame(rng.IntN(min(int(tl.newest)+1, window))); f <= tl.newest {
				tl.mark(f)
				heard[f] = true
			}
		}
		for range 50 {
			lo := ecs.Frame(rng.IntN(int(tl.newest) + 2))
			hi := lo + ecs.Frame(rng.IntN(1500))
			want, wantOK := ecs.Frame(0), false
			floor := lo
			if tl.newest >= window && tl.newest-window+1 > floor {
				floor = tl.newest - window
			}
			for k := hi - 1; k > floor && k < hi; k-- {
				if k <= tl.newest && heard[k] && tl.newest-k < window {
					want, wantOK = k, true
					break
				}
			}
			if got, ok := tl.receivedBetween(lo, hi); got != want || ok != wantOK {
				t.Fatalf("round %d: newest %d, frames (%d, %d): got %d %v, want %d %v", round, tl.newest, lo, hi, got, ok, want, wantOK)
			}
		}
	}
}
