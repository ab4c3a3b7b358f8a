package predict

import (
	"testing"
)

// A client given 3,000 units at its join that is then given one more has
// its history grown within MaxOwned a frame, not doubled to 6,000: the
// memory MaxOwned bounds is what it says.
func TestHistoryStrideStaysWithinMaxOwned(t *testing.T) {
	r := newRig(t, 3000, ClientConfig[pad]{})
	r.steps(1)
	r.ents = append(r.ents, r.g.add(localPeer, 0, 5))
	r.steps(1)
	if err := r.pred.Err(); err != nil {
		t.Fatalf("3,001 owned: %v", err)
	}
	if r.pred.hist.stride > DefaultMaxOwned {
		t.Fatalf("3,001 owned: the history holds %d entities a frame, past MaxOwned %d", r.pred.hist.stride, DefaultMaxOwned)
	}
}
