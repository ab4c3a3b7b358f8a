package session

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// fromAddr is a connection the host sees coming from addr.
type fromAddr struct {
	transport.Conn
	addr net.Addr
}

func (c fromAddr) RemoteAddr() net.Addr { return c.addr }

// joinFrom dials the rig's host as a client at the IP address ip (the
// host's end handed over at once, before a step takes it as from
// elsewhere) and steps until the client plays or is refused.
func (r *resumeRig) joinFrom(name, ip string) *testClient {
	r.t.Helper()
	tc, err := r.net.Dial(context.Background(), "host")
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	htc, err := r.l.Accept(ctx)
	cancel()
	if err != nil {
		r.t.Fatal(err)
	}
	r.host.Accept(fromAddr{htc, &net.UDPAddr{IP: net.ParseIP(ip), Port: 40000}})
	w := ecs.NewWorld()
	c := &testClient{w: w, reg: replicate.NewRegistry(w), sched: ecs.NewSchedule(w, r.clk, 0)}
	c.cl, err = NewClient(c.sched, c.reg, tc, ClientConfig{Name: name, Clock: r.clk})
	if err != nil {
		r.t.Fatal(err)
	}
	for i := 0; c.cl.State() != Playing && c.cl.State() != Closed; i++ {
		if i > 600 {
			r.t.Fatalf("%s: neither playing nor refused after 600 steps: %v", name, c.cl.State())
		}
		r.step()
		c.sched.Step()
	}
	return c
}

// A client that joins and leaves over and over from one address is held to
// MaxJoinsPerAddress joins a minute: past them its Hello is refused (host
// full, try again), another address joins as before, and a token comes
// back in its time.
func TestJoinsPerAddressAreBounded(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond}, HostConfig{MaxJoinsPerAddress: 3})
		for i := range 3 {
			c := r.joinFrom("churn", "203.0.113.7")
			if c.cl.State() != Playing {
				t.Fatalf("join %d of 3: %v (%v)", i+1, c.cl.State(), c.cl.Err())
			}
			c.cl.Close()
			r.steps(100 * time.Millisecond)
		}
		c := r.joinFrom("churn", "203.0.113.7")
		var re *RejectError
		if !errors.As(c.cl.Err(), &re) || re.Code != wire.RejectFull {
			t.Fatalf("the 4th join in a minute from one address: %v (%v), want refused as full", c.cl.State(), c.cl.Err())
		}
		if st := r.host.Stats(); st.JoinLimited != 1 || st.Admitted != 3 {
			t.Fatalf("host stats %+v: want 3 admitted, 1 join limited", st)
		}
		if other := r.joinFrom("neighbour", "198.51.100.2"); other.cl.State() != Playing {
			t.Fatalf("a join from another address: %v (%v)", other.cl.State(), other.cl.Err())
		}
		r.steps(20 * time.Second) // a token in 20 s at 3 a minute
		if again := r.joinFrom("churn", "203.0.113.7"); again.cl.State() != Playing {
			t.Fatalf("a join 20 s later: %v (%v)", again.cl.State(), again.cl.Err())
		}
		if _, kept := r.host.joins.by["203.0.113.7"]; !kept {
			t.Fatalf("the host forgot the joins of an address whose bucket is empty: %v", r.host.joins.by)
		}
		r.steps(61 * time.Second)
		if n := len(r.host.joins.by); n != 0 {
			t.Fatalf("a minute later the host keeps the joins of %d addresses, want none", n)
		}
	})
}
