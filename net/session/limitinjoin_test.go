package session

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// A client whose game sends a lane message larger than the host's
// MaxLaneMessageSize during its join is closed by the host's conn with
// CloseLimit after its admission (a limit broken, not a busy host). It
// ends with that limit, rather than saying Hello again and again (it was
// taken for a busy host's, and the client was admitted 58 times in 20 s).
func TestALimitBrokenInTheJoinEndsTheSession(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{MaxPeers: 8, Conn: conn.Config{MaxLaneMessageSize: 64 << 10}})
		// more entities, so a join lasts a few steps
		for range 3000 {
			r.spawn.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		}
		a := r.dial("a", "host")
		big := make([]byte, 100<<10)
		big[0] = byte(wire.KindGameLane)
		var sentOn = map[*conn.Conn]bool{}
		joiningSeen := 0
		for range 20 * 60 {
			r.step()
			if a.cl.State() == Joining && !sentOn[a.cl.Conn()] && r.hostCount(PeerJoined, a.cl.Peer()) > 0 && r.host.Stats().Admitted > uint64(joiningSeen) {
				sentOn[a.cl.Conn()] = true
				joiningSeen++
				if err := a.cl.Conn().SendLane(transport.LaneCommands, big); err != nil {
					t.Logf("send: %v", err)
				}
			}
			if a.cl.State() == Closed {
				break
			}
		}
		st := r.host.Stats()
		t.Logf("client %v err %v; host admitted %d, evicted %d; client joins %d, connections %d, PeerJoined events on client %d",
			a.cl.State(), a.cl.Err(), st.Admitted, st.Evicted, joiningSeen, len(a.conns), a.count(PeerJoined))
		if st.Admitted > 1 {
			t.Fatalf("a client closed with CloseLimit for a limit it broke after its admission was admitted %d times in 20 s (it said Hello again each time); it is %v", st.Admitted, a.cl.State())
		}
	})
}
