package replicate

import (
	"math/rand/v2"
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// TestRecordsFollowWhatIsInFlight drives a peer's records like a link that
// resolves messages out of order: every live token finds its record and
// items, a resolved one is gone, the rings grow with what is in flight and
// shrink back when it falls.
func TestRecordsFollowWhatIsInFlight(t *testing.T) {
	var rs records
	rng := rand.New(rand.NewPCG(7, 8))
	live := map[uint32][]sentItem{}
	var order []uint32
	resolve := func(token uint32) {
		r := rs.get(token)
		if r == nil {
			t.Fatalf("token %d live but not found", token)
		}
		r.seq = 0
		delete(live, token)
		rs.release()
	}
	check := func() {
		t.Helper()
		for token, want := range live {
			r := rs.get(token)
			if r == nil || r.n != uint32(len(want)) {
				t.Fatalf("token %d: record %+v, want %d items", token, r, len(want))
			}
			for i, it := range want {
				if got := *rs.item(r, uint32(i)); got != it {
					t.Fatalf("token %d item %d: %+v, want %+v", token, i, got, it)
				}
			}
		}
		if recs, _ := rs.inFlight(); recs < len(live) {
			t.Fatalf("%d records in flight, %d live", recs, len(live))
		}
	}
	send := func(frame uint32) {
		r, token, evicted := rs.open(frame, false)
		if evicted.seq != 0 {
			t.Fatalf("record %d evicted with %d in flight", evicted.seq, len(live))
		}
		var items []sentItem
		for k := range rng.IntN(40) {
			it := sentItem{slot: int32(k), id: ecs.NetID(token*64 + uint32(k)), send: uint8(k)}
			rs.add(r, it)
			items = append(items, it)
		}
		live[token] = items
		order = append(order, token)
	}
	// Busy: up to 2,000 messages in flight, resolved in a shuffled order.
	for frame := uint32(1); frame <= 6000; frame++ {
		send(frame)
		if len(live) > 2000 || rng.IntN(3) != 0 {
			i := rng.IntN(len(order))
			if _, ok := live[order[i]]; ok {
				resolve(order[i])
			}
			order[i] = order[len(order)-1]
			order = order[:len(order)-1]
		}
		if frame%500 == 0 {
			check()
		}
	}
	check()
	big, bigItems := len(rs.recs), len(rs.items)
	if big < 2048 {
		t.Fatalf("records ring %d for 2,000 in flight", big)
	}
	for _, token := range order {
		if _, ok := live[token]; ok {
			resolve(token)
		}
	}
	order = order[:0]
	// Quiet: one message in flight at a time, for a while.
	for frame := uint32(6001); frame <= 20000; frame++ {
		send(frame)
		resolve(order[len(order)-1])
		order = order[:0]
	}
	check()
	if len(rs.recs) >= big/4 || len(rs.items) >= bigItems/4 {
		t.Fatalf("rings %d records, %d items after a quiet spell; were %d, %d", len(rs.recs), len(rs.items), big, bigItems)
	}
	if recs, items := rs.inFlight(); recs != 0 || items != 0 {
		t.Fatalf("nothing in flight, but %d records and %d items counted", recs, items)
	}
}

// TestRecordsEvictPastTheirBound: past maxRecords unresolved messages the
// oldest is handed back as evicted (the caller takes it as lost), and the
// ring stops growing.
func TestRecordsEvictPastTheirBound(t *testing.T) {
	var rs records
	var evicted []uint32
	for frame := uint32(1); frame <= maxRecords+10; frame++ {
		r, _, ev := rs.open(frame, false)
		rs.add(r, sentItem{slot: int32(frame)})
		if ev.seq != 0 {
			evicted = append(evicted, ev.seq)
		}
	}
	if len(rs.recs) != maxRecords {
		t.Fatalf("ring of %d records, bound %d", len(rs.recs), maxRecords)
	}
	if len(evicted) != 10 || evicted[0] != 1 || evicted[9] != 10 {
		t.Fatalf("evicted %v, want tokens 1 to 10", evicted)
	}
	if rs.get(1) != nil || rs.get(11) == nil {
		t.Fatal("an evicted token still found, or a live one lost")
	}
}
