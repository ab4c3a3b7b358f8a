package tandem

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
)

// dialUnwelcomed connects a client of p that dials again by itself, cuts
// its first link at once (before the host's Welcome can come), and returns
// it without running it.
func (p *resumePair) dialUnwelcomed() *rclient {
	p.t.Helper()
	rc := &rclient{}
	tc, _ := p.net.Dial(context.Background(), "host")
	rc.conns = append(rc.conns, tc.(*mem.Conn))
	c, err := NewClient(p.game(), tc, ClientConfig[push]{Clock: p.clk, Dial: rc.dial(p.net)})
	if err != nil {
		p.t.Fatal(err)
	}
	rc.Client = c
	p.clients = append(p.clients, rc)
	rc.conn().Cut()
	return rc
}

// A client whose first link goes dark before the host lets it in dials
// again by itself (it has ClientConfig.Dial) and joins on the new
// connection, as one player; one that cannot reach the host again ends
// with ErrNoAnswer.
func TestClientDialsAgainWhenCutBeforeTheWelcome(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p := newResumePair(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{})
		c := p.dialUnwelcomed()
		for i := 0; c.State() != session.Playing; i++ {
			if i > 30*120 {
				t.Fatalf("not in after the cut: %v, %v", c.State(), c.Err())
			}
			p.run(time.Second / 120)
		}
		if !c.Joined() || c.Err() != nil || len(c.conns) != 2 {
			t.Fatalf("joined %v, err %v, %d connections; want in on the second", c.Joined(), c.Err(), len(c.conns))
		}
		if got := len(p.host.AppendPlayers(nil)); got != 1 {
			t.Fatalf("the host has %d players, want 1", got)
		}

		lost := p.dialUnwelcomed()
		lost.mu.Lock()
		lost.block = true
		lost.mu.Unlock()
		for i := 0; lost.State() != session.Closed; i++ {
			if i > 40*120 {
				t.Fatalf("still %v", lost.State())
			}
			p.run(time.Second / 120)
		}
		if err := lost.Err(); !errors.Is(err, ErrNoAnswer) || !errors.Is(err, session.ErrHostLost) || lost.Joined() {
			t.Fatalf("a client that cannot reach the host again: %v, joined %v; want ErrNoAnswer", err, lost.Joined())
		}
	})
}

// A client whose first link went dark before the host let it in, and whose
// new connections the host refuses as full until its window ends, ends with
// ErrNoAnswer (wrapping what the last refusal closed), not a nil Err as an
// orderly close would have.
func TestClientDialingAgainToAFullHostSaysSo(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p := newResumePair(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{MaxPeers: 1})
		p.join(nil) // the one slot
		c := p.dialUnwelcomed()
		for i := 0; c.State() != session.Closed; i++ {
			if i > 40*120 {
				t.Fatalf("still %v", c.State())
			}
			p.run(time.Second / 120)
		}
		if err := c.Err(); !errors.Is(err, ErrNoAnswer) || c.Joined() || len(c.conns) < 3 {
			t.Fatalf("%v after %d connections, joined %v; want ErrNoAnswer after dialing again", err, len(c.conns), c.Joined())
		}
	})
}
