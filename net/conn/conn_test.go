package conn

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

func TestMessagesArriveAndAreAcknowledged(t *testing.T) {
	a, b, ra, rb, la, _, clk := fakePair(t, Config{})
	must(t, a.Queue(wire.KindState, []byte("one"), 7))
	must(t, a.Queue(wire.KindInput, []byte("two"), 0))
	must(t, a.Queue(wire.KindState, []byte("three"), 9))
	must(t, a.Flush())
	if la.sent != 1 {
		t.Fatalf("three small messages went in %d datagrams, want 1", la.sent)
	}
	clk.Advance(10 * time.Millisecond)
	must(t, b.Poll())
	want := []recMsg{{wire.KindState, "one"}, {wire.KindInput, "two"}, {wire.KindState, "three"}}
	if len(rb.msgs) != 3 || rb.msgs[0] != want[0] || rb.msgs[1] != want[1] || rb.msgs[2] != want[2] {
		t.Fatalf("received %v, want %v", rb.msgs, want)
	}
	must(t, b.Flush()) // nothing queued: an ack-only datagram
	if b.Stats().AckOnlySent != 1 {
		t.Fatalf("AckOnlySent = %d, want 1", b.Stats().AckOnlySent)
	}
	clk.Advance(10 * time.Millisecond)
	must(t, a.Poll())
	if len(ra.notices) != 1 {
		t.Fatalf("got %d notices, want 1", len(ra.notices))
	}
	n := ra.notices[0]
	if !n.Delivered || n.Packet != 0 || len(n.Tokens) != 2 || n.Tokens[0] != 7 || n.Tokens[1] != 9 || !n.Sent.Equal(epoch) {
		t.Fatalf("notice = %+v, want packet 0 delivered with tokens [7 9] sent at the epoch", n)
	}
	if s := a.Stats(); s.RTTSamples != 1 || s.LatestRTT != 20*time.Millisecond || s.InFlight != 0 {
		t.Fatalf("after one round trip: %+v", s)
	}
}

func TestIdleConnectionSendsNothing(t *testing.T) {
	a, b, _, _, la, lb, clk := fakePair(t, Config{})
	must(t, a.Queue(wire.KindState, []byte("x"), 1))
	for range 10 {
		must(t, a.Flush())
		must(t, b.Flush())
		clk.Advance(16 * time.Millisecond)
		must(t, a.Poll())
		must(t, b.Poll())
	}
	sa, sb := la.sent, lb.sent
	for range 100 {
		clk.Advance(16 * time.Millisecond)
		must(t, a.Poll())
		must(t, b.Poll())
		must(t, a.Flush())
		must(t, b.Flush())
	}
	if la.sent != sa || lb.sent != sb {
		t.Fatalf("idle connection sent %d and %d datagrams in 100 ticks, want none", la.sent-sa, lb.sent-sb)
	}
	if a.InFlight() != 0 {
		t.Fatalf("InFlight = %d after the exchange", a.InFlight())
	}
}

// A side that has nothing to send, its keep-alive set, probes once a
// KeepAlive and so measures its round trip; the other side, off, sends
// only the acknowledgements the probes ask for.
func TestKeepAliveMeasuresAnIdleSide(t *testing.T) {
	a, b, _, _, la, lb, clk := fakePair(t, Config{})
	a.SetKeepAlive(time.Second)
	idleTicks(t, a, b, clk, 250) // 4 s
	if st := a.Stats(); st.ProbesSent < 3 || st.ProbesSent > 5 || st.RTTSamples < 3 {
		t.Fatalf("in 4 s with a keep-alive of 1 s: %d probes sent, %d round trips measured; want about 4 of each", st.ProbesSent, st.RTTSamples)
	}
	if b.Stats().PacketsSent != 0 || lb.sent == 0 || la.sent == 0 {
		t.Fatalf("the other side sent %d numbered datagrams (%d in all); want acknowledgements only", b.Stats().PacketsSent, lb.sent)
	}
	a.SetKeepAlive(0)
	sa := la.sent
	idleTicks(t, a, b, clk, 250)
	if la.sent != sa {
		t.Fatalf("the keep-alive off, the idle side sent %d datagrams", la.sent-sa)
	}
}

