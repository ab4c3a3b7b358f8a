package session

import (
	"errors"
	"slices"
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// A crowd whose WelcomeAcks arrive in one step is admitted AdmitPerStep a
// step, in the order it answered, and all of it plays; without a bound it
// comes in at once.
func TestAdmitPerStepLetsACrowdInAFewAStep(t *testing.T) {
	for _, limit := range []int{0, 3, -1} {
		const crowd = 10
		wd := newWorld(t, condition.Config{}, HostConfig{AdmitPerStep: limit, MaxPeers: crowd, MaxPeersPerAddress: crowd, MaxPendingPerAddress: crowd})
		var order []ecs.PeerID
		perStep := map[int]int{}
		step := 0
		wd.host.cfg.OnJoin = func(p ecs.PeerID, _ string) error {
			order = append(order, p)
			perStep[step]++
			wd.mv.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p})
			return nil
		}
		for i := range crowd {
			wd.clients = append(wd.clients, dialClient(t, t.Context(), wd.net, "host", wd.clk, string(rune('a'+i))))
		}
		for ; step < 600; step++ {
			wd.step()
			playing := 0
			for _, c := range wd.clients {
				if c.cl.State() == Playing {
					playing++
				}
			}
			if playing == crowd {
				break
			}
		}
		want := limit
		switch limit {
		case 0:
			want = 4 // the default
		case -1:
			want = crowd
		}
		most, steps := 0, 0
		for _, n := range perStep {
			most = max(most, n)
			steps++
		}
		if len(order) != crowd || most != want || steps != (crowd+want-1)/want {
			t.Fatalf("AdmitPerStep %d: %d admitted over %d steps, at most %d a step (%v); want %d, %d a step", limit, len(order), steps, most, perStep, crowd, want)
		}
		if !slices.IsSorted(order) {
			t.Fatalf("AdmitPerStep %d: admitted in the order %v, not that of the Welcomes", limit, order)
		}
		if st := wd.host.Stats(); st.Admitted != crowd || st.Rejected != 0 {
			t.Fatalf("AdmitPerStep %d: stats %+v", limit, st)
		}
	}
}

// A peer whose WelcomeAck waits its turn may not answer the Welcome again:
// its connection is closed for breaking the protocol, and the others come
// in.
func TestWaitingPeerAnsweringTwiceIsClosed(t *testing.T) {
	wd := newWorld(t, condition.Config{}, HostConfig{AdmitPerStep: 1, MaxPeersPerAddress: 4})
	var peers []*rawPeer
	for _, name := range []string{"first", "second", "third"} {
		peers = append(peers, wd.dialRaw(name, wire.Version))
	}
	wd.step()
	ack := func(p *rawPeer) {
		p.tc.SendMessage(transport.LaneControl, wire.WelcomeAck{PeerID: p.welcome.PeerID, Token: p.welcome.Token}.Encode(nil))
	}
	for _, p := range peers {
		p.read()
		if p.welcome.PeerID == 0 {
			t.Fatal("no Welcome")
		}
		ack(p)
	}
	wd.step()
	if st := wd.host.Stats(); st.Admitted != 1 {
		t.Fatalf("%d admitted in a step of AdmitPerStep 1", st.Admitted)
	}
	// The second's turn comes at the next step; the third still waits
	// when its second answer arrives.
	third := peers[2]
	ack(third)
	wd.step()
	third.read()
	var ce *transport.CloseError
	if !errors.As(third.tc.Err(), &ce) || ce.Code != transport.CloseProtocol {
		t.Fatalf("a peer that answered its Welcome twice: %v; want closed for breaking the protocol", third.tc.Err())
	}
	for range 3 {
		wd.step()
	}
	if st := wd.host.Stats(); st.Admitted != 2 {
		t.Fatalf("%d admitted; want the first two", st.Admitted)
	}
}

