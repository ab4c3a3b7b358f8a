package session

import (
	"context"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// acceptWaiting hands the host every connection dialed since the last step,
// as step does, without stepping.
func (r *resumeRig) acceptWaiting() {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 0)
		tc, err := r.l.Accept(ctx)
		cancel()
		if err != nil {
			return
		}
		r.host.Accept(tc)
	}
}

// endedRig is a rig whose one player the test ends (kicks, or makes break
// the rules) and then resumes on a connection of its own.
type endedRig struct {
	*resumeRig
	ended struct {
		peer  ecs.PeerID
		token [wire.TokenLen]byte
	}
}

// playing returns a rig of a host with cfg whose player mallory has played
// half a second, and its client, driven by the test from then on.
func playing(t *testing.T, cfg HostConfig) (*endedRig, *resumer) {
	r := &endedRig{resumeRig: newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond}, cfg)}
	a := r.join("mallory")
	r.ended.peer, r.ended.token = a.cl.Peer(), a.cl.Welcome().Token
	r.steps(500 * time.Millisecond)
	r.clients = nil
	return r, a
}

// resumeRaw sends a Resume of the rig's player, with its token, on a new
// connection, taken between steps (Handshake) when between is set, else
// left for the next step.
func (r *endedRig) resumeRaw(between bool) *rawPeer {
	raw := r.rawResume(r.ended.peer, r.ended.token, wire.ResumeHoldsWorld)
	r.clk.Advance(6 * time.Millisecond) // it arrives
	if between {
		r.acceptWaiting()
		r.host.Handshake()
	}
	return raw
}

// resumeEnded resumes the ended player (resumeRaw) and checks that the
// Resume is refused and the player left (endedPeerLeft).
func (r *endedRig) resumeEnded(between bool) {
	endedPeerLeft(r.t, r.resumeRig, r.resumeRaw(between), r.ended.peer)
}

// answered steps the rig ten times and returns the kinds of what raw got.
func (r *endedRig) answered(raw *rawPeer) map[wire.Kind]int {
	for range 10 {
		r.step()
		raw.read()
	}
	return raw.kinds()
}

// endedPeerLeft fails the test unless the host refused raw's Resume and the
// peer left for good: no Resumed, not away, PeerLeft once, never resumed.
func endedPeerLeft(t *testing.T, r *resumeRig, raw *rawPeer, peer ecs.PeerID) {
	t.Helper()
	for range 10 {
		r.step()
		raw.read()
	}
	k := raw.kinds()
	if k[wire.KindResumed] != 0 || k[wire.KindReject] != 1 {
		t.Fatalf("the host answered the Resume of an ended peer with %v, want one Reject", k)
	}
	for _, p := range append(r.host.Peers(), r.host.Away()...) {
		if p == peer {
			t.Fatalf("peer %d is still the host's (peers %v, away %v)", peer, r.host.Peers(), r.host.Away())
		}
	}
	if l, res := r.hostCount(PeerLeft, peer), r.hostCount(PeerResumed, peer); l != 1 || res != 0 {
		t.Fatalf("peer %d: %d PeerLeft and %d PeerResumed, want 1 and 0", peer, l, res)
	}
	if len(r.hw.Owned(peer)) != 0 {
		t.Fatalf("peer %d left and still owns %d entities", peer, len(r.hw.Owned(peer)))
	}
}

// A peer the host kicks is over even if a Resume with its token reaches the
// host before the kicked connection is reaped: between steps (Handshake)
// or in the next step's receive, ahead of the reap.
func TestAKickedPeerDoesNotResume(t *testing.T) {
	for _, between := range []bool{true, false} {
		name := map[bool]string{true: "between-steps", false: "in-the-step"}[between]
		t.Run(name, func(t *testing.T) {
			bubble.Test(t, func(t *testing.T) {
				r, _ := playing(t, HostConfig{})
				r.host.Kick(r.ended.peer, "cheating")
				r.resumeEnded(between)
			})
		})
	}
}

// The same for a peer the host closes for a protocol violation: in the
// very receive that takes a Resume of it on another connection, or
// between steps (Handshake), where the Resume waits for the step, which
// reads the violator's connection first.
func TestAViolatorDoesNotResume(t *testing.T) {
	for _, between := range []bool{true, false} {
		name := map[bool]string{true: "between-steps", false: "in-the-step"}[between]
		t.Run(name, func(t *testing.T) {
			bubble.Test(t, func(t *testing.T) {
				r, a := playing(t, HostConfig{})
				for range 20 { // a lane message no one reads: malformed, past MaxMalformed
					a.conn().SendMessage(transport.LaneCommands, []byte{0xc5, 1, 2, 3})
				}
				r.resumeEnded(between)
				if st := r.host.Stats(); st.ResumeRefused == 0 || st.Dropped != 1 {
					t.Fatalf("host stats %+v: want the resume refused and the violator dropped", st)
				}
			})
		})
	}
}