func TestBeginCommit(t *testing.T) {
	a, b, _, rb, _, _, clk := fakePair(t, Config{})
	w, err := a.Begin(wire.KindState, 1)
	must(t, err)
	w.U32(0xdeadbeef)
	w.String("hi")
	must(t, a.Commit())
	long := bytes.Repeat([]byte{0xab}, 300)
	w, err = a.Begin(wire.KindState, 2)
	must(t, err)
	w.Raw(long)
	must(t, a.Commit())
	w, err = a.Begin(wire.KindInput, 3)
	must(t, err)
	w.Raw([]byte("dropped"))
	must(t, a.Abort())
	if _, err := a.Begin(wire.KindHello, 0); !errors.Is(err, ErrBadKind) {
		t.Fatalf("Begin with a lane kind: %v, want ErrBadKind", err)
	}
	if err := a.Commit(); !errors.Is(err, ErrNoMessage) {
		t.Fatalf("Commit without Begin: %v", err)
	}
	_, _ = a.Begin(wire.KindState, 0)
	if _, err := a.Begin(wire.KindState, 0); !errors.Is(err, ErrMessageOpen) {
		t.Fatalf("second Begin: %v, want ErrMessageOpen", err)
	}
	if err := a.Flush(); !errors.Is(err, ErrMessageOpen) {
		t.Fatalf("Flush with a message open: %v, want ErrMessageOpen", err)
	}
	w, _ = a.Begin(wire.KindState, 0) // still open: the same message
	_ = w
	must(t, a.Abort())
	w, _ = a.Begin(wire.KindState, 0)
	w.Raw(make([]byte, MaxMessageSize+1))
	if err := a.Commit(); !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("Commit of %d bytes: %v, want ErrMessageTooLarge", MaxMessageSize+1, err)
	}
	must(t, a.Flush())
	clk.Advance(time.Millisecond)
	must(t, b.Poll())
	if len(rb.msgs) != 2 {
		t.Fatalf("received %d messages, want 2", len(rb.msgs))
	}
	r := wire.NewReader([]byte(rb.msgs[0].payload))
	if r.U32() != 0xdeadbeef || r.String(10) != "hi" || r.Finish() != nil {
		t.Fatalf("first payload %x", rb.msgs[0].payload)
	}
	if rb.msgs[1].payload != string(long) {
		t.Fatal("300-byte payload differs")
	}
}

func TestQueueLimits(t *testing.T) {
	a, _, _, _, _, _, _ := fakePair(t, Config{MaxQueuedBytes: 1000})
	if err := a.Queue(wire.KindHello, nil, 0); !errors.Is(err, ErrBadKind) {
		t.Fatalf("lane kind in a datagram: %v", err)
	}
	if err := a.Queue(wire.KindState, make([]byte, MaxMessageSize+1), 0); !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("oversized: %v", err)
	}
	must(t, a.Queue(wire.KindState, make([]byte, 900), 0))
	if err := a.Queue(wire.KindState, make([]byte, 100), 0); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("past MaxQueuedBytes: %v, want ErrQueueFull", err)
	}
	if a.Stats().QueueFull != 1 || a.QueuedMessages() != 1 {
		t.Fatal("refused message was counted or queued wrongly")
	}
}

func TestSenderKeepsMessagesPerDatagram(t *testing.T) {
	a, b, _, rb, la, _, clk := fakePair(t, Config{MaxMessagesPerDatagram: 10})
	for range 25 {
		must(t, a.Queue(wire.KindState, []byte("m"), 0))
	}
	must(t, a.Flush())
	clk.Advance(time.Millisecond)
	must(t, b.Poll())
	if la.sent != 3 || len(rb.msgs) != 25 {
		t.Fatalf("25 messages at 10 a datagram: %d datagrams, %d received", la.sent, len(rb.msgs))
	}
}

