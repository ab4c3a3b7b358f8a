package session

import (
	"context"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// rawHost is the host's end of a connection, driven by hand: what it
// sends and in which order is the test's, as a network that reorders what
// a host sent would deliver it.
type rawHost struct {
	c       *conn.Conn
	tc      transport.Conn
	lane    [][]byte
	notices []conn.Notice
}

// memLink returns an in-memory network on clk, a listener on it named
// "host" (closed when the test ends), and a connection dialled to it, not
// yet accepted.
func memLink(t *testing.T, clk *clock.Fake) (*mem.Network, transport.Listener, transport.Conn) {
	t.Helper()
	nw, err := mem.NewNetwork(clk, mem.Config{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := nw.Listen("host")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	ctc, err := nw.Dial(context.Background(), "host")
	if err != nil {
		t.Fatal(err)
	}
	return nw, l, ctc
}

func newRawHost(t *testing.T, clk *clock.Fake) (*rawHost, transport.Conn) {
	t.Helper()
	_, l, ctc := memLink(t, clk)
	htc, err := l.Accept(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h := &rawHost{tc: htc}
	h.c, err = conn.New(htc, clk, conn.HandlerFuncs{
		OnLaneMessage: func(_ transport.Lane, m []byte) { h.lane = append(h.lane, append([]byte(nil), m...)) },
		OnNotice: func(n conn.Notice) {
			n.Tokens = append([]conn.Token(nil), n.Tokens...)
			h.notices = append(h.notices, n)
		},
	}, conn.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return h, ctc
}

// A State that overtakes the host's Resumed is applied after it: the host
// answers a Resume with Resumed on the control lane and goes on at once
// with the join (join lane) and, once it is done, State datagrams; when
// the stream frame carrying the Resumed is lost and sent again (QUIC), the
// join's FINAL and the States after it reach the client first. The
// client's connection has acknowledged them (the host is told
// "delivered" and never sends their spawns again), so the session holds
// them with the early join messages, where it dropped them uncounted and
// the entity never appeared.
func TestAStateThatOvertakesTheResumedIsApplied(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	host, ctc := newRawHost(t, clk)
	w := ecs.NewWorld()
	reg := replicate.NewRegistry(w)
	sched := ecs.NewSchedule(w, clk, 0)
	token := [wire.TokenLen]byte{1, 2, 3}
	cl, err := NewClient(sched, reg, ctc, ClientConfig{
		Name:   "a",
		Clock:  clk,
		Ticket: Ticket{Peer: 7, Token: token},
	})
	if err != nil {
		t.Fatal(err)
	}
	step := func() {
		clk.Advance(ecs.DefaultStep)
		sched.Step()
		host.c.Poll()
		host.c.Flush()
	}
	step()
	if len(host.lane) == 0 || wire.Kind(host.lane[0][0]) != wire.KindResume {
		t.Fatalf("the client's first message is not a Resume: %x", host.lane)
	}
	// The join (an empty world at frame 5) and FINAL, on the join lane.
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(host.c.SendLane(transport.LaneJoin, []byte{byte(wire.KindJoinPage), 5, 0, 0}))
	must(host.c.SendLane(transport.LaneJoin, []byte{byte(wire.KindJoinFinal), 5, 1, 0, 0}))
	// The State of frame 6 spawning entity 3 (PROTOCOL.md §9.3,
	// state-spawn), with a delivery token.
	spawn := []byte{6, 0x0a, 0x00, 0x22, 0x91, 0x48, 0x24, 0x12, 0xa1, 0xf5, 0x80, 0x10, 0x42, 0x08, 0x01}
	must(host.c.Queue(wire.KindState, spawn, 1))
	must(host.c.Flush())
	for range 10 {
		step()
	}
	delivered := false
	for _, n := range host.notices {
		for _, tok := range n.Tokens {
			if tok == 1 && n.Delivered {
				delivered = true
			}
		}
	}
	// The Resumed, late: its stream frame was lost and sent again.
	must(host.c.SendLane(transport.LaneControl, wire.Resumed{PeerID: 7, TickRate: 60, SendRate: 30, Frame: 5, GraceMillis: 30000, Token: token, Runs: wire.LineageOf(wire.RunStart{Run: 1, Fresh: 1})}.Encode(nil)))
	must(host.c.Flush())
	for range 10 {
		step()
	}
	if cl.State() != Playing {
		t.Fatalf("client state %v, err %v", cl.State(), cl.Err())
	}
	_, holds := w.EntityOf(3)
	if !delivered || !holds || cl.Stats().DatagramsBeforeWelcome != 1 {
		t.Fatalf("the host told delivered: %v; the client holds the entity its State spawned: %v; datagrams held for the Resumed: %d (want true, true, 1)",
			delivered, holds, cl.Stats().DatagramsBeforeWelcome)
	}
}
