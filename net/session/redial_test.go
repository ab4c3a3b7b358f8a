package session

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// A first connection whose link goes dark before the host's Welcome comes
// ends by its idle timeout; the client dials again by itself and says Hello
// on the new connection: it joins as one new player (no resume, the host's
// one peer), holding the host's world. Broken twice the same way (the host
// had let the first in), it still gets in.
func TestBreakBeforeTheWelcomeDialsAgain(t *testing.T) {
	for _, welcomed := range []bool{false, true} {
		name := "before-hello"
		if welcomed {
			name = "welcome-lost"
		}
		t.Run(name, func(t *testing.T) {
			bubble.Test(t, func(t *testing.T) {
				r := newResumeRig(t, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{})
				r.mv.still = true
				a := r.dial("a", "host")
				if welcomed {
					// The host took the Hello and sent its Welcome, which
					// is still on its way.
					for i := 0; !r.welcomeSent(); i++ {
						if i > 60 {
							t.Fatal("the host never took the Hello")
						}
						r.step()
					}
				}
				if st := a.cl.State(); st != Connecting {
					t.Fatalf("before the cut the client is %v, want connecting", st)
				}
				a.conn().Cut()
				sawReconnecting := false
				for i := 0; a.cl.State() != Playing; i++ {
					if i > 30*60 {
						t.Fatalf("not in after the cut: %v, %v", a.cl.State(), a.cl.Err())
					}
					r.step()
					sawReconnecting = sawReconnecting || a.cl.State() == Reconnecting
				}
				if !sawReconnecting || a.count(PeerDisconnected) != 1 || a.count(PeerJoined) != 1 || a.cl.Resumes() != 0 {
					t.Fatalf("client events %v, %d resumes; want one break, one join and no resume", a.events, a.cl.Resumes())
				}
				if n := len(a.conns); n != 2 {
					t.Fatalf("the client made %d connections, want the first and one more", n)
				}
				if peers := r.host.Peers(); len(peers) != 1 || peers[0] != a.cl.Peer() {
					t.Fatalf("the host has peers %v, the client is peer %d", peers, a.cl.Peer())
				}
				if st := r.host.Stats(); st.Resumed != 0 || st.ResumeRefused != 0 {
					t.Fatalf("host stats %+v: a Hello again, not a resume", st)
				}
				r.steps(time.Second)
				sameImage(t, "after the second dial", r.hw, r.hreg, a.w, a.reg)
			})
		})
	}
}

// A first connection that breaks before the Welcome, to a host that cannot
// be reached again, ends the session once the client has tried for
// freshWindow: ErrHostLost, wrapping the last error met.
func TestBreakBeforeTheWelcomeGivesUp(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{})
		a := r.dial("a", "host")
		a.setBlock(true)
		a.conn().Cut()
		for a.cl.State() == Connecting {
			r.step()
		}
		broke := r.clk.Now()
		for i := 0; a.cl.State() != Closed; i++ {
			if i > 2*int(freshWindow/time.Second)*60 {
				t.Fatalf("still %v after %v", a.cl.State(), r.clk.Now().Sub(broke))
			}
			r.step()
		}
		if took := r.clk.Now().Sub(broke); took < freshWindow || took > freshWindow+time.Second {
			t.Fatalf("gave up %v after the break, want %v", took, freshWindow)
		}
		if err := a.cl.Err(); !errors.Is(err, ErrHostLost) {
			t.Fatalf("Err %v, want ErrHostLost", err)
		}
		synctest.Wait()
		if a.count(PeerJoined) != 0 || len(r.host.Peers()) != 0 {
			t.Fatalf("client events %v, host peers %v", a.events, r.host.Peers())
		}
	})
}

// welcomeSent reports whether the host sent a Welcome whose WelcomeAck has
// not come yet.
func (r *resumeRig) welcomeSent() bool {
	for _, p := range r.host.peers {
		if p.stage == stageWelcomed {
			return true
		}
	}
	return false
}

// A client reconnecting whose new connection the host closes as shutting
// down (CloseHostShutdown) stops: it does not dial again for the rest of
// the window, and its error is the host's close.
func TestReconnectingStopsAtAHostShuttingDown(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{})
		a := r.join("a")
		a.conn().Close(transport.CloseTimeout, "the host stopped answering")
		accepted := len(r.accepts)
		for i := 0; len(r.accepts) == accepted; i++ {
			if i > 60 {
				t.Fatalf("no new connection reached the host: %v", a.cl.State())
			}
			r.step()
		}
		r.accepts[len(r.accepts)-1].Close(transport.CloseHostShutdown, "host shutting down")
		dialed := len(a.conns)
		r.steps(5 * time.Second)
		var ce *transport.CloseError
		if a.cl.State() != Closed || !errors.As(a.cl.Err(), &ce) || ce.Code != transport.CloseHostShutdown || !ce.Remote {
			t.Fatalf("after the host said it shuts down: %v, %v; want closed by it", a.cl.State(), a.cl.Err())
		}
		if len(a.conns) != dialed {
			t.Fatalf("the client dialed %d more times", len(a.conns)-dialed)
		}
	})
}