func TestFewestDatagrams(t *testing.T) {
	a, b, _, rb, la, _, clk := fakePair(t, Config{})
	// 40 messages of 100 bytes plus framing: 4,080 bytes, 11 to a datagram.
	for i := range 40 {
		p := bytes.Repeat([]byte{byte(i)}, 100)
		must(t, a.Queue(wire.KindState, p, Token(i+1)))
	}
	must(t, a.Flush())
	if la.sent != 4 {
		t.Fatalf("40 × 102 bytes went in %d datagrams, want 4", la.sent)
	}
	for _, d := range b.Transport().(*fakeLink).inbox {
		if len(d) > transport.MaxDatagramSize {
			t.Fatalf("datagram of %d bytes", len(d))
		}
	}
	clk.Advance(time.Millisecond)
	must(t, b.Poll())
	if len(rb.msgs) != 40 {
		t.Fatalf("received %d messages, want 40", len(rb.msgs))
	}
	for i, m := range rb.msgs {
		if m.payload[0] != byte(i) {
			t.Fatalf("message %d out of order", i)
		}
	}
}

func TestLargestMessageFits(t *testing.T) {
	a, b, _, rb, _, _, clk := fakePair(t, Config{})
	// Give b something to acknowledge so a's datagrams carry an ack frame.
	must(t, b.Queue(wire.KindInput, []byte("i"), 0))
	must(t, b.Flush())
	must(t, a.Poll())
	must(t, a.Queue(wire.KindState, make([]byte, MaxMessageSize), 1))
	must(t, a.Queue(wire.KindState, make([]byte, PreferredMessageSize), 2))
	must(t, a.Flush())
	clk.Advance(time.Millisecond)
	must(t, b.Poll())
	if len(rb.msgs) != 2 || len(rb.msgs[0].payload) != MaxMessageSize || len(rb.msgs[1].payload) != PreferredMessageSize {
		t.Fatalf("largest messages did not arrive whole")
	}
}

func TestProbeSettlesLostTail(t *testing.T) {
	a, b, ra, _, la, _, clk := fakePair(t, Config{})
	la.hold = true
	must(t, a.Queue(wire.KindState, []byte("lost"), 1))
	must(t, a.Flush()) // held, never delivered: lost
	la.hold = false
	var probeAt time.Duration
	for tick := 0; tick < 200 && len(ra.notices) == 0; tick++ {
		clk.Advance(10 * time.Millisecond)
		must(t, b.Poll())
		must(t, b.Flush())
		must(t, a.Poll())
		before := a.Stats().ProbesSent
		must(t, a.Flush())
		if a.Stats().ProbesSent > before && probeAt == 0 {
			probeAt = time.Duration(tick+1) * 10 * time.Millisecond
		}
	}
	if probeAt == 0 || probeAt < a.cfg.InitialRTT {
		t.Fatalf("probe sent at %v; want one after the probe timeout", probeAt)
	}
	if len(ra.notices) == 0 {
		t.Fatal("the lost datagram was never settled")
	}
	if n := ra.notices[0]; n.Packet != 0 || n.Delivered || len(n.Tokens) != 1 || n.Tokens[0] != 1 {
		t.Fatalf("first notice %+v, want packet 0 lost with token 1", n)
	}
	for range 50 {
		clk.Advance(10 * time.Millisecond)
		must(t, b.Poll())
		must(t, b.Flush())
		must(t, a.Poll())
		must(t, a.Flush())
	}
	if a.InFlight() != 0 || len(ra.notices) != int(a.Stats().PacketsSent) {
		t.Fatalf("after the probe: InFlight %d, %d notices for %d packets", a.InFlight(), len(ra.notices), a.Stats().PacketsSent)
	}
}

