package tandem

import (
	"context"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// fuzzCount is the command kind of FuzzHostPeer's game: a byte, refused
// when zero.
var fuzzCount = NewCommand("count", CommandCodec[uint8]{
	Append: func(dst []byte, v *uint8) []byte { return append(dst, *v) },
	Read:   func(r *wire.Reader, v *uint8) { *v = r.U8() },
}, func(w *World, p Peer, n uint8) error {
	if n == 0 {
		return Refuse("zero")
	}
	return nil
})

// FuzzHostPeer: an admitted player sends a Host any sequence of lane
// messages, datagrams, resumes and closes. The host never panics, and it
// steps on: every step asked of it runs. data is read as operations, each
// a byte (mod 8: 0–2 a lane message on that lane, 3 a datagram message of
// kind and payload framed by the player's connection, 4 raw datagram
// bytes, 5 a step, 6 a Resume naming the player on a new connection, 7 the
// player's connection closing), a length and that many bytes.
func FuzzHostPeer(f *testing.F) {
	cmd, _ := wire.Command{Op: 1, Kind: 0, Payload: []byte{3}}.Encode(nil)
	f.Add(append([]byte{1, byte(len(cmd))}, cmd...))
	f.Add([]byte{3, 3, 3, 1, 0, 5, 0, 3, 3, 1, 1})
	f.Add([]byte{3, 6, 3, 12, 1, 0x80, 0x14, 1, 5, 0, 5, 0})                   // an input drawn 10 frames behind
	f.Add([]byte{3, 9, 3, 12, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 5, 0, 5, 0}) // as far behind as 32 bits say
	f.Add([]byte{6, 0, 5, 0, 7, 0, 5, 0})
	f.Add([]byte{0, 2, 0x8a, 1, 2, 2, 0xc0, 1, 5, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
		n, err := mem.NewNetwork(clk, mem.Config{})
		if err != nil {
			t.Fatal(err)
		}
		l, _ := n.Listen("host")
		g := testGame()
		g.Commands = []Command{fuzzCount}
		h, err := NewHost(g, HostConfig{Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		h.Advance() // starts the host's clock
		steps := 0
		step := func() {
			for {
				ctx, cancel := context.WithTimeout(context.Background(), 0)
				hc, err := l.Accept(ctx)
				cancel()
				if err != nil {
					break
				}
				h.Accept(hc)
			}
			clk.Advance(g.step())
			if ran := h.Advance(); ran != 1 {
				t.Fatalf("step %d ran %d steps", steps, ran)
			}
			steps++
		}
		tc, _ := n.Dial(context.Background(), "host")
		hello, _ := wire.Hello{Version: wire.Version, Name: "mallory", Schema: g.Schema()}.Encode(nil)
		tc.SendMessage(transport.LaneControl, hello)
		var wl wire.Welcome
		for i := 0; wl.PeerID == 0 && i < 10; i++ {
			step()
			for {
				_, msg, ok := tc.RecvMessage()
				if !ok {
					break
				}
				if wire.Kind(msg[0]) == wire.KindWelcome {
					wl.Decode(msg)
				}
			}
		}
		if wl.PeerID == 0 {
			t.Fatal("no Welcome")
		}
		tc.SendMessage(transport.LaneControl, wire.WelcomeAck{PeerID: wl.PeerID, Token: wl.Token}.Encode(nil))
		step()
		cc, err := conn.New(tc, clk, conn.HandlerFuncs{}, conn.Config{})
		if err != nil {
			t.Fatal(err)
		}
		for len(data) >= 2 {
			op, k := data[0]%8, min(int(data[1]), len(data)-2)
			p := data[2 : 2+k]
			data = data[2+k:]
			switch op {
			case 0, 1, 2:
				if len(p) > 0 {
					tc.SendMessage(transport.Lane(op), p)
				}
			case 3:
				if len(p) > 0 {
					cc.Queue(wire.Kind(p[0]%0x80), p[1:], 0)
				}
			case 4:
				tc.SendDatagram(p)
			case 5:
				cc.Flush()
				step()
				cc.Poll()
			case 6:
				if rc, err := n.Dial(context.Background(), "host"); err == nil {
					var flags uint8
					if len(p) > 0 {
						flags = p[0] & wire.ResumeHoldsWorld
					}
					rc.SendMessage(transport.LaneControl, wire.Resume{Version: wire.Version, Flags: flags, PeerID: wl.PeerID, Token: wl.Token, Schema: g.Schema()}.Encode(nil))
				}
			case 7:
				tc.Close(transport.CloseTimeout, "gone")
			}
		}
		cc.Flush()
		for range 5 {
			step()
		}
	})
}
