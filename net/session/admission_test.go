package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// rawPeer is a connection driven by hand: what a hostile or broken client
// sends.
type rawPeer struct {
	tc      transport.Conn
	welcome wire.Welcome
	got     [][]byte // lane messages received
}

// dialRaw connects to the world's host and says Hello with name (none if
// empty) and version.
func (wd *world) dialRaw(name string, version uint16) *rawPeer {
	wd.t.Helper()
	tc, err := wd.net.Dial(context.Background(), "host")
	if err != nil {
		wd.t.Fatal(err)
	}
	if name != "" {
		// Encode refuses nothing CheckName would: build the Hello by hand.
		w := wire.NewWriter(nil)
		w.U8(uint8(wire.KindHello))
		w.U16(version)
		w.String(name)
		w.U8(0)  // flags: a player
		w.U64(0) // schema: none stated
		tc.SendMessage(transport.LaneControl, w.Bytes())
	}
	return &rawPeer{tc: tc}
}

// read takes what arrived and remembers the Welcome.
func (r *rawPeer) read() {
	for {
		_, msg, ok := r.tc.RecvMessage()
		if !ok {
			break
		}
		r.got = append(r.got, append([]byte(nil), msg...))
		if wire.Kind(msg[0]) == wire.KindWelcome {
			r.welcome.Decode(msg)
		}
	}
	for {
		if _, ok := r.tc.RecvDatagram(); !ok {
			break
		}
	}
}

// reject returns the Reject the peer received, if any.
func (r *rawPeer) reject() (wire.Reject, bool) {
	for _, m := range r.got {
		var rj wire.Reject
		if rj.Decode(m) == nil {
			return rj, true
		}
	}
	return wire.Reject{}, false
}

// TestSquattersCannotKeepAPlayerOut: eight connections say Hello and never
// answer the Welcome, reconnecting as soon as the host drops them, on a host
// of eight player slots. They never hold a slot: a real client dialing in
// the middle of it is admitted and plays.
func TestSquattersCannotKeepAPlayerOut(t *testing.T) {
	wd := newWorld(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{MaxPeers: 8})
	squatters := make([]*rawPeer, 8)
	redials := 0
	for i := range squatters {
		squatters[i] = wd.dialRaw("squatter", wire.Version)
	}
	var real *testClient
	dialedAt := 0
	for step := range 12 * 60 {
		if step == 5*60 {
			real = dialClient(t, context.Background(), wd.net, "host", wd.clk, "real")
			wd.clients = append(wd.clients, real)
			dialedAt = step
		}
		wd.step()
		for i, s := range squatters {
			s.read()
			if s.tc.Err() != nil {
				squatters[i] = wd.dialRaw("squatter", wire.Version)
				redials++
			}
		}
		if real == nil && len(wd.host.Peers()) != 0 {
			t.Fatalf("step %d: squatters hold slots %v", step, wd.host.Peers())
		}
		if real != nil && real.cl.State() == Playing && dialedAt >= 0 {
			if took := step - dialedAt; took > 30 {
				t.Fatalf("the real client took %d steps to join among squatters", took)
			} else {
				t.Logf("the real client played %v after dialing, among 8 squatters", time.Duration(took)*ecs.DefaultStep)
			}
			dialedAt = -1
		}
	}
	if real.cl.State() != Playing || len(wd.host.Peers()) != 1 {
		t.Fatalf("real client %v (%v); host peers %v", real.cl.State(), real.cl.Err(), wd.host.Peers())
	}
	if redials < 24 {
		t.Fatalf("squatters were dropped %d times in 12 s; the handshake deadline is 3 s", redials)
	}
}

// TestPendingConnectionsEvictOldest: past MaxPending connections in their
// handshake, a new connection evicts the oldest silent one, so the newest —
// perhaps a real player — gets in, and one whose handshake is under way (it
// said Hello) is kept over the silent, however old.
func TestPendingConnectionsEvictOldest(t *testing.T) {
	wd := newWorld(t, condition.Config{}, HostConfig{MaxPending: 4})
	slow := wd.dialRaw("slow", wire.Version) // says Hello, then takes its time
	wd.step()
	var silent []*rawPeer
	for range 10 {
		silent = append(silent, wd.dialRaw("", 0))
	}
	wd.step()
	real := wd.join("real")
	for i, s := range silent {
		if (s.tc.Err() != nil) != (i < 8) {
			t.Fatalf("silent connection %d: %v; want the 8 oldest evicted", i, s.tc.Err())
		}
	}
	if slow.tc.Err() != nil {
		t.Fatalf("the connection that said Hello was evicted for silent ones: %v", slow.tc.Err())
	}
	if st := wd.host.Stats(); st.Evicted != 8 {
		t.Fatalf("host stats %+v, want 8 evictions", st)
	}
	if len(wd.host.Peers()) != 1 || wd.host.Peers()[0] != real.cl.Peer() {
		t.Fatalf("host peers %v, want the real client", wd.host.Peers())
	}
}

