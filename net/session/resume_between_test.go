package session

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// A Resume taken between steps (Handshake) that names a peer whose
// connection is open waits for the step, which reads that connection first:
// a peer that broke the rules on it is closed there, and its Resume
// refused, as within a step.
func TestAViolatorDoesNotResumeBetweenSteps(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond}, HostConfig{})
		a := r.join("mallory")
		peer, token := a.cl.Peer(), a.cl.Welcome().Token
		r.steps(500 * time.Millisecond)
		r.clients = nil
		for range 20 { // past MaxMalformed
			a.conn().SendMessage(transport.LaneCommands, []byte{0xc5, 1, 2, 3})
		}
		raw := r.rawResume(peer, token, wire.ResumeHoldsWorld)
		r.clk.Advance(6 * time.Millisecond) // both arrive
		r.acceptWaiting()
		r.host.Handshake()
		endedPeerLeft(t, r, raw, peer)
	})
}

// A player whose link changed resumes from a new connection between steps
// as at a step: its Resume waits for the step, which answers it.
func TestAResumeBetweenStepsIsAnsweredAtTheStep(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond}, HostConfig{})
		a := r.join("ann")
		peer, token := a.cl.Peer(), a.cl.Welcome().Token
		r.steps(500 * time.Millisecond)
		r.clients = nil
		raw := r.rawResume(peer, token, wire.ResumeHoldsWorld)
		r.clk.Advance(6 * time.Millisecond)
		r.acceptWaiting()
		r.host.Handshake()
		for range 10 {
			r.step()
			raw.read()
		}
		if k := raw.kinds(); k[wire.KindResumed] != 1 {
			t.Fatalf("the Resume from a new connection was answered %v, want Resumed", k)
		}
		if r.hostCount(PeerResumed, peer) != 1 {
			t.Fatalf("peer %d resumed %d times", peer, r.hostCount(PeerResumed, peer))
		}
	})
}
