package conn

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/wire"
)

// fuzzSent is the number of numbered datagrams the fuzzed Conn has in flight
// when the fuzzed datagram arrives.
const fuzzSent = 20

// realDatagrams returns datagrams a peer really sends: data, acks of some of
// a's packets, probes.
func realDatagrams(t testing.TB) [][]byte {
	a, b, _, _, la, lb, clk := fakePair(t, Config{})
	la.hold, lb.hold = true, true
	for i := range fuzzSent {
		must(t, a.Queue(wire.KindState, []byte{byte(i), 1, 2, 3}, Token(i+1)))
		must(t, a.Flush())
		if i%3 != 1 {
			la.deliver(i)
		}
		clk.Advance(10 * time.Millisecond)
		must(t, b.Poll())
		if i%2 == 0 {
			must(t, b.Queue(wire.KindInput, []byte("input"), 0))
		}
		must(t, b.Flush())
	}
	return append(la.held, lb.held...)
}

// FuzzDatagram hands any datagram to a Conn with packets in flight: no panic,
// every packet reported at most once (even when the datagram comes twice),
// notices and packets in flight add up, and a datagram is either accepted,
// discarded or counted malformed.
func FuzzDatagram(f *testing.F) {
	for _, d := range realDatagrams(f) {
		f.Add(d)
	}
	f.Add([]byte{0x07, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		a, _, ra, _, la, _, clk := fakePair(t, Config{MaxMalformed: 100})
		la.hold = true
		for i := range fuzzSent {
			must(t, a.Queue(wire.KindState, []byte{byte(i)}, Token(i+1)))
			must(t, a.Flush())
			clk.Advance(10 * time.Millisecond)
		}
		for range 2 {
			la.inbox = append(la.inbox, data)
			_ = a.Poll()
		}
		seen := map[uint32]bool{}
		for _, n := range ra.notices {
			if seen[n.Packet] || n.Packet >= fuzzSent {
				t.Fatalf("packet %d reported twice or never sent", n.Packet)
			}
			seen[n.Packet] = true
			if len(n.Tokens) != 1 || n.Tokens[0] != Token(n.Packet+1) {
				t.Fatalf("notice %+v carries the wrong tokens", n)
			}
		}
		s := a.Stats()
		if len(ra.notices)+s.InFlight != fuzzSent && !a.Closed() {
			t.Fatalf("%d notices + %d in flight != %d sent", len(ra.notices), s.InFlight, fuzzSent)
		}
		if s.DatagramsReceived != 2 {
			t.Fatalf("DatagramsReceived = %d", s.DatagramsReceived)
		}
		if s.PacketsAccepted+s.Duplicates+s.Late+s.Stale+s.Malformed > 2 {
			t.Fatalf("a datagram was counted twice: %+v", s)
		}
		_ = a.Flush()
	})
}