// TestHelloRefusals: a Hello of another protocol version, with a name that
// breaks the name rule, or past the per-address cap of players gets a Reject
// with its code and reason before the connection closes; the host's
// PeerRejected comes with the Reject, once.
func TestHelloRefusals(t *testing.T) {
	cases := []struct {
		name, player string
		version      uint16
		code         wire.RejectCode
		says         string
	}{
		{"old version", "old", wire.Version - 1, wire.RejectVersion, "update the older side"},
		{"newline in name", "ann\nhost: admin joined", wire.Version, wire.RejectName, "not printable"},
		{"right-to-left override", "\u202enimda", wire.Version, wire.RejectName, "not printable"},
		{"blank name", " ", wire.Version, wire.RejectName, "space"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var events []Event
			wd := newWorld(t, condition.Config{}, HostConfig{OnEvent: func(e Event) { events = append(events, e) }})
			p := wd.dialRaw(tc.player, tc.version)
			for range 5 {
				wd.step()
				p.read()
			}
			rj, ok := p.reject()
			if !ok || rj.Code != tc.code || rj.Version != wire.Version || !strings.Contains(rj.Reason, tc.says) {
				t.Fatalf("got %+v %v, want a Reject %v saying %q", rj, ok, tc.code, tc.says)
			}
			if p.tc.Err() != nil {
				t.Fatalf("closed before the client could read the Reject: %v", p.tc.Err())
			}
			// The host tells of the refusal when it sends it, not when the
			// connection ends after its linger.
			if len(events) != 1 || events[0].Kind != PeerRejected {
				t.Fatalf("host events %v once the Reject arrived, want the rejection", events)
			}
			for range rejectLinger/ecs.DefaultStep + 2 {
				wd.step()
			}
			if p.tc.Err() == nil {
				t.Fatal("a rejected connection the client keeps open is never closed")
			}
			var re *RejectError
			if len(events) != 1 || events[0].Kind != PeerRejected || !errors.As(events[0].Err, &re) || re.Code != tc.code {
				t.Fatalf("host events %v, want one rejection with the Reject", events)
			}
			if len(wd.host.Peers()) != 0 {
				t.Fatal("a refused peer was admitted")
			}
		})
	}
}

// TestRejectRoundTrip: a client refused by a full host ends with a
// RejectError carrying the host's code and reason (errors.Is ErrRejected),
// and closes the connection itself.
func TestRejectRoundTrip(t *testing.T) {
	wd := newWorld(t, condition.Config{Latency: 30 * time.Millisecond}, HostConfig{MaxPeers: 1})
	wd.join("first")
	late := dialClient(t, context.Background(), wd.net, "host", wd.clk, "late")
	wd.clients = append(wd.clients, late)
	for i := 0; late.cl.State() != Closed; i++ {
		if i > 60 {
			t.Fatalf("the refused client is still %v", late.cl.State())
		}
		wd.step()
	}
	var re *RejectError
	if !errors.Is(late.cl.Err(), ErrRejected) || !errors.As(late.cl.Err(), &re) {
		t.Fatalf("Err = %v, want a RejectError", late.cl.Err())
	}
	if re.Code != wire.RejectFull || !strings.Contains(re.Reason, "host full (1 player)") || strings.Count(re.Error(), "host full") != 1 {
		t.Fatalf("RejectError %+v (%q), want host full, said once", *re, re)
	}
	wd.step() // the host sees the client's close
	if st := wd.host.Stats(); st.Admitted != 1 || st.Rejected != 1 {
		t.Fatalf("host stats %+v", st)
	}
}

