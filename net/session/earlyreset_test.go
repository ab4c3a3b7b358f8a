package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// The count of State datagrams held before a Resumed belongs to the
// connection they came on: a connection that broke before its Resumed
// came drops what it held (open), and the next one may hold its own 128:
// the 100 held on a broken connection do not count against it, and its
// 29th early State does not end the session with ErrEarlyJoin.
func TestANewConnectionHoldsItsOwnEarlyStates(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	nw, l, ctc := memLink(t, clk)
	ctx := context.Background()
	accept := func() *conn.Conn {
		t.Helper()
		htc, err := l.Accept(ctx)
		if err != nil {
			t.Fatal(err)
		}
		hc, err := conn.New(htc, clk, conn.HandlerFuncs{}, conn.Config{})
		if err != nil {
			t.Fatal(err)
		}
		return hc
	}
	host := accept()
	w := ecs.NewWorld()
	reg := replicate.NewRegistry(w)
	sched := ecs.NewSchedule(w, clk, 0)
	token := [wire.TokenLen]byte{1, 2, 3}
	cl, err := NewClient(sched, reg, ctc, ClientConfig{
		Name:   "a",
		Clock:  clk,
		Ticket: Ticket{Peer: 7, Token: token},
		Dial:   func(ctx context.Context) (transport.Conn, error) { return nw.Dial(ctx, "host") },
	})
	if err != nil {
		t.Fatal(err)
	}
	step := func() {
		clk.Advance(ecs.DefaultStep)
		sched.Step()
		host.Poll()
		host.Flush()
	}
	step()
	// 100 States on the first connection, its Resumed not yet there.
	sendStates := func(n int) {
		for sent := 0; sent < n; {
			for ; sent < n; sent++ {
				if err := host.Queue(wire.KindState, []byte{6, 0}, 0); err != nil {
					break
				}
			}
			step()
		}
		for range 5 {
			step()
		}
	}
	sendStates(100)
	if got := cl.Stats().DatagramsBeforeWelcome; got != 100 {
		t.Fatalf("held %d States before the Resumed on the first connection, want 100", got)
	}
	// The first connection breaks (the host's end times out).
	host.Close(transport.CloseTimeout, "gone")
	host.Flush()
	for i := 0; cl.State() != Reconnecting; i++ {
		if i > 100 {
			t.Fatalf("client did not start reconnecting: %v %v", cl.State(), cl.Err())
		}
		step()
	}
	// The client dials again; the host takes the new connection.
	var hc *conn.Conn
	done := make(chan *conn.Conn, 1)
	go func() { done <- accept() }()
	for i := 0; hc == nil; i++ {
		if i > 2000 {
			t.Fatal("the client did not dial again")
		}
		clk.Advance(ecs.DefaultStep)
		sched.Step()
		select {
		case hc = <-done:
		default:
			time.Sleep(time.Millisecond)
		}
	}
	host = hc
	for range 5 {
		step()
	}
	// 40 States before the new connection's Resumed: well within 128.
	sendStates(40)
	if errors.Is(cl.Err(), ErrEarlyJoin) {
		t.Fatalf("40 States before the second connection's Resumed ended the session: %v (held so far %d): the first connection's count was kept", cl.Err(), cl.Stats().DatagramsBeforeWelcome)
	}
	if cl.State() == Closed {
		t.Fatalf("session closed: %v", cl.Err())
	}
}
