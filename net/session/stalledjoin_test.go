package session

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// A joining peer that stops reading its join lane does not keep the host's
// loop polling Handshake between steps: once its lane has not drained for
// some calls, Handshake says there is no more to do, and its join is
// topped up once a step, until its join timeout ends it.
func TestAStalledJoinIsNotPolled(t *testing.T) {
	wd := newWorld(t, condition.Config{Latency: 5 * time.Millisecond}, HostConfig{MaxJoinsPerAddress: -1})
	wd.mv.still = true
	for range 40000 { // more than the join lane's window holds
		wd.mv.spawn()
	}
	wd.step()
	r := wd.dialRaw("slowpoke", wire.Version)
	for i := 0; r.welcome.PeerID == 0; i++ {
		if i > 60 {
			t.Fatal("no Welcome")
		}
		wd.step()
		wd.host.Handshake()
		r.read()
	}
	r.tc.SendMessage(transport.LaneControl, wire.WelcomeAck{PeerID: r.welcome.PeerID, Token: r.welcome.Token}.Encode(nil))
	wd.clk.Advance(10 * time.Millisecond)
	wd.host.Handshake() // its WelcomeAck, taken between steps as a host's loop does
	// It never reads again.
	calls, more := 0, 0
	for range 60 * 10 { // ten seconds of steps
		wd.step()
		for range 16 { // what a loop polling every millisecond runs between two steps
			calls++
			if wd.host.Handshake() {
				more++
			}
		}
	}
	if more > calls/10 {
		t.Fatalf("a peer that stopped reading its join lane has the host's loop polling: Handshake said more in %d of %d calls", more, calls)
	}
	if joining := len(wd.host.peers) == 1 && wd.host.peers[0].rp != nil && wd.host.peers[0].rp.Joining(); !joining {
		t.Fatal("the stalled peer's join ended before its timeout")
	}
}