// Between steps (Handshake) the bound counts toward the next step: a crowd
// is let in AdmitPerStep at a time, the rest after the step, whose joins
// then begin between steps as the first ones' did.
func TestHandshakeAdmitsAFewAStep(t *testing.T) {
	wd := stillWorld(t, 50, nil)
	wd.host.cfg.MaxPeersPerAddress, wd.host.cfg.MaxPendingPerAddress = 8, 8
	peers := wd.answered("a", "b", "c", "d", "e", "f")
	pages := func() (n int) {
		for _, p := range peers {
			p.read()
			for _, m := range p.got {
				if wire.Kind(m[0]) == wire.KindJoinFinal {
					n++
				}
			}
		}
		return n
	}
	for range 20 {
		wd.host.Handshake()
	}
	if st := wd.host.Stats(); st.Admitted != 4 || pages() != 4 {
		t.Fatalf("between two steps: %d admitted, %d joins sent; want 4 of 6", st.Admitted, pages())
	}
	if wd.host.Handshake() {
		t.Fatal("Handshake reports more to do with only WelcomeAcks waiting for the next step")
	}
	wd.hsched.Step()
	for range 20 {
		wd.host.Handshake()
	}
	if st := wd.host.Stats(); st.Admitted != 6 || pages() != 6 {
		t.Fatalf("after the step: %d admitted, %d joins sent; want all 6", st.Admitted, pages())
	}
}

// A peer whose WelcomeAck waits its turn has finished its handshake: the
// connections that arrive after it do not push it out as a pending one
// (MaxPending), and it comes in at its turn, as it would with no bound.
func TestWaitingPeerIsNotEvicted(t *testing.T) {
	for _, limit := range []int{-1, 1} {
		wd := stillWorld(t, 50, nil)
		cfg := &wd.host.cfg
		cfg.AdmitPerStep, cfg.MaxPending = limit, 5
		cfg.MaxPeers, cfg.MaxPeersPerAddress, cfg.MaxPendingPerAddress = 16, 16, 16
		peers := wd.answered("a", "b", "c", "d", "e")
		wd.host.Handshake() // a comes in; with the bound, b to e wait their turn
		for _, name := range []string{"f", "g"} {
			wd.dialRaw(name, wire.Version)
			acceptPending(wd.l, wd.host)
			wd.host.Handshake()
		}
		for range 5 {
			wd.hsched.Step()
		}
		for _, p := range peers {
			p.read()
			if err := p.tc.Err(); err != nil {
				t.Fatalf("AdmitPerStep %d: a peer that answered its Welcome before two more arrived was closed: %v", limit, err)
			}
		}
		if st := wd.host.Stats(); st.Admitted != 5 || st.Evicted != 0 {
			t.Fatalf("AdmitPerStep %d: %d admitted, %d evicted; want the 5 that answered, none", limit, st.Admitted, st.Evicted)
		}
	}
}

// More WelcomeAcks waiting than the host has places: the one past them is
// refused as the host being full, at once, rather than held to be refused
// at its turn.
func TestWaitingPastThePlacesIsRefused(t *testing.T) {
	wd := stillWorld(t, 50, nil)
	cfg := &wd.host.cfg
	cfg.AdmitPerStep, cfg.MaxPeers = 1, 3
	cfg.MaxPeersPerAddress, cfg.MaxPendingPerAddress = 16, 16
	peers := wd.answered("a", "b", "c", "d", "e")
	wd.host.Handshake() // a comes in, b to d wait (3 places), e is refused
	e := peers[4]
	e.read()
	if rj, ok := e.reject(); !ok || rj.Code != wire.RejectFull {
		t.Fatalf("the fifth WelcomeAck with three waiting for three places: reject %+v (%v); want RejectFull", rj, ok)
	}
	for range 5 {
		wd.hsched.Step()
	}
	if st := wd.host.Stats(); st.Admitted != 3 || st.Rejected != 2 {
		t.Fatalf("%d admitted, %d refused; want 3 (the places) and 2", st.Admitted, st.Rejected)
	}
}

// answered dials the host with a raw peer for each name, lets the host
// welcome them between steps (Handshake), and answers each Welcome with its
// WelcomeAck, not yet read by the host.
func (wd *world) answered(names ...string) []*rawPeer {
	wd.t.Helper()
	var peers []*rawPeer
	for _, name := range names {
		peers = append(peers, wd.dialRaw(name, wire.Version))
	}
	acceptPending(wd.l, wd.host)
	wd.host.Handshake()
	for i, p := range peers {
		p.read()
		if len(p.got) == 0 {
			wd.t.Fatalf("%s got no Welcome", names[i])
		}
		answer(p.tc, p.got[0])
	}
	return peers
}
