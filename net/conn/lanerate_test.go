package conn

import (
	"errors"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// laneFlood has a send perTick lane messages of size bytes on lane every
// 16 ms tick for up to ticks ticks while b polls; it returns b's first Poll
// error and the ticks run.
func laneFlood(t *testing.T, cfg Config, lane transport.Lane, perTick, size, ticks int) (b *Conn, lb *fakeLink, ran int, err error) {
	t.Helper()
	a, b, _, _, _, lb, clk := fakePair(t, cfg)
	msg := make([]byte, size)
	msg[0] = byte(wire.KindGameLane)
	for ran = 0; ran < ticks && err == nil; ran++ {
		for range perTick {
			must(t, a.SendLane(lane, msg))
		}
		clk.Advance(16 * time.Millisecond)
		err = b.Poll()
	}
	return b, lb, ran, err
}

// TestLaneByteRateDropsPeer: a peer pushing 64 KiB lane messages at about
// 60 MiB/s (the CPU burner: each one fits every per-poll bound) is
// closed for the lane byte rate within the bucket's second.
func TestLaneByteRateDropsPeer(t *testing.T) {
	b, lb, ran, err := laneFlood(t, Config{}, transport.LaneCommands, 16, 64<<10, 600)
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "lane bytes per second on lane commands" || le.Max != DefaultLaneBytesPerSecond {
		t.Fatalf("after %d ticks: Poll = %v, want a *LimitError on lane bytes per second", ran, err)
	}
	if ran > 63 {
		t.Fatalf("closed after %d ticks, want within a second", ran)
	}
	if ce := lb.Err().(*transport.CloseError); ce.Code != transport.CloseLimit {
		t.Fatalf("closed with %v, want CloseLimit", ce)
	}
	s := b.Stats()
	if s.LaneMessagesReceived > DefaultLaneBytesPerSecond/(64<<10)+16 {
		t.Fatalf("%d messages were handed on before the close", s.LaneMessagesReceived)
	}
	t.Logf("closed after %d ticks (%v), %d messages (%d KiB) handed on", ran, time.Duration(ran)*16*time.Millisecond, s.LaneMessagesReceived, s.BytesReceived>>10)
}

// TestLaneMessageRateDropsPeer: tiny messages, 200 a tick (12,500 a
// second, under the per-poll bound of 256), are closed for the message rate.
func TestLaneMessageRateDropsPeer(t *testing.T) {
	_, _, ran, err := laneFlood(t, Config{}, transport.LaneControl, 200, 1, 600)
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "lane messages per second on lane control" || le.Max != DefaultLaneMessagesPerSecond {
		t.Fatalf("after %d ticks: Poll = %v, want a *LimitError on lane messages per second", ran, err)
	}
	if ran > 10 {
		t.Fatalf("closed after %d ticks, want at the bucket's 1,000th message", ran)
	}
}

// TestLaneRateWithinBoundsAndOff: a steady stream under the rate passes for
// ten seconds, and a lane whose bounds are off takes a join's full flow.
func TestLaneRateWithinBoundsAndOff(t *testing.T) {
	// 8 messages of 2,000 bytes every 16 ms: 500 messages and 1,000,000
	// bytes a second, just under both defaults.
	if _, _, ran, err := laneFlood(t, Config{}, transport.LaneCommands, 8, 2000, 625); err != nil {
		t.Fatalf("an honest stream was closed after %d ticks: %v", ran, err)
	}
	var cfg Config
	cfg.LaneRates[transport.LaneJoin] = LaneRate{MessagesPerSecond: -1, BytesPerSecond: -1}
	if _, _, ran, err := laneFlood(t, cfg, transport.LaneJoin, 60, 16<<10, 300); err != nil {
		t.Fatalf("a lane with its rate off was closed after %d ticks: %v", ran, err)
	}
}

// TestAdmitReachesTransport: Conn.Admit tells the transport once the peer
// is admitted.
func TestAdmitReachesTransport(t *testing.T) {
	_, b, _, _, _, lb, _ := fakePair(t, Config{})
	b.Admit()
	if lb.admitted != 1 {
		t.Fatalf("the transport was admitted %d times, want 1", lb.admitted)
	}
}

// sendUnheard sends a State datagram of one byte b from a, 16 ms of clock
// later takes it off the peer's link unread (lb), the peer's connection
// never hearing it.
func sendUnheard(t *testing.T, a *Conn, lb *fakeLink, clk *clock.Fake, b byte) {
	t.Helper()
	must(t, a.Queue(wire.KindState, []byte{b}, 0))
	must(t, a.Flush())
	clk.Advance(16 * time.Millisecond)
	for {
		if _, ok := lb.RecvDatagram(); !ok {
			return
		}
	}
}

// ackOnly has the peer acknowledge packet pn alone, from its own number on
// (its discard floor pn), and a take it.
func ackOnly(t *testing.T, a *Conn, lb *fakeLink, pn uint32) {
	t.Helper()
	h := wire.Header{HasAck: true, Ack: wire.AckFrame{First: pn, DiscardFloor: pn, NumRuns: 1}}
	h.Ack.Runs[0] = 1
	ack, err := h.Append(nil)
	must(t, err)
	must(t, lb.SendDatagram(ack))
	must(t, a.Poll())
}

// TestOldestInFlightShowsAPeerAckingOnlyItsNewest: a peer that, every
// fifth packet, acknowledges only the newest keeps the others unsettled; the
// oldest in-flight time shows how long, while its acknowledgements stay
// fresh.
func TestOldestInFlightShowsAPeerAckingOnlyItsNewest(t *testing.T) {
	a, _, _, _, _, lb, clk := fakePair(t, Config{})
	start := clk.Now()
	for i := range 120 {
		sendUnheard(t, a, lb, clk, byte(i))
		if i%5 == 4 {
			ackOnly(t, a, lb, uint32(i)) // the newest
		}
	}
	sent, ok := a.OldestInFlight()
	if !ok || !sent.Equal(start) {
		t.Fatalf("OldestInFlight = %v %v, want the first packet's send time %v", sent, ok, start)
	}
	if s := a.Stats(); s.PacketsDelivered != 24 || s.InFlight != 96 {
		t.Fatalf("delivered %d, in flight %d: the peer should look alive and leave the rest", s.PacketsDelivered, s.InFlight)
	}
}

// RTTSamples is 0 until the peer first acknowledged a datagram (an
// acknowledgement alone), then counts the samples.
func TestRTTSamples(t *testing.T) {
	a, b, _, _, _, _, clk := fakePair(t, Config{})
	must(t, a.Queue(wire.KindState, []byte{1}, 0))
	must(t, a.Flush())
	clk.Advance(10 * time.Millisecond)
	must(t, b.Poll())
	must(t, b.Flush()) // the acknowledgement alone
	if n := a.RTTSamples(); n != 0 {
		t.Fatalf("RTTSamples = %d before an acknowledgement", n)
	}
	clk.Advance(10 * time.Millisecond)
	must(t, a.Poll())
	if n := a.RTTSamples(); n != 1 {
		t.Fatalf("RTTSamples = %d after the first acknowledgement, want 1", n)
	}
}

// UnansweredSince counts from the newest datagram the peer acknowledged:
// the older ones it left unsettled (lost, their loss not known yet) do not
// make it older, and it is the first datagram sent after the newest
// acknowledged one while none since is answered.
func TestUnansweredSinceCountsFromTheNewestAnswered(t *testing.T) {
	a, _, _, _, _, lb, clk := fakePair(t, Config{})
	if _, ok := a.UnansweredSince(); ok {
		t.Fatal("UnansweredSince with nothing sent")
	}
	for i := range 10 {
		sendUnheard(t, a, lb, clk, byte(i))
	}
	ackOnly(t, a, lb, 9) // 0 to 8 stay in flight
	if _, ok := a.OldestInFlight(); !ok {
		t.Fatal("packets 0 to 8 should be in flight")
	}
	if at, ok := a.UnansweredSince(); ok {
		t.Fatalf("UnansweredSince = %v with nothing sent after the newest answered", at)
	}
	first := clk.Now()
	for i := range 5 {
		sendUnheard(t, a, lb, clk, byte(i))
	}
	if at, ok := a.UnansweredSince(); !ok || !at.Equal(first) {
		t.Fatalf("UnansweredSince = %v %v, want %v: the first sent after the newest answered", at, ok, first)
	}
}
