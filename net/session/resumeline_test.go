package session

import (
	"fmt"
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
