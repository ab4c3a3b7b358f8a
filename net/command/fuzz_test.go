package command

import (
	"bytes"
	"errors"
	"testing"

	"github.com/tandem-go/tandem/net/wire"
)

// FuzzReadEntry: a saved receipt record (read from disk at a restore) reads
// into an entry or fails with ErrBadEntry, never panics, and an entry that
// reads is written back as it was read.
func FuzzReadEntry(f *testing.F) {
	done, _ := wire.Receipt{Op: 7, Status: wire.ReceiptDone, Frame: 99}.Encode(nil)
	refused, _ := wire.Receipt{Op: 7, Status: wire.ReceiptRefused, Reason: "the other team is full"}.Encode(nil)
	for _, rc := range [][]byte{done, refused} {
		e := Entry{Op: 7, Sum: SumOf(1, []byte("payload")), Receipt: rc}
		good := AppendEntry(nil, &e)
		f.Add(uint64(7), good)
		f.Add(uint64(8), good) // a receipt of another operation
		f.Add(uint64(7), good[:len(good)-1])
		f.Add(uint64(7), append(bytes.Clone(good), 0))
	}
	f.Add(uint64(0), []byte{})
	f.Fuzz(func(t *testing.T, op uint64, v []byte) {
		e, err := ReadEntry(op, v)
		if err != nil {
			if !errors.Is(err, ErrBadEntry) {
				t.Fatalf("ReadEntry: %v, not ErrBadEntry", err)
			}
			return
		}
		if e.Op != op {
			t.Fatalf("read op %d, want %d", e.Op, op)
		}
		again, err := ReadEntry(op, AppendEntry(nil, &e))
		if err != nil || again.Sum != e.Sum || !bytes.Equal(again.Receipt, e.Receipt) {
			t.Fatalf("an entry read does not read again as itself: %+v, %v (was %+v)", again, err, e)
		}
	})
}
