package session

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// A crowd of resumes waits its turn (AdmitPerStep) past HandshakeTimeout
// and past MaxPending without being closed: a Resume in line has spoken and
// shown its token, as a WelcomeAck in line has finished its handshake. Each
// player comes back at its first try, one a step, as the same peer. (Closed
// at the timeout, the ones at the back of the line dialed again, each time
// behind the newer ones.)
func TestResumesInLineOutwaitTheHandshakeTimeout(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		const n = 16
		cfg := HostConfig{AdmitPerStep: 1, HandshakeTimeout: 100 * time.Millisecond, MaxPending: n,
			MaxPeers: n + 8, MaxPeersPerAddress: n + 8, MaxPendingPerAddress: n}
		r := newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond}, cfg)
		var cs []*resumer
		peers := map[*resumer]ecs.PeerID{}
		for i := range n {
			c := r.join(fmt.Sprintf("p%02d", i))
			cs = append(cs, c)
			peers[c] = c.cl.Peer()
		}
		for _, c := range cs {
			c.conn().Close(transport.CloseTimeout, "the host stopped answering")
		}
		back := 0
		for i := 0; back < n; i++ {
			if i > 10*60 {
				t.Fatalf("%d of %d players back after 10 s", back, n)
			}
			r.step()
			if i == 3 {
				// Strangers that say Hello between steps and never answer
				// their Welcome do not reach MaxPending with the Resumes in
				// line, nor push them out.
				for j := range 8 {
					tc, err := r.net.Dial(t.Context(), "host")
					if err != nil {
						t.Fatal(err)
					}
					hello, err := wire.Hello{Version: wire.Version, Name: fmt.Sprintf("stranger%d", j), Schema: r.schema}.Encode(nil)
					if err != nil {
						t.Fatal(err)
					}
					tc.SendMessage(transport.LaneControl, hello)
					r.clk.Advance(6 * time.Millisecond)
					r.acceptWaiting()
					r.host.Handshake()
				}
			}
			back = 0
			for _, c := range cs {
				if c.cl.State() == Playing && c.cl.Resumes() == 1 {
					back++
				}
			}
		}
		for _, c := range cs {
			if c.cl.Peer() != peers[c] || len(c.conns) != 2 {
				t.Fatalf("peer %d came back as peer %d (was %d) on its connection %d; want the same peer at its first try",
					peers[c], c.cl.Peer(), peers[c], len(c.conns)-1)
			}
		}
		if st := r.host.Stats(); st.Resumed != n || st.Evicted != 0 {
			t.Fatalf("host took %d resumes and evicted %d connections; want %d and none", st.Resumed, st.Evicted, n)
		}
	})
}

// The line of Resumes keeps their order and one place a peer: a Resume
// taken between steps while others wait in line goes behind them (it took
// the next step's turn ahead of them, and they waited on while Resumes kept
// coming), and a peer that comes back on a newer connection while its older
// one waits in line keeps one place, the newer one's: the older is closed
// and never answered (answered after the newer one was, it took the peer
// from the live connection and ended it).
func TestTheLineOfResumesKeepsItsOrderAndOnePlaceAPeer(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond}, HostConfig{AdmitPerStep: 1, MaxPeersPerAddress: 8, MaxPendingPerAddress: 8})
		var peers []ecs.PeerID
		var tokens [][wire.TokenLen]byte
		for _, name := range []string{"a", "b", "c", "d"} {
			c := r.join(name)
			peers, tokens = append(peers, c.cl.Peer()), append(tokens, c.cl.Welcome().Token)
		}
		for _, c := range r.clients {
			r.breakPeer(c)
		}
		r.clients = nil // raw peers from now on
		r.events = nil
		resume := func(i int) *rawPeer { return r.rawResume(peers[i], tokens[i], wire.ResumeHoldsWorld) }
		a, b, cOld := resume(0), resume(1), resume(2)
		r.clk.Advance(6 * time.Millisecond)
		r.step() // a is taken; b and c wait in line
		d := resume(3)
		r.clk.Advance(6 * time.Millisecond)
		r.acceptWaiting()
		r.host.Handshake() // between steps: d goes behind them
		cNew := resume(2)
		r.clk.Advance(6 * time.Millisecond)
		r.acceptWaiting()
		r.host.Handshake() // c's newer connection takes its place, at the end
		for range 10 {
			r.step()
		}
		var order []ecs.PeerID
		for _, e := range r.events {
			if e.Kind == PeerResumed {
				order = append(order, e.Peer)
			}
		}
		want := []ecs.PeerID{peers[0], peers[1], peers[3], peers[2]}
		if !slices.Equal(order, want) {
			t.Fatalf("resumed in the order %v; want %v (a, then b in line, then d behind it, then c's newer connection)", order, want)
		}
		for name, p := range map[string]*rawPeer{"a": a, "b": b, "d": d, "c's newer connection": cNew} {
			p.read()
			if p.kinds()[wire.KindResumed] != 1 {
				t.Fatalf("%s got %v; want its Resumed", name, p.kinds())
			}
		}
		cOld.read()
		if cOld.kinds()[wire.KindResumed] != 0 || cOld.tc.Err() == nil {
			t.Fatalf("c's older connection in line got %v, its connection %v; want it closed unanswered", cOld.kinds(), cOld.tc.Err())
		}
	})
}

// A Resume waits in line no longer than its client waits for the answer:
// past that the client has dialed again, or is gone, and the host closes
// the connection rather than answer it.
func TestAResumeWaitsInLineNoLongerThanItsClient(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond}, HostConfig{AdmitPerStep: 1, MaxPeersPerAddress: 8, MaxPendingPerAddress: 8})
		a, b := r.join("a"), r.join("b")
		pa, ta, pb, tb := a.cl.Peer(), a.cl.Welcome().Token, b.cl.Peer(), b.cl.Welcome().Token
		r.breakPeer(a)
		r.breakPeer(b)
		r.clients = nil
		r.rawResume(pa, ta, wire.ResumeHoldsWorld)
		rb := r.rawResume(pb, tb, wire.ResumeHoldsWorld)
		r.clk.Advance(6 * time.Millisecond)
		r.step() // a is taken, b waits in line
		var waiting *hostPeer
		for _, p := range r.host.peers {
			if p.inLine {
				waiting = p
			}
		}
		if waiting == nil {
			t.Fatal("no Resume in line: the test tests nothing")
		}
		waiting.check(r.clk.Now().Add(answerTimeout - time.Millisecond))
		if waiting.c.Closed() {
			t.Fatal("a Resume in line was closed before its client would give up on it")
		}
		waiting.check(r.clk.Now().Add(answerTimeout + time.Millisecond))
		r.clk.Advance(6 * time.Millisecond)
		rb.read()
		if !waiting.c.Closed() || rb.kinds()[wire.KindResumed] != 0 {
			t.Fatalf("a Resume in line past its client's wait: closed %v, answers %v; want closed unanswered", waiting.c.Closed(), rb.kinds())
		}
	})
}
