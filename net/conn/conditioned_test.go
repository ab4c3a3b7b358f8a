package conn

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// memPair connects a host and a client Conn over the in-memory transport
// with cond in both directions.
func memPair(t testing.TB, clk *clock.Fake, cond condition.Config, cfg Config, hh, ch Handler) (host, client *Conn) {
	t.Helper()
	toClient := cond
	toClient.Seed = cond.Seed + 1
	nw, err := mem.NewNetwork(clk, mem.Config{ToHost: cond, ToClient: toClient})
	must(t, err)
	l, err := nw.Listen("host")
	must(t, err)
	ctx := context.Background()
	ct, err := nw.Dial(ctx, "host")
	must(t, err)
	ht, err := l.Accept(ctx)
	must(t, err)
	host, err = New(ht, clk, hh, cfg)
	must(t, err)
	client, err = New(ct, clk, ch, cfg)
	must(t, err)
	return host, client
}

// side tallies one direction: the tokens of the messages sent, the notices
// the sender got, and the messages the receiver processed.
type side struct {
	noticed   map[uint32]int // packet → notices
	tokenSeen []int          // token → notices listing it
	delivered []bool         // token → reported delivered
	received  []bool         // token → processed by the receiver
	dupRecv   int
}

func newSide(n int) *side {
	return &side{noticed: map[uint32]int{}, tokenSeen: make([]int, n+1), delivered: make([]bool, n+1), received: make([]bool, n+1)}
}

func (s *side) notice(n Notice) {
	s.noticed[n.Packet]++
	for _, tok := range n.Tokens {
		s.tokenSeen[tok]++
		s.delivered[tok] = n.Delivered
	}
}

func (s *side) message(payload []byte) {
	tok := binary.LittleEndian.Uint32(payload)
	if s.received[tok] {
		s.dupRecv++
	}
	s.received[tok] = true
}

// check asserts the exactly-once property for one direction.
func (s *side) check(t *testing.T, name string, sender, receiver *Conn, sent int) {
	t.Helper()
	st := sender.Stats()
	if st.InFlight != 0 {
		t.Fatalf("%s: %d packets still in flight after draining", name, st.InFlight)
	}
	for pn := uint32(0); pn < uint32(st.PacketsSent); pn++ {
		if s.noticed[pn] != 1 {
			t.Fatalf("%s: packet %d reported %d times, want exactly once", name, pn, s.noticed[pn])
		}
	}
	if len(s.noticed) != int(st.PacketsSent) {
		t.Fatalf("%s: notices for %d packets, %d sent", name, len(s.noticed), st.PacketsSent)
	}
	var delivered, received int
	for tok := 1; tok <= sent; tok++ {
		if s.tokenSeen[tok] != 1 {
			t.Fatalf("%s: token %d in %d notices, want 1", name, tok, s.tokenSeen[tok])
		}
		if s.delivered[tok] != s.received[tok] {
			t.Fatalf("%s: token %d reported delivered=%v but the receiver processed it: %v", name, tok, s.delivered[tok], s.received[tok])
		}
		if s.delivered[tok] {
			delivered++
		}
		if s.received[tok] {
			received++
		}
	}
	if s.dupRecv != 0 {
		t.Fatalf("%s: the receiver processed %d messages twice", name, s.dupRecv)
	}
	rs := receiver.Stats()
	if st.PacketsDelivered != rs.PacketsAccepted {
		t.Fatalf("%s: %d packets reported delivered, the receiver processed %d", name, st.PacketsDelivered, rs.PacketsAccepted)
	}
	t.Logf("%s: %d packets (%d probes), %d delivered, %d lost; tokens %d delivered of %d; receiver: %d duplicates, %d late, %d stale; RTT %v ± %v, loss %.3f, reorder window %v",
		name, st.PacketsSent, st.ProbesSent, st.PacketsDelivered, st.PacketsLost, delivered, sent,
		rs.Duplicates, rs.Late, rs.Stale, st.RTT, st.RTTVar, st.LossRate, st.ReorderWindow)
}

