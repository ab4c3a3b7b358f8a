package tandem

import (
	"context"
	"encoding/binary"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/tandem-go/tandem/net/command"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/store"
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

// Answers from the book (a copy of a command that ran, an id too old) take
// no turn of the rate, but count against MaxWithheld as new commands do: a
// flood of old ids, sent while the store is slow, does not hold more
// receipts for the save than that.
func TestBookAnswersKeepToMaxWithheld(t *testing.T) {
	db, err := store.Open(context.Background(), savePath(t), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sw, err := db.OpenWorld(context.Background(), "world")
	if err != nil {
		t.Fatal(err)
	}
	slow := &slowWorld{World: sw}
	r := newRig(t, HostConfig{Store: slow, MaxWithheld: 8, CommandRate: 1000})
	p := r.dialRaw("bob")
	const ran = 100
	for op := uint64(1); op <= ran; op++ {
		p.send(t, op, 0, u32(uint32(op)))
	}
	for i := 0; len(p.receipts(t)) < ran; i++ {
		if i > 600 {
			t.Fatalf("%d receipts of %d after 10 s", len(p.receipts(t)), ran)
		}
		r.step(1)
	}
	slow.hold.Store(true)                 // the disk stalls: receipts wait for it
	for op := uint64(1); op <= 30; op++ { // below the book's floor: expired
		p.send(t, op, 0, u32(uint32(op)))
	}
	most := 0
	for range 30 {
		r.step(1)
		most = max(most, r.host.Withheld())
	}
	if most > 8 {
		t.Fatalf("30 expired ids at once held %d receipts for the save, more than MaxWithheld 8", most)
	}
	slow.hold.Store(false)
	for i := 0; len(p.receipts(t)) < ran+30; i++ {
		if i > 600 {
			t.Fatalf("%d receipts, want %d: every old id answered", len(p.receipts(t)), ran+30)
		}
		r.step(1)
	}
}

// slowWorld is a store.World whose commits fail while hold is set, as a
// disk that stalls: the host keeps the receipts they would free.
type slowWorld struct {
	store.World
	hold atomic.Bool
}

func (s *slowWorld) Commit(ctx context.Context, b *store.Batch) (uint64, error) {
	if s.hold.Load() {
		return 0, errors.New("the disk stalls")
	}
	return s.World.Commit(ctx, b)
}

// BenchmarkCommandCopies measures a host step while one player keeps its
// waiting room full of 1 KiB commands of one operation (past its rate they
// wait; once the operation ran, the rest are answered Conflict) and sends
// 14 small commands of that operation a frame: each is looked for among the
// waiting ones by the digest each took as it came, not hashed again.
func BenchmarkCommandCopies(b *testing.B) {
	r := newRig(b, HostConfig{})
	p := r.dialRaw("mallory")
	pl := r.host.people.players[1]
	big := make([]byte, 1024)
	n := uint32(0)
	for op := uint64(1); op <= 31; op++ { // the rate's burst, spent: the rest waits
		p.send(b, op, 0, u32(1))
	}
	cur := uint64(100)
	p.send(b, cur, 0, u32(1))
	// refill keeps the waiting room full of 1 KiB commands of an operation
	// that has not run yet.
	refill := func(k int) {
		for range k {
			if v, _ := pl.book.Check(cur, command.Sum{}); v != command.Run {
				cur++
				p.send(b, cur, 0, u32(1))
			}
			n++
			binary.LittleEndian.PutUint32(big, n)
			p.send(b, cur, 0, big)
		}
	}
	for range 60 {
		refill(2)
		r.step(1)
	}
	refill(64)
	r.step(1)
	b.ReportAllocs()
	for b.Loop() {
		refill(1)
		for range 14 { // 16 lane messages a frame in all: under 1,000 a second
			n++
			p.send(b, cur, 0, u32(n))
		}
		r.step(1)
	}
	if st := r.host.Stats(); st.Conflicts == 0 {
		b.Fatalf("no command was answered Conflict: the waiting room did not hold one operation's copies (%+v)", st)
	}
}
