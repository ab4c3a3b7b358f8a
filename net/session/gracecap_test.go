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
	"github.com/tandem-go/tandem/net/wire"
)

// A host's Welcome that gives a grace window of 49.7 days (the field's
// most) and then goes away keeps its client Reconnecting, its world held
// and dialing, for at most maxGrace and the margin, not for 49.7 days.
func TestAClientTakesAGraceWindowOfAtMostTenMinutes(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	host, ctc := newRawHost(t, clk)
	w := ecs.NewWorld()
	sched := ecs.NewSchedule(w, clk, 0)
	cl, err := NewClient(sched, replicate.NewRegistry(w), ctc, ClientConfig{
		Name:  "a",
		Clock: clk,
		Dial:  func(ctx context.Context) (transport.Conn, error) { return nil, errors.New("the host is gone") },
	})
	if err != nil {
		t.Fatal(err)
	}
	host.c.SendLane(transport.LaneControl, wire.Welcome{PeerID: 7, TickRate: 60, SendRate: 30, Frame: 5, GraceMillis: 1<<32 - 1, Runs: wire.LineageOf(wire.RunStart{Run: 1, Fresh: 1})}.Encode(nil))
	for range 3 {
		clk.Advance(ecs.DefaultStep)
		sched.Step()
	}
	host.tc.Close(transport.CloseTimeout, "gone")
	for range 3 {
		clk.Advance(ecs.DefaultStep)
		sched.Step()
	}
	if left := cl.ReconnectLeft(); cl.State() != Reconnecting || left > maxGrace || left < maxGrace-100*time.Millisecond {
		t.Fatalf("a client whose host gave a grace of 49.7 days and went away: %v, reconnecting for %v more; want Reconnecting for %v", cl.State(), left, maxGrace)
	}
}