// TestReorderRule checks that a datagram overtaken by one sent more than the
// reorder window later is discarded by the receiver and reported lost by the
// sender, while one overtaken within the window is accepted and delivered.
func TestReorderRule(t *testing.T) {
	a, b, ra, rb, la, _, clk := fakePair(t, Config{MinReorderWindow: 30 * time.Millisecond, MaxReorderWindow: 30 * time.Millisecond})
	la.hold = true
	send := func(s string) {
		must(t, a.Queue(wire.KindState, []byte(s), Token(len(la.held)+1)))
		must(t, a.Flush())
	}
	send("p0")
	clk.Advance(20 * time.Millisecond)
	send("p1") // within 30 ms of p0
	clk.Advance(20 * time.Millisecond)
	send("p2") // 40 ms after p0, 20 ms after p1
	la.deliver(2)
	la.deliver(1) // overtaken within the window: accepted
	la.deliver(0) // overtaken by p2, sent 40 ms later: discarded
	must(t, b.Poll())
	if len(rb.msgs) != 2 || rb.msgs[0].payload != "p2" || rb.msgs[1].payload != "p1" {
		t.Fatalf("receiver processed %v, want p2 then p1", rb.msgs)
	}
	if s := b.Stats(); s.Late != 1 {
		t.Fatalf("Late = %d, want 1", s.Late)
	}
	must(t, b.Flush())
	must(t, a.Poll())
	if len(ra.notices) != 3 {
		t.Fatalf("%d notices, want 3", len(ra.notices))
	}
	for i, want := range []bool{false, true, true} {
		if n := ra.notices[i]; n.Packet != uint32(i) || n.Delivered != want {
			t.Fatalf("notice %d = %+v, want delivered %v", i, n, want)
		}
	}
}

func TestDuplicatesAreIgnored(t *testing.T) {
	a, b, _, rb, la, _, _ := fakePair(t, Config{})
	la.hold = true
	must(t, a.Queue(wire.KindState, []byte("x"), 1))
	must(t, a.Flush())
	la.deliver(0)
	la.deliver(0)
	must(t, b.Poll())
	if len(rb.msgs) != 1 || b.Stats().Duplicates != 1 {
		t.Fatalf("processed %d copies, counted %d duplicates", len(rb.msgs), b.Stats().Duplicates)
	}
}

func TestCloseReportsInFlightLost(t *testing.T) {
	a, b, ra, _, _, _, _ := fakePair(t, Config{})
	for i := range 3 {
		must(t, a.Queue(wire.KindState, []byte("x"), Token(i+1)))
		must(t, a.Flush())
	}
	must(t, a.Close(transport.CloseNormal, "bye"))
	if len(ra.notices) != 3 {
		t.Fatalf("%d notices at close, want 3", len(ra.notices))
	}
	for i, n := range ra.notices {
		if n.Delivered || n.Packet != uint32(i) {
			t.Fatalf("notice %+v at close, want lost", n)
		}
	}
	must(t, a.Close(transport.CloseNormal, "again"))
	if len(ra.notices) != 3 {
		t.Fatal("second Close reported again")
	}
	if err := a.Queue(wire.KindState, nil, 0); !errors.Is(err, ErrClosed) {
		t.Fatalf("Queue after Close: %v", err)
	}
	err := b.Poll()
	var ce *transport.CloseError
	if !errors.As(err, &ce) || !ce.Remote || ce.Reason != "bye" || !b.Closed() {
		t.Fatalf("peer's Poll after close: %v", err)
	}
}

