package conn

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/wire"
)

// TestBudgetOffBuildsNoDebt sends about 1 MB with no budget, then turns a
// budget on: the bucket starts full, not in debt for what went before.
func TestBudgetOffBuildsNoDebt(t *testing.T) {
	a, b, _, _, _, _, clk := fakePair(t, Config{})
	payload := make([]byte, 1000)
	for range 1000 {
		must(t, a.Queue(wire.KindState, payload, 0))
		must(t, a.Flush())
		must(t, b.Poll())
		must(t, b.Flush())
		must(t, a.Poll())
		clk.Advance(time.Millisecond)
	}
	if s := a.Stats(); s.BytesSent < 1_000_000 || a.Closed() {
		t.Fatalf("sent %d bytes, closed %v", s.BytesSent, a.Closed())
	}
	const bps = 256_000
	full := int(bps / 8 * DefaultBudgetBurst.Seconds())
	a.SetBitsPerSecond(bps)
	if got := a.Budget(); got != full {
		t.Fatalf("Budget = %d right after turning the budget on, want the full bucket %d", got, full)
	}
	// The budget is spent and refills as usual.
	must(t, a.Queue(wire.KindState, payload, 0))
	must(t, a.Flush())
	if got := a.Budget(); got >= full-len(payload) || got < full-len(payload)-100 {
		t.Fatalf("Budget = %d after a %d-byte message, want a little under %d", got, len(payload), full-len(payload))
	}
	// Off again: sending spends nothing, and on again it is full.
	a.SetBitsPerSecond(0)
	for range 20 {
		must(t, a.Queue(wire.KindState, payload, 0))
		must(t, a.Flush())
	}
	clk.Advance(time.Millisecond)
	a.SetBitsPerSecond(bps)
	if got := a.Budget(); got != full {
		t.Fatalf("Budget = %d after a second spell without a budget, want %d", got, full)
	}
}
