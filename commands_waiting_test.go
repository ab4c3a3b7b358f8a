package tandem

import (
	"testing"

	"github.com/tandem-go/tandem/net/wire"
)

// A command sent again with other content while the first of its id waits
// its turn is not taken for a copy: it waits its own, and once the first
// ran the book answers it Conflict (it was dropped as a copy, and the
// client heard only the first one's receipt).
func TestOtherContentWhileTheFirstWaitsIsAConflict(t *testing.T) {
	r := newRig(t, HostConfig{CommandRate: 1})
	p := r.dialRaw("bob")
	p.send(t, 1, 0, u32(5))
	p.send(t, 2, 0, u32(6)) // past the rate: waits its turn
	p.send(t, 2, 0, u32(7)) // the same id, other content, while the first waits
	p.send(t, 2, 0, u32(6)) // a copy of the first: not taken twice
	r.step(240)
	var got []wire.ReceiptStatus
	for _, rc := range p.receipts(t) {
		if rc.Op == 2 {
			got = append(got, rc.Status)
		}
	}
	if len(got) != 2 || got[0] != wire.ReceiptDone || got[1] != wire.ReceiptConflict {
		t.Fatalf("op 2's receipts %v, want done then conflict", got)
	}
	if st := r.host.Stats(); st.Conflicts != 1 || st.Again != 1 || st.Dropped != 0 {
		t.Fatalf("host: %d conflicts, %d again, %d dropped; want 1, 1 and 0", st.Conflicts, st.Again, st.Dropped)
	}
}
