package predict

import (
	"errors"
	"testing"

	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/wire"
)

// ownedJoinPage returns a join page (PROTOCOL.md §9.5) of n entities, ids
// 1…n, every registered component present and zero, all owned by owner.
func ownedJoinPage(reg *replicate.Registry, n int, owner uint64) []byte {
	fields := 0
	for c := range replicate.Component(reg.Len()) {
		fields += reg.Fields(c)
	}
	all := uint64(1)<<uint(reg.Len()) - 1
	page := []byte{byte(wire.KindJoinPage)}
	page = wire.AppendUvarint(page, 1)         // frame
	page = wire.AppendUvarint(page, uint64(n)) // total
	page = wire.AppendUvarint(page, 0)         // no removals
	for id := 1; id <= n; id++ {
		page = wire.AppendUvarint(page, uint64(id))
		page = wire.AppendUvarint(page, 1|all<<2) // a spawn of every component
		page = wire.AppendUvarint(page, owner)
		for range fields {
			page = append(page, 0)
		}
	}
	return page
}

// A host that says this client owns 8,192 entities (a join page of under
// 100 KB) makes it predict DefaultMaxOwned of them, its history grown for
// that many (about 10 KB each) and no more, and Err says ErrTooManyOwned,
// where the history grew for every one: 76 MB, and 10 GB at MaxEntities.
func TestOwnedEntitiesPastMaxOwnedAreRefused(t *testing.T) {
	const n = 8192
	r := newRig(t, 0, ClientConfig[pad]{})
	repl := replicate.NewClient(r.reg, replicate.ClientConfig{Local: localPeer, Auth: r.pred})
	final := []byte{byte(wire.KindJoinFinal), 1, 1}
	final = wire.AppendUvarint(final, n)
	final = wire.AppendUvarint(final, n)
	for _, m := range [][]byte{ownedJoinPage(r.reg, n, uint64(localPeer)), final} {
		if _, err := repl.HandleLane(m); err != nil {
			t.Fatal(err)
		}
	}
	for repl.Waiting() > 0 {
		if err := repl.Pump(); err != nil {
			t.Fatal(err)
		}
	}
	if !repl.Joined() {
		t.Fatal("the join did not finish")
	}
	if err := r.pred.Err(); err != nil {
		t.Fatalf("before a frame was predicted: %v", err)
	}
	r.steps(1)
	if r.pred.hist.stride > DefaultMaxOwned || !errors.Is(r.pred.Err(), ErrTooManyOwned) {
		t.Fatalf("%d owned entities: the history holds %d a frame (want at most %d), err %v", n, r.pred.hist.stride, DefaultMaxOwned, r.pred.Err())
	}
}