// A player whose link changed resumes from a new connection between steps
// as at a step: its Resume waits for the step, which answers it.
func TestAResumeBetweenStepsIsAnsweredAtTheStep(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r, _ := playing(t, HostConfig{})
		raw := r.resumeRaw(true)
		if k := r.answered(raw); k[wire.KindResumed] != 1 || r.hostCount(PeerResumed, r.ended.peer) != 1 {
			t.Fatalf("the Resume from a new connection was answered %v, the peer resumed %d times; want Resumed once", k, r.hostCount(PeerResumed, r.ended.peer))
		}
	})
}

// A kick wins over a link break the transport saw first: the kicked peer
// leaves at once and is not kept for its grace window.
func TestAKickOnABrokenLinkEndsThePeer(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond}, HostConfig{})
		a := r.join("mallory")
		peer := a.cl.Peer()
		r.steps(500 * time.Millisecond)
		r.clients = nil
		r.accepts[len(r.accepts)-1].Cut()
		r.clk.Advance(11 * time.Second) // past the transport's idle timeout, no step
		if r.accepts[len(r.accepts)-1].Err() == nil {
			t.Fatal("the host's end did not see the link break")
		}
		r.host.Kick(peer, "cheating")
		r.step()
		for _, p := range r.host.Away() {
			if p == peer {
				t.Fatalf("kicked peer %d is kept for a resume", peer)
			}
		}
		if r.hostCount(PeerLeft, peer) != 1 || r.hostCount(PeerDisconnected, peer) != 0 {
			t.Fatalf("peer %d: %d PeerLeft, %d PeerDisconnected; want it to leave, not be kept", peer, r.hostCount(PeerLeft, peer), r.hostCount(PeerDisconnected, peer))
		}
	})
}

// A host that keeps no one for a resume (Grace negative: its Welcome says
// no grace) refuses every Resume, even one naming a connected peer.
func TestAHostWithoutGraceRefusesResumes(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond}, HostConfig{Grace: -1})
		a := r.join("a")
		peer, token := a.cl.Peer(), a.cl.Welcome().Token
		if g := a.cl.Welcome().GraceMillis; g != 0 {
			t.Fatalf("the Welcome says a grace of %d ms", g)
		}
		r.steps(500 * time.Millisecond)
		raw := r.rawResume(peer, token, wire.ResumeHoldsWorld)
		for range 10 {
			r.step()
			raw.read()
		}
		if k := raw.kinds(); k[wire.KindResumed] != 0 || k[wire.KindReject] != 1 {
			t.Fatalf("the host answered %v, want one Reject", k)
		}
		if a.cl.State() != Playing || r.hostCount(PeerResumed, peer) != 0 {
			t.Fatalf("the player is %v after another connection's Resume, %d resumes", a.cl.State(), r.hostCount(PeerResumed, peer))
		}
	})
}

// A Resume held between steps has spoken: silent connections that arrive
// past MaxPending before the step push out one of theirs, not it, and the
// step answers it.
func TestAHeldResumeIsNotEvictedAsSilent(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r, _ := playing(t, HostConfig{MaxPending: 4})
		raw := r.resumeRaw(true)
		for range 8 { // silent: they never say Hello
			if _, err := r.net.Dial(context.Background(), "host"); err != nil {
				t.Fatal(err)
			}
		}
		r.acceptWaiting()
		r.host.Handshake()
		if k := r.answered(raw); k[wire.KindResumed] != 1 || r.hostCount(PeerResumed, r.ended.peer) != 1 {
			t.Fatalf("the held Resume under 8 silent connections got %v (its connection: %v), want Resumed", k, raw.tc.Err())
		}
	})
}

// Between steps a Resume without the peer's token is answered at once,
// whether the peer it names is connected or not: how soon tells a stranger
// nothing.
func TestAWrongTokenIsRefusedAtOnceBetweenSteps(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond}, HostConfig{})
		a := r.join("ann")
		peer := a.cl.Peer()
		r.steps(100 * time.Millisecond)
		var wrong [wire.TokenLen]byte
		live := r.rawResume(peer, wrong, wire.ResumeHoldsWorld)
		none := r.rawResume(peer+7, wrong, wire.ResumeHoldsWorld)
		r.clk.Advance(6 * time.Millisecond)
		r.acceptWaiting()
		r.host.Handshake()
		r.clk.Advance(6 * time.Millisecond) // the answers' way back, before the step
		live.read()
		none.read()
		if len(live.got) != 1 || len(none.got) != 1 {
			t.Fatalf("between steps, a wrong token naming connected peer %d got %d answers, naming no peer %d; want one each, at once", peer, len(live.got), len(none.got))
		}
	})
}
