package session

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// badPeer misbehaves on a raw transport connection after (optionally) a
// valid Hello and (optionally) the WelcomeAck that admits it.
type badPeer struct {
	name  string
	tc    transport.Conn
	hello bool
	admit bool // answer the Welcome: an admitted peer that misbehaves
	act   func(tc transport.Conn, rng *rand.Rand)
	code  transport.CloseCode
}

// answer sends the WelcomeAck for a Welcome the peer received.
func answer(tc transport.Conn, msg []byte) {
	var w wire.Welcome
	if w.Decode(msg) == nil {
		tc.SendMessage(transport.LaneControl, wire.WelcomeAck{PeerID: w.PeerID, Token: w.Token}.Encode(nil))
	}
}

func TestBadPeersAreDroppedOthersUnaffected(t *testing.T) {
	var floodPacket, earlyPacket, kindPacket uint32
	clk := clock.NewFake(time.Unix(1000, 0))
	net, err := mem.NewNetwork(clk, mem.Config{})
	if err != nil {
		t.Fatal(err)
	}
	hw := ecs.NewWorld()
	hreg := replicate.NewRegistry(hw)
	hsched := ecs.NewSchedule(hw, clk, 0)
	mv := newMover(hw, 3, 100)
	hsched.Add("mover", mv)
	var left []Event
	host := NewHost(hsched, hreg, HostConfig{Clock: clk, OnEvent: func(e Event) {
		if e.Kind == PeerLeft || e.Kind == PeerRejected {
			left = append(left, e)
		}
	}})
	l, _ := net.Listen("host")
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 7))
	garbage := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return b
	}
	bad := []*badPeer{
		{name: "silent", hello: true, code: transport.CloseTimeout,
			act: func(transport.Conn, *rand.Rand) {}},
		{name: "flood", hello: true, admit: true, code: transport.CloseLimit,
			act: func(tc transport.Conn, _ *rand.Rand) {
				// Well-formed numbered datagrams, far more than a tick holds.
				for range 400 {
					h := wire.Header{Numbered: true, Packet: floodPacket, Floor: floodPacket, ReorderFloor: floodPacket}
					b, err := h.Append(nil)
					if err != nil {
						panic(err)
					}
					tc.SendDatagram(b)
					floodPacket++
				}
			}},
		{name: "garbage", hello: true, admit: true, code: transport.CloseProtocol,
			act: func(tc transport.Conn, _ *rand.Rand) {
				tc.SendDatagram(garbage(1 + rng.IntN(1000)))
			}},
		{name: "lane-garbage", hello: false, code: transport.CloseProtocol,
			act: func(tc transport.Conn, _ *rand.Rand) {
				tc.SendMessage(transport.LaneControl, garbage(1+rng.IntN(100)))
			}},
		{name: "lane-flood", hello: true, admit: true, code: transport.CloseLimit,
			act: func(tc transport.Conn, _ *rand.Rand) {
				// 64 KiB messages nobody asked for, 16 a tick: 60 MiB/s.
				msg := make([]byte, 64<<10)
				msg[0] = byte(wire.KindGameLane)
				for range 16 {
					tc.SendMessage(transport.LaneCommands, msg)
				}
			}},
		{name: "pre-admission-datagrams", hello: true, code: transport.CloseProtocol,
			act: func(tc transport.Conn, _ *rand.Rand) {
				h := wire.Header{Numbered: true, Packet: earlyPacket, Floor: earlyPacket, ReorderFloor: earlyPacket}
				earlyPacket++
				b, _ := h.Append(nil)
				tc.SendDatagram(wire.AppendMessage(b, wire.KindInput, []byte{1}))
			}},
		{name: "engine-kinds", hello: true, admit: true, code: transport.CloseProtocol,
			act: func(tc transport.Conn, _ *rand.Rand) {
				// Kinds the engine never takes from a client: a reserved
				// lane kind, a Receipt, the reserved Spawn datagram.
				tc.SendMessage(transport.LaneCommands, []byte{0x8a, 1})
				tc.SendMessage(transport.LaneControl, []byte{byte(wire.KindReceipt), 1})
				h := wire.Header{Numbered: true, Packet: kindPacket, Floor: kindPacket, ReorderFloor: kindPacket}
				kindPacket++
				b, _ := h.Append(nil)
				tc.SendDatagram(wire.AppendMessage(b, wire.KindSpawn, []byte{1}))
			}},
		{name: "game-kinds-unheard", hello: true, admit: true, code: transport.CloseProtocol,
			act: func(tc transport.Conn, _ *rand.Rand) {
				// The game's own kinds, to a host with no hook for them.
				tc.SendMessage(transport.LaneCommands, []byte{byte(wire.KindGameLane), 1})
			}},
		{name: "hello-twice", hello: true, admit: true, code: transport.CloseProtocol,
			act: func(tc transport.Conn, _ *rand.Rand) {
				msg, _ := wire.Hello{Version: wire.Version, Name: "again"}.Encode(nil)
				tc.SendMessage(transport.LaneControl, msg)
			}},
	}
	accept := func() {
		acceptPending(l, host)
	}
	good := dialClient(t, ctx, net, "host", clk, "good")
	for _, b := range bad {
		b.tc, err = net.Dial(ctx, "host")
		if err != nil {
			t.Fatal(err)
		}
		if b.hello {
			msg, _ := wire.Hello{Version: wire.Version, Name: b.name}.Encode(nil)
			b.tc.SendMessage(transport.LaneControl, msg)
		}
	}
	for range 20 * 60 {
		clk.Advance(ecs.DefaultStep)
		accept()
		hsched.Step()
		good.sched.Step()
		for _, b := range bad {
			for {
				_, msg, ok := b.tc.RecvMessage()
				if !ok {
					break
				}
				if b.admit && wire.Kind(msg[0]) == wire.KindWelcome {
					answer(b.tc, msg)
				}
			}
			for {
				if _, ok := b.tc.RecvDatagram(); !ok {
					break
				}
			}
			if b.tc.Err() == nil {
				b.act(b.tc, rng)
			}
		}
	}
	for _, b := range bad {
		var ce *transport.CloseError
		if !errors.As(b.tc.Err(), &ce) {
			t.Errorf("%s: still connected (%v)", b.name, b.tc.Err())
			continue
		}
		if ce.Code != b.code {
			t.Errorf("%s: closed with %v (%s), want %v", b.name, ce.Code, ce.Reason, b.code)
		}
	}
	if len(left) != len(bad) {
		t.Errorf("host reported %d peers gone, want %d: %v", len(left), len(bad), left)
	}
	if got := host.Peers(); len(got) != 1 || got[0] != good.cl.Peer() {
		t.Fatalf("host peers %v, want only the good client %d", got, good.cl.Peer())
	}
	mv.still = true
	for range 120 {
		clk.Advance(ecs.DefaultStep)
		hsched.Step()
		good.sched.Step()
	}
	if good.cl.State() != Playing {
		t.Fatalf("good client: %v %v", good.cl.State(), good.cl.Err())
	}
	sameImage(t, "good", hw, hreg, good.w, good.reg)
}

// TestReportMalformedDropsPeer: what a layer above the session refuses counts
// against the peer like malformed datagrams do.
func TestReportMalformedDropsPeer(t *testing.T) {
	wd := newWorld(t, condition.Config{}, HostConfig{})
	c := wd.join("sloppy")
	for range conn.DefaultMaxMalformed + 1 {
		wd.host.ReportMalformed(c.cl.Peer(), errors.New("input does not decode"))
	}
	for range 10 {
		wd.step()
	}
	var ce *transport.CloseError
	if !errors.As(c.cl.Err(), &ce) || ce.Code != transport.CloseProtocol {
		t.Fatalf("client error %v, want a close for protocol violation", c.cl.Err())
	}
}
