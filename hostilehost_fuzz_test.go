package tandem

import (
	"context"

	arche "github.com/mlange-42/arche/ecs"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// hostileClient is a tandem Client (testGame: physics, prediction,
// interpolation) whose host is a raw connection driven by the test.
type hostileClient struct {
	clk    *clock.Fake
	client *Client[push]
	host   *conn.Conn
	htc    transport.Conn
	step   func()
	net    *mem.Network
	l      transport.Listener
	g      *Game[push]
}

// newHostileClient returns a client the raw host welcomed as peer 1, at
// host frame 100.
func newHostileClient(t testing.TB) *hostileClient { return newHostileClientWith(t, 0, false) }

// newHostileClientWith is newHostileClient with the Welcome's grace
// window, and a client that dials the host again (ClientConfig.Dial) if
// dial is set.
func newHostileClientWith(t testing.TB, grace uint32, dial bool) *hostileClient {
	t.Helper()
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	n, err := mem.NewNetwork(clk, mem.Config{})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := n.Listen("host")
	t.Cleanup(func() { l.Close() })
	g := testGame()
	// Arrived as a careful game writes it: a body for an entity that can
	// have one (TestHostileSpawnWithoutTransformPanicsArrived shows the
	// unconditional pattern of the package's example).
	g.Arrived = func(w *World, e arche.Entity) {
		if a := w.ECS.Arche(); a.Has(e, w.ECS.IDs.Transform) && a.Has(e, w.ECS.IDs.Velocity) {
			w.Physics.AttachCircle(e, 10, floor)
		}
	}
	ctc, _ := n.Dial(context.Background(), "host")
	cc := ClientConfig[push]{Clock: clk, JoinTimeout: -1}
	if dial {
		cc.Dial = func(ctx context.Context) (transport.Conn, error) { return n.Dial(ctx, "host") }
	}
	c, err := NewClient(g, ctc, cc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	htc, _ := l.Accept(context.Background())
	hc, err := conn.New(htc, clk, conn.HandlerFuncs{}, conn.Config{MaxMalformed: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	hc.Admit()
	h := &hostileClient{clk: clk, client: c, host: hc, htc: htc, net: n, l: l, g: g}
	h.step = func() {
		hc.Flush()
		clk.Advance(g.step())
		c.Advance()
		hc.Poll()
	}
	hc.SendLane(transport.LaneControl, wire.Welcome{PeerID: 1, Token: [wire.TokenLen]byte{9}, TickRate: uint16(time.Second / g.step()), SendRate: 30, Frame: 100, GraceMillis: grace, Runs: wire.LineageOf(wire.RunStart{Run: 1, Fresh: 1})}.Encode(nil))
	h.step()
	h.step()
	return h
}

// hostileSeeds returns the join of a world of two entities, one owned by
// peer 1, a State and an AuthState, for reg.
func hostileSeeds(reg *replicate.Registry) [][]byte {
	fields := 0
	for c := range replicate.Component(reg.Len()) {
		fields += reg.Fields(c)
	}
	all := uint64(1)<<uint(reg.Len()) - 1
	page := []byte{byte(wire.KindJoinPage), 100, 2, 0}
	for id, owner := range []uint64{1, 0} {
		page = wire.AppendUvarint(page, uint64(id+1))
		page = wire.AppendUvarint(page, 1|all<<2)
		page = wire.AppendUvarint(page, owner)
		for k := range fields {
			page = append(page, byte(2*k))
		}
	}
	auth := []byte{byte(wire.KindAuthState), 101, 1}
	auth = wire.AppendUvarint(auth, all<<2)
	for k := range fields {
		auth = append(auth, byte(k))
	}
	var w wire.BitWriter
	w.Reset([]byte{byte(wire.KindState), 101})
	w.WriteExpGolomb(0, 0)
	for range 2 + 2*fields {
		w.WriteBits(0, 1)
	}
	w.WriteBits(0, uint(reg.Len()))
	w.WriteBits(1, 1) // common base: the newest image
	return [][]byte{page, {byte(wire.KindJoinFinal), 100, 1, 2, 2}, w.Finish(), auth}
}

// FuzzHostileHost: a host sends a welcomed tandem Client any sequence of
// lane messages, datagram messages and raw datagrams, with steps between:
// the client never panics. data is read as operations: a byte (mod 6: 0
// join lane, 1 control lane, 2 commands lane, 3 a datagram message, its
// kind the payload's first byte, 4 raw datagram bytes, 5 a step), a length
// byte and that many bytes.
func FuzzHostileHost(f *testing.F) {
	h := newHostileClient(f)
	seeds := hostileSeeds(h.client.reg)
	var seq []byte
	for _, m := range seeds {
		op := byte(0)
		if !wire.Kind(m[0]).IsLane() {
			op = 3
		}
		seq = append(append(seq, op, byte(len(m))), m...)
		seq = append(seq, 5, 0)
	}
	f.Add(seq)
	f.Add(append(append([]byte(nil), seq...), 5, 0, 5, 0, 3, 4, 2, 0xff, 0xff, 0x0f, 5, 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := newHostileClient(t)
		for n := 0; len(data) >= 2 && n < 64; n++ {
			op, k := data[0]%6, min(int(data[1]), len(data)-2)
			p := data[2 : 2+k]
			data = data[2+k:]
			switch op {
			case 0, 1, 2:
				if len(p) > 0 {
					h.host.SendLane([3]transport.Lane{transport.LaneJoin, transport.LaneControl, transport.LaneCommands}[op], p)
				}
			case 3:
				if len(p) > 0 {
					h.host.Queue(wire.Kind(p[0]%0x80), p[1:], 0)
				}
			case 4:
				h.htc.SendDatagram(p)
			case 5:
				h.step()
			}
		}
		for range 3 {
			h.step()
		}
	})
}

// TestHostileHostSeedsJoin: FuzzHostileHost's seeds join the client to
// their world, so the fuzzer starts from a client that holds one.
func TestHostileHostSeedsJoin(t *testing.T) {
	h := newHostileClient(t)
	for _, m := range hostileSeeds(h.client.reg) {
		if wire.Kind(m[0]).IsLane() {
			h.host.SendLane(transport.LaneJoin, m)
		} else {
			h.host.Queue(wire.Kind(m[0]), m[1:], 0)
		}
		h.step()
	}
	for range 5 {
		h.step()
	}
	st := h.client.session.Replicator().Stats()
	if !h.client.Joined() || h.client.w.ECS.Networked() != 2 || st.Malformed != 0 || st.AuthStates != 1 {
		t.Fatalf("joined %v, %d entities, stats %+v, err %v", h.client.Joined(), h.client.w.ECS.Networked(), st, h.client.session.Err())
	}
}
