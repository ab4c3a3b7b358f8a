package session

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/quicnet"
)

// deafSocket is a UDP socket that, once deaf, drops what arrives (what it
// writes still goes): a link dark towards the client only.
type deafSocket struct {
	net.PacketConn
	deaf *atomic.Bool
}

func (c deafSocket) ReadFrom(p []byte) (int, net.Addr, error) {
	for {
		n, a, err := c.PacketConn.ReadFrom(p)
		if err != nil || !c.deaf.Load() {
			return n, a, err
		}
	}
}

// Over QUIC, a kept ticket's Resumed that never reaches the new process
// (its socket deaf once the Resume left) leaves the old token good: the
// host lets it go only when the client acknowledges the new one, not when
// its transport guesses the Resumed arrived, and the client's next Resume,
// with the only token it holds, takes the place.
func TestAKeptTicketsLostResumedOverQUIC(t *testing.T) {
	ht, err := quicnet.New(quicnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := ht.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.Real{}
	hw := ecs.NewWorld()
	hsched := ecs.NewSchedule(hw, clk, 0)
	mv := newMover(hw, 2, 50)
	hsched.Add("mover", mv)
	host := NewHost(hsched, replicate.NewRegistry(hw), HostConfig{Clock: clk, Grace: time.Minute})
	host.Serve(l)
	defer host.Close()
	addr := l.Addr().String()

	var annDark atomic.Bool
	at, _ := quicnet.New(quicnet.Config{Fingerprint: ht.Fingerprint(), WrapPacketConn: func(pc net.PacketConn) (net.PacketConn, error) {
		return deafSocket{pc, &annDark}, nil
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ann := dialClient(t, ctx, at, addr, clk, "ann")
	clients := []*testClient{ann}
	tick := time.NewTicker(ecs.DefaultStep)
	defer tick.Stop()
	step := func() {
		<-tick.C
		hsched.Advance()
		for _, c := range clients {
			c.sched.Advance()
		}
	}
	for i := 0; ann.cl.State() != Playing; i++ {
		if i > 600 {
			t.Fatalf("ann: %v %v", ann.cl.State(), ann.cl.Err())
		}
		step()
	}
	tk, _ := ann.cl.Ticket()
	annDark.Store(true) // ann's process is gone (killed)
	clients = nil

	var bDeaf atomic.Bool
	bt, _ := quicnet.New(quicnet.Config{Fingerprint: ht.Fingerprint(), WrapPacketConn: func(pc net.PacketConn) (net.PacketConn, error) {
		return deafSocket{pc, &bDeaf}, nil
	}})
	ct, _ := quicnet.New(quicnet.Config{Fingerprint: ht.Fingerprint()})
	tc, err := bt.Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	w := ecs.NewWorld()
	b := &testClient{w: w, reg: replicate.NewRegistry(w), sched: ecs.NewSchedule(w, clk, 0)}
	var events []Event
	b.cl, err = NewClient(b.sched, b.reg, tc, ClientConfig{Name: "ann", Clock: clk, Ticket: tk,
		Dial:    func(ctx context.Context) (transport.Conn, error) { return ct.Dial(ctx, addr) },
		OnEvent: func(e Event) { events = append(events, e) }})
	if err != nil {
		t.Fatal(err)
	}
	bDeaf.Store(true) // the Resume is on its way; nothing reaches b from now on
	clients = []*testClient{b}
	// Past the time quicnet takes the Resumed for delivered (a round trip
	// and three probe timeouts), the host still holds the old token.
	for i := 0; i < 90 || host.known(tk.Peer) == nil || !host.known(tk.Peer).prevGood(); i++ {
		if i > 600 {
			t.Fatal("the host never took the kept ticket")
		}
		step()
	}
	tc.Close(transport.CloseTimeout, "b's process noticed the silence") // as its ack timeout would
	for i := 0; (b.cl.State() != Playing || b.cl.Peer() == 0) && b.cl.State() != Closed; i++ {
		if i > 20*60 {
			t.Fatalf("b: %v %v", b.cl.State(), b.cl.Err())
		}
		step()
	}
	if b.cl.Peer() != tk.Peer {
		var kinds []string
		for _, e := range events {
			s := e.Kind.String()
			if e.Err != nil {
				s += ": " + e.Err.Error()
			}
			kinds = append(kinds, s)
		}
		t.Fatalf("the new process whose Resumed was lost came back as peer %d, not the ticket's %d; its events %q", b.cl.Peer(), tk.Peer, kinds)
	}
}