// TestAdmittedPeerAckingOnlyItsNewest: a peer that finished its handshake
// and then acknowledges only the newest packet, every fifth tick, looks
// alive to a rule on the latest acknowledgement, and kept its slot for 34 s
// (1,024 packets unsettled); it is dropped once its oldest datagram in
// flight is AckTimeout old.
func TestAdmittedPeerAckingOnlyItsNewest(t *testing.T) {
	wd := newWorld(t, condition.Config{}, HostConfig{})
	p := wd.dialRaw("sly", wire.Version)
	admittedAt, droppedAt := -1, -1
	for step := 0; step < 40*60; step++ {
		wd.step()
		for {
			_, msg, ok := p.tc.RecvMessage()
			if !ok {
				break
			}
			if wire.Kind(msg[0]) == wire.KindWelcome {
				answer(p.tc, msg)
			}
		}
		newest, any := uint32(0), false
		for {
			d, ok := p.tc.RecvDatagram()
			if !ok {
				break
			}
			r := wire.NewReader(d)
			var h wire.Header
			if h.Decode(&r) == nil && h.Numbered {
				newest, any = max(newest, h.Packet), true
			}
		}
		if admittedAt < 0 && len(wd.host.Peers()) == 1 {
			admittedAt = step
		}
		if any && step%5 == 0 {
			h := wire.Header{HasAck: true, Ack: wire.AckFrame{First: newest, DiscardFloor: newest, NumRuns: 1}}
			h.Ack.Runs[0] = 1
			b, _ := h.Append(nil)
			p.tc.SendDatagram(b)
		}
		if p.tc.Err() != nil {
			droppedAt = step
			break
		}
	}
	var ce *transport.CloseError
	if admittedAt < 0 || !errors.As(p.tc.Err(), &ce) || ce.Code != transport.CloseTimeout {
		t.Fatalf("admitted at step %d; closed with %v, want a timeout", admittedAt, p.tc.Err())
	}
	held := time.Duration(droppedAt-admittedAt) * ecs.DefaultStep
	if limit := 10*time.Second + time.Second; held > limit {
		t.Fatalf("the peer held its slot %v, past AckTimeout (10 s) and a second", held)
	}
	t.Logf("a peer acknowledging only its newest packet held its slot %v (%s)", held.Round(100*time.Millisecond), ce.Reason)
}

// TestClientChecksItsName: NewClient refuses a name that breaks the rule
// before it says anything.
func TestClientChecksItsName(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	net, _ := mem.NewNetwork(clk, mem.Config{})
	l, _ := net.Listen("host")
	defer l.Close()
	for _, name := range []string{"", "tab\tname", strings.Repeat("x", 33)} {
		tc, _ := net.Dial(context.Background(), "host")
		w := ecs.NewWorld()
		_, err := NewClient(ecs.NewSchedule(w, clk, 0), replicate.NewRegistry(w), tc, ClientConfig{Name: name, Clock: clk})
		if !errors.Is(err, wire.ErrBadName) {
			t.Errorf("NewClient(%q) = %v, want wire.ErrBadName", name, err)
		}
	}
}

// TestMessagesOvertakingTheWelcomeAckAreHeld: a command a client sends right
// after its WelcomeAck, on a lane faster than the control lane, reaches the
// game once the peer is admitted instead of breaking the handshake.
func TestMessagesOvertakingTheWelcomeAckAreHeld(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	cfg := mem.Config{}
	cfg.LaneDelay[transport.LaneControl] = 100 * time.Millisecond
	net, _ := mem.NewNetwork(clk, cfg)
	hw := ecs.NewWorld()
	hsched := ecs.NewSchedule(hw, clk, 0)
	var got []string
	host := NewHost(hsched, replicate.NewRegistry(hw), HostConfig{Clock: clk,
		OnLaneMessage: func(p ecs.PeerID, _ transport.Lane, msg []byte) { got = append(got, string(msg[1:])) }})
	l, _ := net.Listen("host")
	wd := &world{t: t, clk: clk, net: net, hw: hw, hsched: hsched, host: host, l: l}
	p := wd.dialRaw("eager", wire.Version)
	for step := 0; step < 60 && len(got) == 0; step++ {
		wd.step()
		for {
			_, msg, ok := p.tc.RecvMessage()
			if !ok {
				break
			}
			if wire.Kind(msg[0]) == wire.KindWelcome {
				answer(p.tc, msg)
				p.tc.SendMessage(transport.LaneCommands, []byte{byte(wire.KindGameLane), 'g', 'o'})
			}
		}
	}
	if len(got) != 1 || got[0] != "go" || len(host.Peers()) != 1 || p.tc.Err() != nil {
		t.Fatalf("the game got %q, peers %v, connection %v; want the command once the peer is admitted", got, host.Peers(), p.tc.Err())
	}
}
