package conn

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/wire"
)

// InLossRate tells what the peer's datagrams lose on their way here, where
// LossRate (from the peer's acknowledgements) tells what this side's lose:
// with 10% of a's datagrams lost and none of b's, b's InLossRate is about
// 0.1 and its LossRate 0, a's the other way round; a datagram that comes
// late (reordered) is not counted lost.
func TestInLossRateIsOfWhatArrives(t *testing.T) {
	a, b, _, _, la, _, clk := fakePair(t, Config{})
	rng := rand.New(rand.NewPCG(1, 2))
	la.hold = true
	for range 3000 {
		must(t, a.Queue(wire.KindState, []byte("s"), 0))
		must(t, a.Flush())
		for i := range la.held {
			if rng.Float64() >= 0.1 {
				la.deliver(i)
			}
		}
		la.held = la.held[:0]
		must(t, b.Queue(wire.KindInput, []byte("i"), 0))
		must(t, b.Flush())
		clk.Advance(16 * time.Millisecond)
		must(t, a.Poll())
		must(t, b.Poll())
	}
	if in := b.InLossRate(); math.Abs(in-0.1) > 0.06 || b.LossRate() > 0.01 {
		t.Fatalf("b, 10%% of what reaches it lost: InLossRate %.3f, LossRate %.3f; want about 0.1 and 0", in, b.LossRate())
	}
	if lr := a.LossRate(); math.Abs(lr-0.1) > 0.06 || a.InLossRate() > 0.01 {
		t.Fatalf("a, 10%% of what it sends lost: LossRate %.3f, InLossRate %.3f; want about 0.1 and 0", lr, a.InLossRate())
	}

	// Reordered, not lost: each pair of a's datagrams arrives swapped.
	c, d, _, _, lc, _, clk2 := fakePair(t, Config{})
	lc.hold = true
	for range 1000 {
		for range 2 {
			must(t, c.Queue(wire.KindState, []byte("s"), 0))
			must(t, c.Flush())
			clk2.Advance(8 * time.Millisecond)
		}
		lc.deliver(1)
		lc.deliver(0)
		lc.held = lc.held[:0]
		must(t, d.Poll())
		must(t, d.Flush())
		must(t, c.Poll())
	}
	if in := d.InLossRate(); in > 0.02 {
		t.Fatalf("datagrams arriving in swapped pairs, none lost: InLossRate %.3f", in)
	}
}
