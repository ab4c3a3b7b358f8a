package tandemtest_test

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/tandemtest"
)

// A player's commands past the host's rate wait their turn and run in the
// order sent, each once, none dropped: a strategy game's player clicking
// two orders a frame has the last one followed. (They were dropped, sent
// again two seconds later and run after newer ones: a trial's units
// followed an older order for two seconds.)
func TestCommandsPastTheRateRunInOrder(t *testing.T) {
	var order []uint32
	order32 := tandem.NewCommand("order", tandem.CommandCodec[uint32]{
		Append: func(dst []byte, v *uint32) []byte { return binary.LittleEndian.AppendUint32(dst, *v) },
		Read:   func(r *wire.Reader, v *uint32) { *v = r.U32() },
	}, func(w *tandem.World, p tandem.Peer, i uint32) error {
		order = append(order, i)
		return nil
	})
	r := tandemtest.New(t, walkersWith(order32), tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	const n = 50 // 30 a second run at once, the rest wait
	var last uint64
	for i := range uint32(n) {
		op, err := tandem.Send(ann, order32, i)
		if err != nil {
			t.Fatal(err)
		}
		last = op
		if i%2 == 1 {
			r.Step(1) // two a frame
		}
	}
	rc, ok := r.StepUntilReceipt(ann, last, 90)
	if !ok || rc.Status != tandem.ReceiptDone {
		t.Fatalf("the last order's receipt 1.5 s after it was sent: %v %v", rc, ok)
	}
	want := make([]uint32, n)
	for i := range want {
		want[i] = uint32(i)
	}
	if !slices.Equal(order, want) {
		t.Fatalf("the orders ran as %v, want each once in the order sent", order)
	}
	if st := r.Host.Stats(); st.Dropped != 0 || st.Waited == 0 {
		t.Fatalf("host: %d dropped (want 0), %d waited their turn (want some)", st.Dropped, st.Waited)
	}
}