// runExactlyOnce sends hostSends messages from host to client (one a tick)
// and a third as many back, under cond, drains, and checks every packet and
// token was reported exactly once, delivered exactly when processed.
func runExactlyOnce(t *testing.T, cond condition.Config, hostSends int, tick time.Duration) (host, client *Conn) {
	t.Helper()
	clientSends := hostSends / 3
	clk := clock.NewFake(epoch)
	down, up := newSide(hostSends), newSide(clientSends)
	hh := HandlerFuncs{
		OnMessage: func(_ wire.Kind, p []byte) { up.message(p) },
		OnNotice:  down.notice,
	}
	ch := HandlerFuncs{
		OnMessage: func(_ wire.Kind, p []byte) { down.message(p) },
		OnNotice:  up.notice,
	}
	host, client = memPair(t, clk, cond, Config{}, hh, ch)

	var payload [16]byte
	var hostTok, clientTok int
	for n := 0; ; n++ {
		clk.Advance(tick)
		must(t, host.Poll())
		must(t, client.Poll())
		if hostTok < hostSends {
			hostTok++
			binary.LittleEndian.PutUint32(payload[:], uint32(hostTok))
			must(t, host.Queue(wire.KindState, payload[:], Token(hostTok)))
		}
		if clientTok < clientSends && n%3 == 0 {
			clientTok++
			binary.LittleEndian.PutUint32(payload[:], uint32(clientTok))
			must(t, client.Queue(wire.KindInput, payload[:], Token(clientTok)))
		}
		must(t, host.Flush())
		must(t, client.Flush())
		if hostTok == hostSends && clientTok == clientSends && host.InFlight() == 0 && client.InFlight() == 0 {
			break
		}
		if n > hostSends+10000 {
			t.Fatalf("not drained after %d ticks: in flight %d and %d", n, host.InFlight(), client.InFlight())
		}
	}
	// Let the last acknowledgements land so both receivers are done.
	for range 100 {
		clk.Advance(tick)
		must(t, host.Poll())
		must(t, client.Poll())
		must(t, host.Flush())
		must(t, client.Flush())
	}
	down.check(t, "host → client", host, client, hostSends)
	up.check(t, "client → host", client, host, clientSends)
	return host, client
}

// TestConditionedExactlyOnce runs 10,000 datagrams from the host (and a third
// as many back) through 20% loss, 100 ms ± 30 ms, 5% duplicates and 5%
// reordering on a fake clock: every packet is reported exactly once, a
// message is reported delivered exactly when the receiver processed it, and
// the RTT converges to 200 ms.
func TestConditionedExactlyOnce(t *testing.T) {
	const oneWay = 100 * time.Millisecond
	cond := condition.Config{Latency: oneWay, Jitter: 30 * time.Millisecond, Loss: 0.2, Duplicate: 0.05, Reorder: 0.05, Seed: 42}
	host, client := runExactlyOnce(t, cond, 10000, 10*time.Millisecond)
	for _, c := range []*Conn{host, client} {
		s := c.Stats()
		if d := s.RTT - 2*oneWay; d < -2*oneWay/5 || d > 2*oneWay/5 {
			t.Errorf("RTT estimate %v, want 200 ms within 20%%", s.RTT)
		}
		if s.LossRate < 0.1 || s.LossRate > 0.45 {
			t.Errorf("loss estimate %.3f at 20%% loss", s.LossRate)
		}
	}
	cs := client.Stats()
	if cs.Duplicates == 0 || cs.Late+cs.Stale == 0 {
		t.Errorf("the conditions did not exercise duplicates (%d) and reordering (%d late)", cs.Duplicates, cs.Late)
	}
}

// TestExactlyOnceUnderOtherConditions repeats the property under bursts,
// heavy loss, heavy reordering and a slow tick, with other seeds.
func TestExactlyOnceUnderOtherConditions(t *testing.T) {
	cases := []struct {
		name string
		cond condition.Config
		tick time.Duration
	}{
		{"bursts", condition.Config{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Burst: condition.Burst{Enter: 0.02, Exit: 0.2, Loss: 1}, Seed: 1}, 16 * time.Millisecond},
		{"half lost", condition.Config{Latency: 80 * time.Millisecond, Jitter: 40 * time.Millisecond, Loss: 0.5, Duplicate: 0.1, Seed: 2}, 10 * time.Millisecond},
		{"reorder storm", condition.Config{Latency: 30 * time.Millisecond, Jitter: 25 * time.Millisecond, Reorder: 0.3, ReorderDelay: 70 * time.Millisecond, Duplicate: 0.2, Seed: 3}, 5 * time.Millisecond},
		{"slow tick", condition.Config{Latency: 150 * time.Millisecond, Jitter: 50 * time.Millisecond, Loss: 0.1, Reorder: 0.1, Seed: 4}, 50 * time.Millisecond},
		{"perfect", condition.Config{}, 16 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runExactlyOnce(t, c.cond, 2000, c.tick) })
	}
}

