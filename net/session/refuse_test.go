package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/mem"
)

// A connection that reaches a closed host is refused as its players were
// told the host closed: shut down after Close, restarting after
// CloseRestarting (a client dialing again keeps dialing, for the next host).
func TestAClosedHostRefusesAsItClosed(t *testing.T) {
	for _, restart := range []bool{false, true} {
		clk := clock.NewFake(time.Unix(1000, 0))
		net, err := mem.NewNetwork(clk, mem.Config{})
		if err != nil {
			t.Fatal(err)
		}
		l, err := net.Listen("host")
		if err != nil {
			t.Fatal(err)
		}
		w := ecs.NewWorld()
		h := NewHost(ecs.NewSchedule(w, clk, 0), replicate.NewRegistry(w), HostConfig{Clock: clk})
		want := transport.CloseHostShutdown
		if restart {
			want = transport.CloseHostRestarting
			h.CloseRestarting()
		} else {
			h.Close()
		}
		ctx := context.Background()
		c, err := net.Dial(ctx, "host")
		if err != nil {
			t.Fatal(err)
		}
		tc, err := l.Accept(ctx)
		if err != nil {
			t.Fatal(err)
		}
		h.Accept(tc)
		clk.Advance(time.Second)
		<-c.Done()
		var ce *transport.CloseError
		if !errors.As(c.Err(), &ce) || ce.Code != want || !ce.Remote {
			t.Errorf("restart %v: the dialer's connection ended with %v, want %v from the host", restart, c.Err(), want)
		}
	}
}
