package session

import (
	"context"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// noAckConn is a client's end that never delivers a WelcomeAck: a client
// whose answer to the Resumed was lost with its connection.
type noAckConn struct{ *mem.Conn }

func (c noAckConn) SendMessage(lane transport.Lane, msg []byte) error {
	if len(msg) > 0 && wire.Kind(msg[0]) == wire.KindWelcomeAck {
		return nil
	}
	return c.Conn.SendMessage(lane, msg)
}

// A new process B takes the place back with a kept ticket (token T0 -> T1)
// but its WelcomeAck never reaches the host. It plays, its connection
// breaks, and it resumes normally with T1, proving it holds the new token:
// the old token is over, and the process left behind (A, T0 in its ticket
// file) does not take the place back from B afterwards.
func TestAResumeWithTheNewTokenEndsTheOldOne(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{Grace: time.Minute})
		a := r.join("a")
		tk, _ := a.cl.Ticket()
		peer := tk.Peer
		r.die(a)
		r.steps(100 * time.Millisecond)

		b := &resumer{rig: r, addr: "host"}
		dial := func(ctx context.Context) (transport.Conn, error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			if b.block {
				return nil, context.Canceled
			}
			tc, err := r.net.Dial(ctx, "host")
			if err != nil {
				return nil, err
			}
			b.conns = append(b.conns, tc.(*mem.Conn))
			return noAckConn{tc.(*mem.Conn)}, nil
		}
		tc, err := dial(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		w := ecs.NewWorld()
		b.testClient = &testClient{w: w, reg: replicate.NewRegistry(w), sched: ecs.NewSchedule(w, r.clk, 0)}
		b.cl, err = NewClient(b.sched, b.reg, tc, ClientConfig{Name: "a", Clock: r.clk, Dial: dial, Ticket: tk,
			OnEvent: func(e Event) { b.events = append(b.events, e) }})
		if err != nil {
			t.Fatal(err)
		}
		r.clients = append(r.clients, b)
		r.playing(b, "the kept ticket")
		if b.cl.Peer() != peer {
			t.Fatalf("b is peer %d, want %d", b.cl.Peer(), peer)
		}
		r.steps(5 * time.Second)

		// B's connection breaks; it resumes normally with its new token.
		b.conn().Close(transport.CloseTimeout, "a break")
		for i := 0; b.cl.Resumes() < 2 || b.cl.State() != Playing; i++ {
			if i > 20*60 {
				t.Fatalf("b did not resume: %v %v", b.cl.State(), b.cl.Err())
			}
			r.step()
		}
		r.steps(5 * time.Second)

		// The process left behind comes back with the old token, kept.
		raw := r.rawResume(peer, tk.Token, wire.ResumeKeptTicket)
		for range 30 {
			r.step()
			raw.read()
		}
		k := raw.kinds()
		if k[wire.KindResumed] != 0 || b.cl.State() != Playing {
			t.Fatalf("the left-behind process's old token took the place back from B (answers %v; B is %v, %v)", k, b.cl.State(), b.cl.Err())
		}
	})
}
