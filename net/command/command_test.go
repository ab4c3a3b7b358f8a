package command

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/wire"
)

func receipt(t *testing.T, op uint64) []byte {
	t.Helper()
	b, err := wire.Receipt{Op: op, Status: wire.ReceiptDone, Frame: uint32(op)}.Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBook: a retry gets the kept receipt, other content under a kept id is
// a conflict, 65 distinct commands keep the newest 64 and the oldest is
// expired, and an id above the floor that never ran runs.
func TestBook(t *testing.T) {
	b := NewBook(0)
	for op := uint64(1); op <= 65; op++ {
		sum := SumOf(1, []byte{byte(op)})
		if v, _ := b.Check(op, sum); v != Run {
			t.Fatalf("op %d: %v, want run", op, v)
		}
		gone, ok := b.Add(Entry{Op: op, Sum: sum, Receipt: receipt(t, op)})
		if ok != (op == 65) || (ok && gone.Op != 1) {
			t.Fatalf("op %d let go %+v (%v)", op, gone, ok)
		}
	}
	if b.Len() != 64 || b.Floor() != 1 {
		t.Fatalf("kept %d, floor %d; want 64 and 1", b.Len(), b.Floor())
	}
	if v, _ := b.Check(1, SumOf(1, []byte{1})); v != Expired {
		t.Errorf("the oldest id, let go: %v, want expired", v)
	}
	v, e := b.Check(2, SumOf(1, []byte{2}))
	if v != Again || !bytes.Equal(e.Receipt, receipt(t, 2)) {
		t.Errorf("a retry of op 2: %v %+v", v, e)
	}
	if v, e := b.Check(2, SumOf(1, []byte{99})); v != Conflict || e.Op != 2 {
		t.Errorf("op 2 with other content: %v", v)
	}
	if v, _ := b.Check(2, SumOf(2, []byte{2})); v != Conflict {
		t.Errorf("op 2 as another kind: %v", v)
	}
	if v, _ := b.Check(1000, SumOf(1, nil)); v != Run {
		t.Errorf("a new id: %v", v)
	}
	// Restored from its entries, the book answers the same.
	r := NewBook(64)
	r.Restore(b.Floor(), append([]Entry(nil), b.Entries()...))
	if v, _ := r.Check(1, SumOf(1, []byte{1})); v != Expired || r.Len() != 64 {
		t.Errorf("restored: op 1 %v, %d kept", v, r.Len())
	}
}

// TestEntryRecord: a kept receipt saves and reads back byte for byte.
func TestEntryRecord(t *testing.T) {
	e := Entry{Op: 7, Sum: SumOf(3, []byte("x")), Receipt: receipt(t, 7)}
	got, err := ReadEntry(7, AppendEntry(nil, &e))
	if err != nil || got.Sum != e.Sum || !bytes.Equal(got.Receipt, e.Receipt) {
		t.Fatalf("read back %+v, %v", got, err)
	}
	if _, err := ReadEntry(8, AppendEntry(nil, &e)); !errors.Is(err, ErrBadEntry) {
		t.Errorf("a receipt under another op's key: %v", err)
	}
	if _, err := ReadEntry(7, AppendEntry(nil, &e)[:20]); !errors.Is(err, ErrBadEntry) {
		t.Errorf("truncated: %v", err)
	}
}

// TestOutbox: ids increase, receipts let commands go, the rest come back in
// order, and the limit holds.
func TestOutbox(t *testing.T) {
	o := NewOutbox(100, 3)
	var ops []uint64
	for i := range 3 {
		s, err := o.Add(uint8(i), []byte{byte(i)}, uint32(500+i))
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops, s.Op)
	}
	if ops[0] != 100 || ops[2] != 102 {
		t.Fatalf("ids %v", ops)
	}
	if _, err := o.Add(0, nil, 0); !errors.Is(err, ErrTooMany) {
		t.Fatalf("past the limit: %v", err)
	}
	if _, ok := o.Receipt(101); !ok {
		t.Fatal("the receipt of 101 found nothing")
	}
	if _, ok := o.Receipt(101); ok {
		t.Fatal("a second receipt of 101 let something go")
	}
	p := o.Pending()
	if len(p) != 2 || p[0].Op != 100 || p[1].Op != 102 {
		t.Fatalf("pending %+v", p)
	}
	var c wire.Command
	if err := c.Decode(p[1].Msg); err != nil || c.Op != 102 || c.Frame != 502 || c.Kind != 2 || !bytes.Equal(c.Payload, []byte{2}) {
		t.Fatalf("the held message: %+v, %v", c, err)
	}
	o.Unstamp() // a new connection: sent again, they run as they come
	if err := c.Decode(o.Pending()[1].Msg); err != nil || c.Op != 102 || c.Frame != 0 || c.Kind != 2 || !bytes.Equal(c.Payload, []byte{2}) {
		t.Fatalf("the held message unstamped: %+v, %v", c, err)
	}
	// Two held, but 100 is three ids behind the next: a book of three would
	// let 100 go when 103 ran, and answer it expired if its receipt were
	// lost and it came again.
	if _, err := o.Add(0, nil, 0); !errors.Is(err, ErrTooMany) {
		t.Fatalf("with the oldest held a limit behind: %v", err)
	}
	if _, ok := o.Receipt(100); !ok {
		t.Fatal("the receipt of 100 found nothing")
	}
	if _, err := o.Add(0, make([]byte, wire.MaxCommandSize+1), 0); !errors.Is(err, ErrTooLarge) || errors.Is(err, ErrTooMany) || strings.Contains(err.Error(), "raise") {
		t.Fatalf("an oversized payload: %v", err)
	}
	if s, err := o.Add(3, nil, 0); err != nil || s.Op != 103 {
		t.Fatalf("after the oldest's receipt: %+v, %v", s, err)
	}
	if o.Next() != 104 {
		t.Fatalf("next %d", o.Next())
	}
}

