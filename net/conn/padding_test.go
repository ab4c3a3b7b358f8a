package conn

import (
	"errors"
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// While the peer answers, small datagrams go as they are; once it has been
// silent for longer than an answer takes, each numbered datagram is padded
// to silentPad bytes (so that a host restarted on the same address answers
// with a stateless reset), the peer reads the messages before the padding,
// and padding stops once the peer is heard again.
func TestASilentPeerGetsPaddedDatagrams(t *testing.T) {
	a, b, _, rb, la, _, clk := fakePair(t, Config{})
	tick := func() {
		must(t, a.Queue(wire.KindInput, []byte{1, 2}, 0))
		must(t, a.Flush())
	}
	for range 20 {
		tick()
		clk.Advance(16 * time.Millisecond)
		must(t, b.Poll())
		must(t, b.Flush())
		must(t, a.Poll())
	}
	if st := a.Stats(); st.PaddedSent != 0 {
		t.Fatalf("%d datagrams padded while the peer answered", st.PaddedSent)
	}
	la.hold = true
	for range 30 { // about half a second of silence
		tick()
		clk.Advance(16 * time.Millisecond)
		must(t, a.Poll())
	}
	padded := a.Stats().PaddedSent
	if padded == 0 {
		t.Fatal("no datagram was padded while the peer was silent for half a second")
	}
	last := la.held[len(la.held)-1]
	if len(last) != silentPad {
		t.Fatalf("the last datagram to a silent peer is %d bytes, want %d", len(last), silentPad)
	}
	if first := la.held[0]; len(first) >= silentPad {
		t.Fatalf("the first datagram after the peer went silent is %d bytes: padded before an answer was due", len(first))
	}
	before := len(rb.msgs)
	la.deliver(len(la.held) - 1)
	must(t, b.Poll())
	if got := len(rb.msgs) - before; got != 1 || rb.msgs[len(rb.msgs)-1] != (recMsg{wire.KindInput, "\x01\x02"}) || b.Stats().Malformed != 0 {
		t.Fatalf("the padded datagram gave %d messages (%v), %d malformed", got, rb.msgs[before:], b.Stats().Malformed)
	}
	must(t, b.Flush()) // heard again
	clk.Advance(16 * time.Millisecond)
	must(t, a.Poll())
	tick()
	if a.Stats().PaddedSent != padded {
		t.Fatal("a datagram was padded after the peer was heard again")
	}
}

// Padding is zeros to the datagram's end: a byte after it that is not zero
// makes the datagram malformed.
func TestPaddingMustBeZeros(t *testing.T) {
	for _, tc := range []struct {
		body []byte
		msgs int
		err  bool
	}{
		{[]byte{byte(wire.KindInput), 1, 7, 0, 0, 0}, 1, false},
		{[]byte{0, 0}, 0, false},
		{[]byte{byte(wire.KindInput), 1, 7, 0, 0, 5}, 0, true},
		{[]byte{0, byte(wire.KindInput), 1, 7}, 0, true},
	} {
		n, err := countMessages(tc.body)
		if (err != nil) != tc.err || !tc.err && n != tc.msgs {
			t.Errorf("% x: %d messages, %v; want %d, error %v", tc.body, n, err, tc.msgs, tc.err)
		}
		if err != nil && !errors.Is(err, wire.ErrInvalid) {
			t.Errorf("% x: %v, want ErrInvalid", tc.body, err)
		}
	}
}

// LaneUnsettled counts what waits in the transport and what it passed on
// without word of its arrival (transport.InFlighter), and nothing once the
// connection closed, from either end, pumped since or not (a close that
// waited for a departed peer's bytes waited its whole bound).
func TestLaneUnsettled(t *testing.T) {
	a, _, _, _, la, lb, _ := fakePair(t, Config{})
	la.buffered, la.inFlight = 3, 4
	if n := a.LaneUnsettled(transport.LaneCommands); n != 7 {
		t.Fatalf("LaneUnsettled = %d, want 3 buffered and 4 in flight", n)
	}
	if n := a.LaneBuffered(transport.LaneCommands); n != 3 {
		t.Fatalf("LaneBuffered = %d, want 3", n)
	}
	must(t, lb.Close(transport.CloseNormal, "gone")) // the peer's end; a has not polled since
	if n := a.LaneUnsettled(transport.LaneCommands); n != 0 {
		t.Fatalf("LaneUnsettled = %d after the peer closed, want 0", n)
	}
}