func TestLanes(t *testing.T) {
	a, b, _, rb, _, _, _ := fakePair(t, Config{MaxLaneMessageSize: 64})
	hello, err := wire.Hello{Version: wire.Version, Name: "ann"}.Encode(nil)
	must(t, err)
	must(t, a.SendLane(transport.LaneControl, hello))
	if err := a.SendLane(transport.LaneControl, []byte{byte(wire.KindState)}); !errors.Is(err, ErrBadKind) {
		t.Fatalf("datagram kind on a lane: %v", err)
	}
	if err := a.SendLane(transport.LaneJoin, append([]byte{byte(wire.KindJoinPage)}, make([]byte, 64)...)); !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("65-byte lane message with a 64-byte limit: %v", err)
	}
	must(t, b.Poll())
	if len(rb.lanes) != 1 || rb.lanes[0].lane != transport.LaneControl || rb.lanes[0].msg != string(hello) {
		t.Fatalf("lane messages %v", rb.lanes)
	}
	var h wire.Hello
	must(t, h.Decode([]byte(rb.lanes[0].msg)))
	if h.Name != "ann" {
		t.Fatal(h)
	}
}

func TestLaneMessageTooLargeClosesWithLimit(t *testing.T) {
	_, b, _, _, la, lb, _ := fakePair(t, Config{MaxLaneMessageSize: 64})
	_ = la.SendMessage(transport.LaneJoin, append([]byte{byte(wire.KindJoinPage)}, make([]byte, 100)...))
	err := b.Poll()
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, ErrLimit) || le.Max != 64 {
		t.Fatalf("Poll = %v, want a *LimitError for 64 bytes", err)
	}
	if ce, ok := lb.Err().(*transport.CloseError); !ok || ce.Code != transport.CloseLimit {
		t.Fatalf("transport closed with %v, want CloseLimit", lb.Err())
	}
}

func TestGarbageIsCountedThenClosesWithProtocol(t *testing.T) {
	a, b, _, rb, la, lb, _ := fakePair(t, Config{MaxMalformed: 5})
	// One good datagram first, so the connection has state.
	must(t, a.Queue(wire.KindState, []byte("ok"), 1))
	must(t, a.Flush())
	must(t, b.Poll())
	good := append([]byte(nil), la.peer.cur...)
	oversized := make([]byte, transport.MaxDatagramSize+1)
	oversized[0] = 0x01
	bad := [][]byte{
		nil,                // empty: truncated
		{0x01, 0, 0},       // header cut short
		{0xff, 1, 2, 3},    // reserved flags
		good[:len(good)-1], // message cut short
		append(good[:len(good):len(good)], 0x81, 0), // lane kind inside a datagram
		oversized,
	}
	for i, d := range bad[:5] {
		lb.inbox = append(lb.inbox, d)
		if err := b.Poll(); err != nil {
			t.Fatalf("garbage %d closed the connection early: %v", i, err)
		}
		if got := b.Stats().Malformed; got != uint64(i+1) {
			t.Fatalf("after garbage %d: Malformed = %d", i, got)
		}
	}
	if len(rb.msgs) != 1 {
		t.Fatalf("garbage produced messages: %v", rb.msgs)
	}
	lb.inbox = append(lb.inbox, bad[5])
	err := b.Poll()
	var pe *ProtocolError
	if !errors.As(err, &pe) || !errors.Is(err, ErrProtocol) || !errors.Is(err, wire.ErrTooLarge) || pe.Count != 6 {
		t.Fatalf("Poll = %v, want a *ProtocolError after 6 malformed datagrams", err)
	}
	if ce, ok := lb.Err().(*transport.CloseError); !ok || ce.Code != transport.CloseProtocol || !strings.Contains(ce.Reason, "malformed") {
		t.Fatalf("transport closed with %v, want CloseProtocol", lb.Err())
	}
}

