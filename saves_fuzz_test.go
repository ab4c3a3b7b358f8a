package tandem

import (
	"errors"
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/command"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/save"
)

// FuzzRestoredPeople: the host's own records in a save (a player, a receipt)
// read from disk at a restore are taken or refused with a *save.MismatchError,
// never a panic; one record is one player or one receipt.
func FuzzRestoredPeople(f *testing.F) {
	w := wire.NewWriter(nil)
	w.Raw(make([]byte, 32))
	w.String("ann")
	w.Uvarint(3)
	f.Add(playerKey(2), w.Bytes())
	f.Add(playerKey(ecs.HostPeer), w.Bytes())
	rc, _ := wire.Receipt{Op: 5, Status: wire.ReceiptDone}.Encode(nil)
	f.Add(receiptKey(2, 5), command.AppendEntry(nil, &command.Entry{Op: 5, Receipt: rc}))
	f.Add(receiptKey(2, 6), command.AppendEntry(nil, &command.Entry{Op: 5, Receipt: rc}))
	f.Add([]byte{keyReceipt + 1}, []byte{})
	f.Fuzz(func(t *testing.T, key, value []byte) {
		if len(key) == 0 || key[0] < save.FirstUserPrefix {
			return // the save's own records: the loader reads them
		}
		rp := restoredPeople{players: map[ecs.PeerID]*player{}, floors: map[ecs.PeerID]uint64{}, receipts: map[ecs.PeerID][]command.Entry{}}
		if err := rp.record(key, value); err != nil {
			var me *save.MismatchError
			if !errors.As(err, &me) {
				t.Fatalf("record: %v, not a *save.MismatchError", err)
			}
			return
		}
		if len(rp.players)+len(rp.receipts) != 1 {
			t.Fatalf("one record taken as %d players and %d receipts", len(rp.players), len(rp.receipts))
		}
	})
}