// A book of an outbox's limit answers each command the outbox holds, in
// whatever order they ran, as their first answer: the ids held span fewer
// than the limit, and the book keeps the highest that ran.
func TestBookAnswersWhatAnOutboxHolds(t *testing.T) {
	const limit = 8
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		o := NewOutbox(1, limit)
		b := NewBook(limit)
		ran := map[uint64]bool{}
		for range 300 {
			switch rng.IntN(3) {
			case 0: // the game sends a command, when the outbox takes one
				o.Add(0, nil, 0)
			case 1: // the host runs one held (a resend, in any order)
				if p := o.Pending(); len(p) > 0 {
					s := p[rng.IntN(len(p))]
					if v, _ := b.Check(s.Op, Sum{}); v == Run {
						b.Add(Entry{Op: s.Op})
						ran[s.Op] = true
					}
				}
			case 2: // a receipt of one that ran comes back, or is lost
				if p := o.Pending(); len(p) > 0 {
					if s := p[rng.IntN(len(p))]; ran[s.Op] && rng.IntN(2) == 0 {
						o.Receipt(s.Op)
					}
				}
			}
			for _, s := range o.Pending() {
				v, _ := b.Check(s.Op, Sum{})
				if ran[s.Op] && v != Again || !ran[s.Op] && v != Run {
					t.Fatalf("round %d: held op %d (ran %v) is answered %v; held %d, floor %d", round, s.Op, ran[s.Op], v, len(o.Pending()), b.Floor())
				}
			}
		}
	}
}

// TestWithheld: answers go in order once their save is durable.
func TestWithheld(t *testing.T) {
	var w Withheld
	w.Add(1, []byte("a"))
	w.Add(2, []byte("b"))
	w.Add(1, []byte("c")) // an older generation behind a newer one waits too
	var out []string
	send := func(m []byte) { out = append(out, string(m)) }
	if n := w.Release(0, send); n != 0 {
		t.Fatalf("released %d before any save", n)
	}
	w.Release(1, send)
	if len(out) != 1 || out[0] != "a" {
		t.Fatalf("after save 1: %v", out)
	}
	w.Release(2, send)
	if len(out) != 3 || out[1] != "b" || out[2] != "c" || w.Len() != 0 {
		t.Fatalf("after save 2: %v", out)
	}
}

// TestLimiter: a burst, then the rate.
func TestLimiter(t *testing.T) {
	l := Limiter{Rate: 10, Burst: 3}
	now := time.Unix(100, 0)
	n := 0
	for range 10 {
		if l.Allow(now) {
			n++
		}
	}
	if n != 3 {
		t.Fatalf("a burst took %d, want 3", n)
	}
	now = now.Add(250 * time.Millisecond)
	n = 0
	for range 10 {
		if l.Allow(now) {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("a quarter second later %d, want 2", n)
	}
}

// TestRestorePastKeep: a book restored from more entries than it keeps
// keeps the newest, returns the others (their saved records are to go) and
// raises its floor past them.
func TestRestorePastKeep(t *testing.T) {
	var entries []Entry
	for _, op := range []uint64{5, 1, 4, 2, 3} {
		entries = append(entries, Entry{Op: op, Sum: SumOf(0, []byte{byte(op)}), Receipt: receipt(t, op)})
	}
	b := NewBook(3)
	gone := b.Restore(0, entries)
	if len(gone) != 2 || b.Len() != 3 || b.Floor() != 2 {
		t.Fatalf("restored 5 into a book of 3: %d returned, %d kept, floor %d; want 2, 3, 2", len(gone), b.Len(), b.Floor())
	}
	ops := map[uint64]bool{gone[0].Op: true, gone[1].Op: true}
	if !ops[1] || !ops[2] {
		t.Fatalf("returned ops %d and %d, want the oldest, 1 and 2", gone[0].Op, gone[1].Op)
	}
	if v, _ := b.Check(1, entries[1].Sum); v != Expired {
		t.Fatalf("op 1 after the restore: %v, want expired", v)
	}
	if got := NewBook(5).Restore(0, entries); len(got) != 0 {
		t.Fatalf("a book that keeps them all returned %d", len(got))
	}
}
