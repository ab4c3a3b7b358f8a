package conn

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// TestAckFrameDescribesAcceptedPackets accepts random packets and checks the
// frame: it starts at the floor, says accepted exactly for the accepted
// packets, ends on an accepted one, and is cut only when it runs out of runs.
func TestAckFrameDescribesAcceptedPackets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		var w recvWindow
		floor := uint32(rng.IntN(3000))
		w.raiseFloor(floor)
		span := 1 + rng.IntN(wire.AckWindow)
		density := rng.Float64()
		accepted := map[uint32]bool{}
		var top uint32
		for pn := floor; pn < floor+uint32(span); pn++ {
			if rng.Float64() < density {
				h := wire.Header{Numbered: true, Packet: pn, Floor: floor, ReorderFloor: pn}
				h.ReorderFloor = floor // keep everything acceptable
				if w.accept(&h, 0) != acceptOK {
					t.Fatalf("trial %d: packet %d refused", trial, pn)
				}
				accepted[pn] = true
				top = pn
			}
		}
		var a wire.AckFrame
		ok := w.frame(&a, time.Millisecond)
		if ok != (len(accepted) > 0) {
			t.Fatalf("trial %d: frame = %v with %d accepted", trial, ok, len(accepted))
		}
		if !ok {
			continue
		}
		h := wire.Header{HasAck: true, Ack: a}
		if _, err := h.Append(nil); err != nil {
			t.Fatalf("trial %d: frame does not encode: %v (%+v)", trial, err, a)
		}
		if a.First != floor {
			t.Fatalf("trial %d: frame starts at %d, floor %d", trial, a.First, floor)
		}
		pn := a.First
		for i := 0; i < a.NumRuns; i++ {
			for k := uint16(0); k < a.Runs[i]; k++ {
				if accepted[pn] != (i%2 == 0) {
					t.Fatalf("trial %d: packet %d described as accepted=%v", trial, pn, i%2 == 0)
				}
				pn++
			}
		}
		last := a.Last()
		if !accepted[last] {
			t.Fatalf("trial %d: frame ends on %d, not accepted", trial, last)
		}
		if last != top && a.NumRuns < wire.MaxAckRuns-1 {
			t.Fatalf("trial %d: frame cut at %d with %d runs, top %d", trial, last, a.NumRuns, top)
		}
		if a.HasDelay != (last == top) || (a.HasDelay && a.Delay != 10) {
			t.Fatalf("trial %d: HasDelay %v Delay %d, last %d top %d", trial, a.HasDelay, a.Delay, last, top)
		}
	}
}

// TestManyGapsSettleOldestFirst loses every other datagram, so an ack frame
// cannot describe them all, and checks every packet still settles.
func TestManyGapsSettleOldestFirst(t *testing.T) {
	a, b, ra, _, la, _, clk := fakePair(t, Config{})
	la.hold = true
	const n = 200
	for i := range n {
		must(t, a.Queue(wire.KindState, []byte("x"), Token(i+1)))
		must(t, a.Flush())
		if i%2 == 1 {
			la.deliver(i)
		}
	}
	la.hold = false
	for range 300 {
		clk.Advance(20 * time.Millisecond)
		must(t, b.Poll())
		must(t, b.Flush())
		must(t, a.Poll())
		must(t, a.Flush())
	}
	if a.InFlight() != 0 {
		t.Fatalf("%d packets never settled", a.InFlight())
	}
	delivered := 0
	for _, nt := range ra.notices {
		if nt.Packet < n && nt.Delivered != (nt.Packet%2 == 1) {
			t.Fatalf("packet %d reported delivered=%v", nt.Packet, nt.Delivered)
		}
		if nt.Delivered && nt.Packet < n {
			delivered++
		}
	}
	if delivered != n/2 {
		t.Fatalf("%d delivered, want %d", delivered, n/2)
	}
}

// TestSteadyTickAllocatesNothing runs full ticks both ways over the in-memory
// transport (queue with Begin/Commit, flush, poll, acks, notices) and
// checks a warmed-up tick allocates nothing in the Conns.
func TestSteadyTickAllocatesNothing(t *testing.T) {
	clk := clock.NewFake(epoch)
	nw, err := mem.NewNetwork(clk, mem.Config{})
	must(t, err)
	l, _ := nw.Listen("h")
	ct, _ := nw.Dial(context.Background(), "h")
	ht, _ := l.Accept(context.Background())
	var tokens int
	hh := HandlerFuncs{OnNotice: func(n Notice) { tokens += len(n.Tokens) }}
	host, err := New(ht, clk, hh, Config{})
	must(t, err)
	client, err := New(ct, clk, nil, Config{})
	must(t, err)
	tick := func() {
		clk.Advance(16 * time.Millisecond)
		_ = host.Poll()
		_ = client.Poll()
		for i := range 20 {
			w, _ := host.Begin(wire.KindState, Token(i+1))
			w.U32(uint32(i))
			w.Uvarint(1 << 20)
			_ = host.Commit()
		}
		_ = client.Queue(wire.KindInput, []byte("input"), 0)
		_ = host.Flush()
		_ = client.Flush()
	}
	for range 100 {
		tick()
	}
	if allocs := testing.AllocsPerRun(200, tick); allocs != 0 {
		t.Fatalf("a steady tick allocated %v times", allocs)
	}
	if tokens == 0 || host.Closed() || client.Closed() {
		t.Fatal("no notices: the test did not exercise acknowledgements")
	}
}
