package command

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"slices"

	"github.com/tandem-go/tandem/net/wire"
)

// DefaultKeep is how many receipts a Book keeps by default.
const DefaultKeep = 64

// Sum is the digest of a command's content (kind and payload): a retry has
// the same, another command under the same operation id another.
type Sum [16]byte

// SumOf returns the digest of a command of kind with payload: the first 16
// bytes of the SHA-256 of the kind and the payload.
func SumOf(kind uint8, payload []byte) Sum {
	h := sha256.New()
	h.Write([]byte{kind})
	h.Write(payload)
	var full [sha256.Size]byte
	h.Sum(full[:0])
	return Sum(full[:16])
}

// Entry is one kept receipt: the operation, the digest of the command that
// ran under it, and the Receipt as sent, byte for byte.
type Entry struct {
	Op      uint64
	Sum     Sum
	Receipt []byte // an encoded wire.Receipt
}

// Verdict is what a Book says of a command.
type Verdict uint8

const (
	// Run: a new operation; run it and Add its receipt.
	Run Verdict = iota + 1
	// Again: the kept operation, same content: send its receipt again.
	Again
	// Conflict: the kept operation, other content: answer ReceiptConflict.
	Conflict
	// Expired: older than every kept receipt: answer ReceiptExpired.
	Expired
)

// String names the verdict.
func (v Verdict) String() string {
	switch v {
	case Run:
		return "run"
	case Again:
		return "again"
	case Conflict:
		return "conflict"
	case Expired:
		return "expired"
	}
	return "verdict(?)"
}

// Book is one player's receipts on the host: the newest Keep of them by
// operation id, and the highest id it has let go (its floor). An id not kept
// and above the floor has never run; one at or below it may have, and is
// expired. Memory: Keep entries of a receipt each (a few dozen bytes).
type Book struct {
	keep    int
	floor   uint64
	entries []Entry // by Op, ascending
}

// NewBook returns an empty book keeping keep receipts (DefaultKeep if keep
// < 1).
func NewBook(keep int) *Book {
	if keep < 1 {
		keep = DefaultKeep
	}
	return &Book{keep: keep}
}

// Check says what to do with a command of operation op and digest sum, and
// for Again and Conflict gives the kept entry.
func (b *Book) Check(op uint64, sum Sum) (Verdict, *Entry) {
	i, found := slices.BinarySearchFunc(b.entries, op, func(e Entry, op uint64) int { return cmpU64(e.Op, op) })
	switch {
	case found && b.entries[i].Sum == sum:
		return Again, &b.entries[i]
	case found:
		return Conflict, &b.entries[i]
	case op <= b.floor:
		return Expired, nil
	}
	return Run, nil
}

// Add keeps the receipt of an operation Check said to Run. Past Keep the
// oldest is let go: it is returned (ok) so its saved record can go too, and
// the floor rises to it. It panics if the operation is kept already.
func (b *Book) Add(e Entry) (gone Entry, ok bool) {
	i, found := slices.BinarySearchFunc(b.entries, e.Op, func(x Entry, op uint64) int { return cmpU64(x.Op, op) })
	if found {
		panic("command: Add of an operation kept already; Check first")
	}
	b.entries = slices.Insert(b.entries, i, e)
	if len(b.entries) <= b.keep {
		return Entry{}, false
	}
	gone = b.entries[0]
	b.entries = slices.Delete(b.entries, 0, 1)
	b.floor = max(b.floor, gone.Op)
	return gone, true
}

// Floor returns the highest operation id let go (0: none).
func (b *Book) Floor() uint64 { return b.floor }

// Len returns how many receipts are kept.
func (b *Book) Len() int { return len(b.entries) }

// Entries returns the kept receipts by operation id. The slice is the
// book's: do not keep or change it.
func (b *Book) Entries() []Entry { return b.entries }

// Restore puts back a book as it was saved: its floor and its entries, in
// any order. Entries past Keep (a book saved with a larger Keep) are let go
// as Add would, the oldest first, the floor rising to them; they are
// returned, so that their saved records can go too.
func (b *Book) Restore(floor uint64, entries []Entry) (gone []Entry) {
	b.floor = floor
	b.entries = b.entries[:0]
	for _, e := range entries {
		if _, found := slices.BinarySearchFunc(b.entries, e.Op, func(x Entry, op uint64) int { return cmpU64(x.Op, op) }); !found {
			if g, ok := b.Add(e); ok {
				gone = append(gone, g)
			}
		}
	}
	return gone
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// AppendEntry appends e's saved form to dst: the digest (16 bytes), then the
// receipt as bytes. The operation id is the record's key.
func AppendEntry(dst []byte, e *Entry) []byte {
	dst = append(dst, e.Sum[:]...)
	dst = wire.AppendUvarint(dst, uint64(len(e.Receipt)))
	return append(dst, e.Receipt...)
}

// ErrBadEntry: a saved receipt does not read.
var ErrBadEntry = errors.New("command: a saved receipt does not read")

// ReadEntry reads what AppendEntry wrote for operation op, copying what it
// keeps. The receipt must decode and name op.
func ReadEntry(op uint64, v []byte) (Entry, error) {
	r := wire.NewReader(v)
	var e Entry
	e.Op = op
	copy(e.Sum[:], r.Raw(len(e.Sum)))
	e.Receipt = append([]byte(nil), r.LenBytes(wire.MaxReasonLen+32)...)
	if err := r.Finish(); err != nil {
		return Entry{}, errors.Join(ErrBadEntry, err)
	}
	var rc wire.Receipt
	if err := rc.Decode(e.Receipt); err != nil || rc.Op != op {
		return Entry{}, errors.Join(ErrBadEntry, err)
	}
	return e, nil
}

// OpKey appends op as 8 big-endian bytes (so keys sort by operation) to dst.
func OpKey(dst []byte, op uint64) []byte { return binary.BigEndian.AppendUint64(dst, op) }