func TestMalformedErrorsAreTyped(t *testing.T) {
	cases := []struct {
		name string
		dg   []byte
		want error
	}{
		{"empty", nil, wire.ErrTruncated},
		{"no flags", []byte{0x00}, wire.ErrInvalid},
		{"truncated packet number", []byte{0x01, 1, 2}, wire.ErrTruncated},
		{"floor delta too large", []byte{0x01, 0xff, 0xff, 0, 0, 0x80, 0x08, 0}, wire.ErrTooLarge},
		{"ack of unsent", []byte{0x02, 5, 0, 0, 0, 0, 1, 1}, errAckUnsent},
		{"messages without number", []byte{0x02, 0, 0, 0, 0, 0, 1, 1, 0x01, 0}, errUnnumbered},
		{"overlong varint", []byte{0x01, 0, 0, 0, 0, 0x80, 0x00, 0}, wire.ErrNonCanonical},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, b, _, _, _, lb, _ := fakePair(t, Config{MaxMalformed: 1})
			lb.inbox = append(lb.inbox, c.dg)
			must(t, b.Poll())
			lb.inbox = append(lb.inbox, c.dg)
			err := b.Poll()
			if !errors.Is(err, c.want) || !errors.Is(err, ErrProtocol) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
}

func TestFloodClosesWithLimit(t *testing.T) {
	a, b, _, _, _, lb, clk := fakePair(t, Config{MaxDatagramsPerPoll: 8})
	var err error
	polls := 0
	for err == nil && polls < 10 {
		for range 9 { // more than a poll takes, every tick
			must(t, a.Queue(wire.KindInput, []byte("spam"), 0))
			must(t, a.Flush())
		}
		clk.Advance(10 * time.Millisecond)
		err = b.Poll()
		polls++
	}
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "datagrams per poll" || le.Polls != DefaultFloodPolls || polls != DefaultFloodPolls {
		t.Fatalf("after %d polls: %v, want *LimitError on datagrams per poll after %d polls", polls, err, DefaultFloodPolls)
	}
	if ce := lb.Err().(*transport.CloseError); ce.Code != transport.CloseLimit {
		t.Fatalf("closed with %v", ce)
	}
	if s := b.Stats(); s.LimitClosures != 1 || s.FullPolls != DefaultFloodPolls {
		t.Fatalf("LimitClosures %d, FullPolls %d", s.LimitClosures, s.FullPolls)
	}
	if err := a.Poll(); err == nil || !a.Closed() {
		t.Fatalf("flooder not told: %v", err)
	}
	var ce *transport.CloseError
	if !errors.As(a.Err(), &ce) || ce.Code != transport.CloseLimit || !ce.Remote {
		t.Fatalf("flooder's Err = %v, want remote CloseLimit", a.Err())
	}
}

// TestBurstAfterStallDrains: a backlog larger than a poll takes (the
// receiver stalled) drains over a few polls without closing.
func TestBurstAfterStallDrains(t *testing.T) {
	a, b, _, rb, _, _, clk := fakePair(t, Config{MaxDatagramsPerPoll: 8})
	for range 20 {
		must(t, a.Queue(wire.KindState, []byte("s"), 0))
		must(t, a.Flush())
	}
	for range 4 {
		clk.Advance(10 * time.Millisecond)
		must(t, b.Poll())
	}
	if len(rb.msgs) != 20 || b.Closed() {
		t.Fatalf("took %d of 20 messages; closed %v", len(rb.msgs), b.Closed())
	}
}

func TestDatagramBytesPerPollLimit(t *testing.T) {
	a, b, _, _, _, _, clk := fakePair(t, Config{MaxDatagramBytesPerPoll: 3000, FloodPolls: 1})
	for range 3 {
		must(t, a.Queue(wire.KindState, make([]byte, 1100), 0))
	}
	must(t, a.Flush())
	clk.Advance(time.Millisecond)
	var le *LimitError
	if err := b.Poll(); !errors.As(err, &le) || le.Limit != "datagram bytes per poll" {
		t.Fatalf("Poll = %v, want *LimitError on datagram bytes per poll", err)
	}
}

// TestLaneBudgetWaits: lane messages beyond a poll's bounds wait for the next
// poll; nothing closes.
func TestLaneBudgetWaits(t *testing.T) {
	a, b, _, rb, _, _, _ := fakePair(t, Config{MaxLaneMessagesPerPoll: 4, MaxLaneBytesPerPoll: 1000})
	for range 10 {
		must(t, a.SendLane(transport.LaneCommands, []byte{byte(wire.KindCommand), 1}))
	}
	must(t, a.SendLane(transport.LaneJoin, append([]byte{byte(wire.KindJoinPage)}, make([]byte, 5000)...)))
	want := []int{4, 8, 11} // the page starts under the byte bound: taken whole
	for i, w := range want {
		must(t, b.Poll())
		if len(rb.lanes) != w {
			t.Fatalf("poll %d: %d lane messages taken, want %d", i, len(rb.lanes), w)
		}
	}
}

func TestMessagesPerDatagramLimit(t *testing.T) {
	a, b, _, _, _, _, _ := fakePair(t, Config{MaxMessagesPerDatagram: 10})
	a.cfg.MaxMessagesPerDatagram = 100 // a peer with a higher limit than b's
	for range 11 {
		must(t, a.Queue(wire.KindState, []byte("m"), 0))
	}
	must(t, a.Flush())
	var le *LimitError
	if err := b.Poll(); !errors.As(err, &le) || le.Limit != "messages per datagram" {
		t.Fatalf("Poll = %v, want *LimitError on messages per datagram", err)
	}
}

func TestReportMalformed(t *testing.T) {
	a, _, _, _, _, la, _ := fakePair(t, Config{MaxMalformed: 2})
	bad := errors.New("state body does not decode")
	a.ReportMalformed(bad)
	a.ReportMalformed(bad)
	if a.Closed() {
		t.Fatal("closed within the limit")
	}
	a.ReportMalformed(bad)
	if !errors.Is(a.Err(), bad) || !errors.Is(a.Err(), ErrProtocol) {
		t.Fatalf("Err = %v", a.Err())
	}
	if la.peer.Err() == nil {
		t.Fatal("transport not closed")
	}
}

func TestUnresponsivePeerIsClosed(t *testing.T) {
	a, _, ra, _, la, _, clk := fakePair(t, Config{})
	la.hold = true
	var err error
	for i := 0; i < 2*wire.AckWindow && err == nil; i++ {
		_ = a.Queue(wire.KindState, []byte("x"), 0)
		err = a.Flush()
		clk.Advance(16 * time.Millisecond)
	}
	if !errors.Is(err, ErrUnresponsive) {
		t.Fatalf("Flush = %v, want ErrUnresponsive", err)
	}
	if len(ra.notices) != wire.AckWindow {
		t.Fatalf("%d notices, want %d (every packet lost at close)", len(ra.notices), wire.AckWindow)
	}
}

// TestPacketNumberNearWrapIsMalformed: a datagram numbered within AckWindow
// of 2^32 is counted malformed, not accepted; the connection stays open and
// its next Flush works. One just below the limit is accepted.
func TestPacketNumberNearWrapIsMalformed(t *testing.T) {
	_, b, _, rb, _, lb, _ := fakePair(t, Config{})
	forge := func(pn uint32) []byte {
		h := wire.Header{Numbered: true, Packet: pn, Floor: pn, ReorderFloor: pn}
		d, err := h.Append(nil)
		must(t, err)
		return wire.AppendMessage(d, wire.KindInput, []byte("x"))
	}
	for _, pn := range []uint32{1<<32 - 1, 1<<32 - wire.AckWindow} {
		lb.inbox = append(lb.inbox, forge(pn))
		must(t, b.Poll())
		must(t, b.Flush())
	}
	if s := b.Stats(); s.Malformed != 2 || s.PacketsAccepted != 0 || len(rb.msgs) != 0 || b.Closed() {
		t.Fatalf("stats %+v, %d messages, closed %v (%v)", s, len(rb.msgs), b.Closed(), b.Err())
	}
	lb.inbox = append(lb.inbox, forge(1<<32-wire.AckWindow-1))
	must(t, b.Poll())
	must(t, b.Flush())
	if s := b.Stats(); s.PacketsAccepted != 1 || s.AckOnlySent != 1 || len(rb.msgs) != 1 {
		t.Fatalf("the highest usable number was not accepted and acknowledged: %+v", s)
	}
}

// TestUnresponsiveWhileLaterPacketsAreAcknowledged: the peer acknowledges
// every packet but the first and never reports it lost. With 1,024 packets
// sent since it the connection closes as unresponsive, and the error says
// what happened rather than that nothing was acknowledged.
func TestUnresponsiveWhileLaterPacketsAreAcknowledged(t *testing.T) {
	a, _, ra, _, la, _, clk := fakePair(t, Config{})
	la.hold = true
	for range wire.AckWindow {
		must(t, a.Queue(wire.KindState, []byte("x"), 0))
		must(t, a.Flush())
		clk.Advance(time.Millisecond)
	}
	// Missing 0, accepted 1..1023, discard floor 0: packet 0 stays in flight.
	h := wire.Header{HasAck: true, Ack: wire.AckFrame{First: 0, NumRuns: 3}}
	h.Ack.Runs[0], h.Ack.Runs[1], h.Ack.Runs[2] = 0, 1, wire.AckWindow-1
	ack, err := h.Append(nil)
	must(t, err)
	la.inbox = append(la.inbox, ack)
	must(t, a.Poll())
	if s := a.Stats(); s.PacketsDelivered != wire.AckWindow-1 || s.InFlight != 1 {
		t.Fatalf("after the ack: %+v", s)
	}
	must(t, a.Queue(wire.KindState, []byte("x"), 0))
	err = a.Flush()
	if !errors.Is(err, ErrUnresponsive) || !a.Closed() {
		t.Fatalf("Flush = %v, want ErrUnresponsive", err)
	}
	if msg := err.Error(); strings.Contains(msg, "acknowledged none") || !strings.Contains(msg, "oldest") {
		t.Fatalf("error %q misdescribes a peer that acknowledged all but the oldest packet", msg)
	}
	if n := ra.notices[len(ra.notices)-1]; n.Packet != 0 || n.Delivered {
		t.Fatalf("last notice %+v, want packet 0 not delivered (abandoned) at the close", n)
	}
}

// TestCloseAbandonsWhatIsInFlight: datagrams in flight when a connection
// closes get their notices (not delivered) but are not counted lost: a
// connection that lost nothing reports no loss after it closed, and every
// numbered datagram sent has exactly one notice.
func TestCloseAbandonsWhatIsInFlight(t *testing.T) {
	a, b, ra, _, la, _, clk := fakePair(t, Config{})
	for i := range 3 { // delivered and acknowledged
		must(t, a.Queue(wire.KindState, []byte("seen"), Token(i+1)))
		must(t, a.Flush())
		clk.Advance(10 * time.Millisecond)
		must(t, b.Poll())
		must(t, b.Flush())
		must(t, a.Poll())
	}
	la.hold = true
	for i := range 2 { // in flight at the close
		must(t, a.Queue(wire.KindState, []byte("flying"), Token(10+i)))
		must(t, a.Flush())
	}
	if err := a.Close(transport.CloseNormal, "done"); err != nil {
		t.Fatal(err)
	}
	st := a.Stats()
	if st.PacketsDelivered != 3 || st.PacketsLost != 0 || st.PacketsAbandoned != 2 || st.LossRate != 0 {
		t.Fatalf("after the close: %d delivered, %d lost, %d abandoned, loss rate %v; want 3, 0, 2, 0",
			st.PacketsDelivered, st.PacketsLost, st.PacketsAbandoned, st.LossRate)
	}
	if got := st.PacketsDelivered + st.PacketsLost + st.PacketsAbandoned + uint64(st.InFlight); got != st.PacketsSent || len(ra.notices) != int(st.PacketsSent) {
		t.Fatalf("%d packets sent, %d settled or in flight, %d notices", st.PacketsSent, got, len(ra.notices))
	}
	for _, n := range ra.notices[len(ra.notices)-2:] {
		if n.Delivered {
			t.Fatalf("a datagram in flight at the close was noticed delivered: %+v", n)
		}
	}
}
