package session

import (
	"testing"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// Three WelcomeAcks wait their turn (AdmitPerStep 1, three places), then
// their clients hang up: a new client's WelcomeAck in the same step waits
// its turn, not refused as more joining than places, since those who hung
// up hold no place in the queue.
func TestClosedWaitersLeaveTheQueue(t *testing.T) {
	wd := stillWorld(t, 50, nil)
	cfg := &wd.host.cfg
	cfg.AdmitPerStep, cfg.MaxPeers = 1, 3
	cfg.MaxPeersPerAddress, cfg.MaxPendingPerAddress = 16, 16
	peers := wd.answered("a", "b", "c", "d")
	wd.host.Handshake() // a comes in, b to d wait
	for _, p := range peers[1:] {
		p.tc.Close(transport.CloseNormal, "gave up")
	}
	wd.host.Handshake() // their closes seen
	e := wd.dialRaw("e", wire.Version)
	acceptPending(wd.l, wd.host)
	wd.host.Handshake()
	e.read()
	answer(e.tc, e.got[0])
	wd.host.Handshake()
	e.read()
	if rj, ok := e.reject(); ok {
		t.Fatalf("with nobody waiting any more and 2 of 3 places free, the WelcomeAck was refused: %+v", rj)
	}
	if n := len(wd.host.admitQueue); n != 1 {
		t.Fatalf("%d in the queue; want the one who did not hang up", n)
	}
	for range 2 { // a's admission counts toward the first
		wd.hsched.Step()
	}
	if st := wd.host.Stats(); st.Admitted != 2 {
		t.Fatalf("%d admitted; want a and e", st.Admitted)
	}
}
