package tandem

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/predict"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/session"
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
	return newHostileClientLimit(t, grace, dial, 0)
}

// newHostileClientLimit is newHostileClientWith with
// ClientConfig.MaxEntities maxEntities (0: its default).
func newHostileClientLimit(t testing.TB, grace uint32, dial bool, maxEntities int) *hostileClient {
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
	cc := ClientConfig[push]{Clock: clk, JoinTimeout: -1, MaxEntities: maxEntities}
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
// the client never panics, holds at most its MaxEntities networked
// entities, and once its session ends, it ended for one of the reasons a
// host's data gives (checkHostileEnd), counted, the host told it with the
// close code that goes with it; closed, it leaves no goroutine behind. data
// is read as operations: a byte (mod 6: 0 join lane, 1 control lane, 2
// commands lane, 3 a datagram message, its kind the payload's first byte,
// 4 raw datagram bytes, 5 a step), a length byte and that many bytes.
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
	// The join with a page of three more entities than the seeds' two:
	// past the bound.
	page := bytes.Clone(seeds[0])
	page[2] = 5
	item := bytes.Clone(page[4 : 4+(len(page)-4)/2])
	for id := range 3 {
		page = append(page, item...)
		page[len(page)-len(item)] = byte(3 + id)
	}
	f.Add(append(append([]byte{0, byte(len(page))}, page...), seq[2+len(seeds[0]):]...))
	// After the join, a State that spawns entities 3, 4 and 5, without
	// components (PROTOCOL.md §9.3): the third past the bound.
	fields := 0
	for c := range replicate.Component(h.client.reg.Len()) {
		fields += h.client.reg.Fields(c)
	}
	var sw wire.BitWriter
	sw.Reset([]byte{byte(wire.KindState), 102})
	sw.WriteExpGolomb(3, 0) // items
	sw.WriteBits(1, 7)      // the ids' stream: order 0, no zero flag
	sw.WriteBits(0, 1+2*uint(fields))
	sw.WriteBits(0, uint(h.client.reg.Len())) // common mask
	sw.WriteBits(1, 1)                        // common base: the newest image
	for _, gap := range []uint64{2, 0, 0} {
		sw.WriteExpGolomb(gap, 0)
		sw.WriteBits(0b010, 3) // a spawn
		sw.WriteExpGolomb(0, 0)
		sw.WriteBits(0, uint(h.client.reg.Len())+1) // no component, no snap
	}
	spawns := sw.Finish()
	f.Add(append(append(append([]byte(nil), seq...), 3, byte(len(spawns))), append(spawns, 5, 0)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		goroutines := runtime.NumGoroutine()
		h := newHostileClientLimit(t, 0, false, hostileMaxEntities)
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
				checkHostileEnd(t, h)
			}
		}
		for range 3 {
			h.step()
			checkHostileEnd(t, h)
		}
		h.client.Close()
		h.host.Close(transport.CloseNormal, "")
		h.l.Close()
		// Its goroutines end on their own after Close: given up to 2 s
		// (a loaded machine, the race detector), none is left.
		for deadline := time.Now().Add(2 * time.Second); runtime.NumGoroutine() > goroutines; {
			if time.Now().After(deadline) {
				t.Fatalf("%d goroutines 2 s after the client closed, %d before it started", runtime.NumGoroutine(), goroutines)
			}
			time.Sleep(time.Millisecond)
		}
	})
}

// hostileMaxEntities is FuzzHostileHost's ClientConfig.MaxEntities: the
// seeds' two entities and two more.
const hostileMaxEntities = 4

// checkHostileEnd checks FuzzHostileHost's client after a step: it holds at
// most hostileMaxEntities networked entities, and if its session ended, Err
// says why as a host's data can make it end, and the host was told so:
//   - too much malformed input (conn.ErrProtocol): more than the
//     connection's MaxMalformed, each counted in its Stats; closed with
//     CloseProtocol;
//   - a limit of the connection (conn.ErrLimit), counted in LimitClosures,
//     or the host's entities past MaxEntities (replicate.ErrTooManyEntities):
//     closed with CloseLimit;
//   - a join that did not bring the world it announced
//     (*replicate.JoinIncompleteError): closed with CloseProtocol;
//   - the host's refusal (ErrRefused, a *session.RejectError), the game's
//     Arrived hook failing on an entity (ErrHostData), more entities to
//     predict than predict's MaxOwned (predict.ErrTooManyOwned): the client
//     leaves (CloseNormal); a refusal that did not decode (ErrRefused,
//     session.ErrRejected): closed with CloseProtocol.
func checkHostileEnd(t *testing.T, h *hostileClient) {
	t.Helper()
	if n := h.client.w.ECS.Networked(); n > hostileMaxEntities {
		t.Fatalf("the client holds %d networked entities, MaxEntities %d (session %v, %v)", n, hostileMaxEntities, h.client.session.State(), h.client.Err())
	}
	if h.client.State() != session.Closed {
		return
	}
	err := h.client.Err()
	told, _ := errors.AsType[*transport.CloseError](h.htc.Err())
	st := h.client.session.Conn().Stats()
	var want transport.CloseCode
	switch pe, _ := errors.AsType[*conn.ProtocolError](err); {
	case err == nil:
		t.Fatalf("the session ended without an error; the host was told %v", h.htc.Err())
	case pe != nil:
		if pe.Count <= conn.DefaultMaxMalformed || st.Malformed < uint64(pe.Count) {
			t.Fatalf("closed for %d malformed inputs (MaxMalformed %d), the connection counted %d: %v", pe.Count, conn.DefaultMaxMalformed, st.Malformed, err)
		}
		want = transport.CloseProtocol
	case errors.Is(err, conn.ErrLimit):
		if _, ok := errors.AsType[*conn.LimitError](err); !ok || st.LimitClosures != 1 {
			t.Fatalf("closed for a limit, %d counted: %v", st.LimitClosures, err)
		}
		want = transport.CloseLimit
	case errors.Is(err, replicate.ErrTooManyEntities):
		want = transport.CloseLimit
	case errors.Is(err, replicate.ErrJoinIncomplete):
		if _, ok := errors.AsType[*replicate.JoinIncompleteError](err); !ok {
			t.Fatalf("an incomplete join not said by a *JoinIncompleteError: %v", err)
		}
		want = transport.CloseProtocol
	case errors.Is(err, ErrRefused):
		if !errors.Is(err, session.ErrRejected) {
			t.Fatalf("a refusal that is not session.ErrRejected: %v", err)
		}
		want = transport.CloseProtocol // a Reject that did not decode
		if _, ok := errors.AsType[*session.RejectError](err); ok {
			want = transport.CloseNormal
		}
	case errors.Is(err, ErrHostData), errors.Is(err, predict.ErrTooManyOwned):
		want = transport.CloseNormal
	default:
		t.Fatalf("the session ended for %q (%T), not a reason a host's data gives", err, err)
	}
	if told == nil || !told.Remote || told.Code != want {
		t.Fatalf("the session ended for %v; the host was told %v, want code %v", err, h.htc.Err(), want)
	}
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