func TestStatsRates(t *testing.T) {
	clk := clock.NewFake(epoch)
	host, client := memPair(t, clk, condition.Config{Latency: 20 * time.Millisecond}, Config{}, nil, nil)
	payload := make([]byte, 100)
	for range 300 { // 3 s at 100 Hz
		clk.Advance(10 * time.Millisecond)
		must(t, host.Poll())
		must(t, client.Poll())
		must(t, host.Queue(wire.KindState, payload, 0))
		must(t, host.Flush())
		must(t, client.Flush())
	}
	s := host.Stats()
	if s.PacketsOutPerSec < 95 || s.PacketsOutPerSec > 105 {
		t.Errorf("PacketsOutPerSec = %.1f, want 100", s.PacketsOutPerSec)
	}
	// 100 payload + 2 framing + a 7-byte header (no ack frame: the client
	// sends nothing numbered).
	if s.BytesOutPerSec < 100*105 || s.BytesOutPerSec > 100*112 {
		t.Errorf("BytesOutPerSec = %.0f, want about 10,900", s.BytesOutPerSec)
	}
	cs := client.Stats()
	if cs.PacketsInPerSec < 95 || cs.PacketsInPerSec > 105 || cs.PacketsOutPerSec < 95 || cs.PacketsOutPerSec > 105 {
		t.Errorf("client in %.1f/s, out %.1f/s (ack-only), want 100 each", cs.PacketsInPerSec, cs.PacketsOutPerSec)
	}
	if s.RTT < 38*time.Millisecond || s.RTT > 52*time.Millisecond {
		t.Errorf("RTT %v on a 20 ms link", s.RTT)
	}
	if got := host.Transport().Stats().DatagramsSent; got != s.DatagramsSent {
		t.Errorf("transport counted %d datagrams, Conn %d", got, s.DatagramsSent)
	}
}

// TestBudgetHoldsRate queues as much as Budget allows every tick for 10 s and
// checks the bytes on the wire (overhead included) match the configured rate.
func TestBudgetHoldsRate(t *testing.T) {
	const bps = 256_000
	clk := clock.NewFake(epoch)
	host, client := memPair(t, clk, condition.Config{Latency: 30 * time.Millisecond}, Config{BitsPerSecond: bps}, nil, nil)
	payload := make([]byte, 200)
	const seconds = 10
	tick := time.Second / 30
	for range seconds * 30 {
		clk.Advance(tick)
		must(t, host.Poll())
		must(t, client.Poll())
		for host.Budget() >= len(payload)+3 {
			must(t, host.Queue(wire.KindState, payload, 0))
		}
		must(t, host.Flush())
		must(t, client.Flush())
	}
	got := float64(host.Stats().WireBytesSent*8) / seconds
	if got < bps*0.95 || got > bps*1.05 {
		t.Fatalf("sent %.0f bit/s on the wire, budget %d", got, bps)
	}
	host.SetBitsPerSecond(0)
	if host.Budget() != DefaultMaxQueuedBytes {
		t.Fatalf("without a budget, Budget = %d, want the queue's room", host.Budget())
	}
}

// TestTokensThroughRingWrapAndGrowth sends ticks of 0 to 300 messages, some
// without tokens, under loss and jitter, so the token ring wraps and grows
// while packets settle out of order: every token comes back exactly once, in
// the notice of its packet, in queue order.
func TestTokensThroughRingWrapAndGrowth(t *testing.T) {
	clk := clock.NewFake(epoch)
	cond := condition.Config{Latency: 50 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.2, Seed: 7}
	seen := map[Token]int{}
	last := map[uint32]Token{}
	hh := HandlerFuncs{OnNotice: func(n Notice) {
		for i, tok := range n.Tokens {
			seen[tok]++
			if i > 0 && tok <= n.Tokens[i-1] {
				t.Fatalf("packet %d tokens out of order: %v", n.Packet, n.Tokens)
			}
		}
		if len(n.Tokens) > 0 {
			last[n.Packet] = n.Tokens[len(n.Tokens)-1]
		}
	}}
	host, client := memPair(t, clk, cond, Config{MaxDatagramsPerPoll: 1000}, hh, nil)
	var tok Token
	want := 0
	for tick := range 1500 {
		clk.Advance(10 * time.Millisecond)
		must(t, host.Poll())
		must(t, client.Poll())
		if tick < 1000 {
			for m := range (tick * 37) % 301 {
				var tk Token
				if m%5 != 0 {
					tok++
					tk = tok
					want++
				}
				must(t, host.Queue(wire.KindState, []byte{1, 2}, tk))
			}
		}
		must(t, host.Flush())
		must(t, client.Flush())
	}
	if host.InFlight() != 0 {
		t.Fatalf("%d in flight", host.InFlight())
	}
	if len(seen) != want {
		t.Fatalf("%d distinct tokens reported, %d queued", len(seen), want)
	}
	for tk, n := range seen {
		if n != 1 || tk == 0 || tk > tok {
			t.Fatalf("token %d reported %d times", tk, n)
		}
	}
	if len(host.toks.buf) <= initialTokens {
		t.Fatalf("the ring never grew (%d); the test does not exercise growth", len(host.toks.buf))
	}
}
