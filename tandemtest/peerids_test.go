package tandemtest_test

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/tandemtest"
)

// A player who joins right after another left does not get the leaver's
// peer id: the host gives the id free the longest, and one it never gave
// before comes first. On the rig the host takes the newcomer's Hello in the
// step after the leave was seen, as a host over QUIC would, where the
// newcomer's handshake takes longer than the host's noticing the leave.
func TestANewcomerDoesNotGetTheLeaversPeerID(t *testing.T) {
	r := tandemtest.New(t, walkers, tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	bob := r.Join("bob", tandem.ClientConfig[Walk]{})
	left := ann.Peer()
	ann.Close()
	if !r.StepUntil(60, func() bool { return r.Host.Stats().Players == 1 }) {
		t.Fatalf("the host still has %d players after ann's leave", r.Host.Stats().Players)
	}
	carl := r.Join("carl", tandem.ClientConfig[Walk]{})
	if p := carl.Peer(); p == left || p == bob.Peer() || p != 3 {
		t.Fatalf("carl is peer %d (ann, who left, was %d; bob is %d); want 3, never given before", p, left, bob.Peer())
	}
}

// The same over QUIC on loopback: the newcomer joins once the host has seen
// the leave.
func TestANewcomerDoesNotGetTheLeaversPeerIDOverQUIC(t *testing.T) {
	lb := tandemtest.NewLoopback(t, walkers, tandem.HostConfig{})
	ann := lb.Join("ann", tandem.ClientConfig[Walk]{})
	bob := lb.Join("bob", tandem.ClientConfig[Walk]{})
	left := ann.Peer()
	gone := make(chan struct{})
	remove := lb.Host.OnEvent(func(e tandem.Event) {
		if e.Kind == tandem.PeerLeft && e.Peer == left {
			close(gone)
		}
	})
	defer remove()
	ann.Close()
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the host did not see ann leave within 10 s")
	}
	carl := lb.Join("carl", tandem.ClientConfig[Walk]{})
	if p := carl.Peer(); p == left || p == bob.Peer() || p != ecs.PeerID(3) {
		t.Fatalf("carl is peer %d (ann, who left, was %d; bob is %d); want 3, never given before", p, left, bob.Peer())
	}
}
