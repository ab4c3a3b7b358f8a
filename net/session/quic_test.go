package session

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/quicnet"
)

func TestMain(m *testing.M) {
	os.Setenv("QUIC_GO_DISABLE_RECEIVE_BUFFER_WARNING", "true")
	os.Exit(m.Run())
}

// TestOverQUICLoopback runs a host and two clients over real QUIC on
// 127.0.0.1 in real time: the clients pin the host's certificate, join, follow
// a moving world and end with its exact image.
func TestOverQUICLoopback(t *testing.T) {
	ht, err := quicnet.New(quicnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := ht.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.Real{}
	hw := ecs.NewWorld()
	hreg := replicate.NewRegistry(hw)
	hsched := ecs.NewSchedule(hw, clk, 0)
	mv := newMover(hw, 2, 300)
	hsched.Add("mover", mv)
	host := NewHost(hsched, hreg, HostConfig{Clock: clk})
	host.Serve(l)
	defer host.Close()

	ct, err := quicnet.New(quicnet.Config{Fingerprint: ht.Fingerprint()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var clients []*testClient
	for _, name := range []string{"ann", "bob"} {
		clients = append(clients, dialClient(t, ctx, ct, l.Addr().String(), clk, name))
	}
	tick := time.NewTicker(ecs.DefaultStep)
	defer tick.Stop()
	step := func() {
		<-tick.C
		hsched.Advance()
		for _, c := range clients {
			c.sched.Advance()
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Since(deadline) < 0 && (clients[0].cl.State() != Playing || clients[1].cl.State() != Playing) {
		step()
	}
	for _, c := range clients {
		if c.cl.State() != Playing {
			t.Fatalf("client %s: %v %v", c.cl.cfg.Name, c.cl.State(), c.cl.Err())
		}
	}
	moveUntil := time.Now().Add(2 * time.Second)
	for time.Now().Before(moveUntil) {
		step()
	}
	mv.still = true
	var diff string
	for time.Since(deadline) < 0 {
		step()
		diff = ""
		for _, c := range clients {
			if d := imageDiff(hw, hreg, c.w, c.reg); d != "" {
				diff = d
			}
		}
		if diff == "" {
			break
		}
	}
	if diff != "" {
		for _, c := range clients {
			st := c.cl.Conn().Stats()
			t.Logf("client %s: state %v err %v; rtt %v lost %d delivered %d; replication %+v",
				c.cl.cfg.Name, c.cl.State(), c.cl.Err(), st.RTT, st.PacketsLost, st.PacketsDelivered, c.cl.Replicator().Stats())
		}
		t.Fatalf("clients never reached the host's image: %s", diff)
	}
	for _, c := range clients {
		st := c.cl.Replicator().Stats()
		if st.Updates == 0 || st.Malformed != 0 {
			t.Fatalf("client %s: %+v", c.cl.cfg.Name, st)
		}
	}
}
