package session

import (
	"context"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
)

// world is a host and its clients over a conditioned in-memory network on a
// fake clock.
type world struct {
	t       *testing.T
	clk     *clock.Fake
	net     *mem.Network
	hw      *ecs.World
	hreg    *replicate.Registry
	hsched  *ecs.Schedule
	host    *Host
	mv      *mover
	clients []*testClient
	l       transport.Listener
}

func newWorld(t *testing.T, link condition.Config, cfg HostConfig) *world {
	clk := clock.NewFake(time.Unix(1000, 0))
	net, err := mem.NewNetwork(clk, mem.Config{ToHost: link, ToClient: link})
	if err != nil {
		t.Fatal(err)
	}
	hw := ecs.NewWorld()
	wd := &world{t: t, clk: clk, net: net, hw: hw, hreg: replicate.NewRegistry(hw), hsched: ecs.NewSchedule(hw, clk, 0)}
	wd.mv = newMover(hw, 5, 50)
	wd.hsched.Add("mover", wd.mv)
	cfg.Clock = clk
	wd.host = NewHost(wd.hsched, wd.hreg, cfg)
	l, err := net.Listen("host")
	if err != nil {
		t.Fatal(err)
	}
	wd.l = l
	t.Cleanup(func() { l.Close() })
	return wd
}

func (wd *world) join(name string) *testClient {
	c := dialClient(wd.t, context.Background(), wd.net, "host", wd.clk, name)
	wd.clients = append(wd.clients, c)
	for i := 0; c.cl.State() != Playing; i++ {
		if i > 600 {
			wd.t.Fatalf("%s never joined: %v", name, c.cl.Err())
		}
		wd.step()
	}
	return c
}

func (wd *world) step() {
	wd.clk.Advance(ecs.DefaultStep)
	acceptPending(wd.l, wd.host)
	wd.hsched.Step()
	for _, c := range wd.clients {
		c.sched.Step()
	}
}

func TestQuietWorldDoesNotTimeOutPeers(t *testing.T) {
	link := condition.Config{Latency: 40 * time.Millisecond}
	wd := newWorld(t, link, HostConfig{AckTimeout: 2 * time.Second})
	c := wd.join("quiet")
	wd.mv.still = true
	for range 5 * 60 { // longer than AckTimeout with nothing to send
		wd.step()
	}
	wd.mv.still = false
	for range 60 {
		wd.step()
	}
	if c.cl.State() != Playing {
		t.Fatalf("client dropped after a quiet spell: %v", c.cl.Err())
	}
}

func TestKickFromSystemLeavesNoGhost(t *testing.T) {
	wd := newWorld(t, condition.Config{}, HostConfig{})
	wd.host.cfg.OnJoin = func(p ecs.PeerID, _ string) error {
		wd.mv.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p})
		return nil
	}
	a := wd.join("a")
	b := wd.join("b")
	kick := false
	wd.hsched.Add("referee", ecs.SystemFunc(func(*ecs.World) {
		if kick {
			wd.host.Kick(a.cl.Peer(), "test")
			kick = false
		}
	}))
	kick = true
	wd.mv.still = true
	for range 120 {
		wd.step()
	}
	if a.cl.State() != Closed {
		t.Fatalf("kicked client state %v", a.cl.State())
	}
	wd.clients = wd.clients[1:]
	sameImage(t, "b", wd.hw, wd.hreg, b.w, b.reg)
}

// A host's steps after Close change nothing: the world stays as it was
// (its peers' entities included), and no peer is reported gone.
func TestStepsAfterCloseKeepTheWorld(t *testing.T) {
	wd := newWorld(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{})
	wd.host.cfg.OnJoin = func(p ecs.PeerID, _ string) error {
		wd.mv.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p})
		return nil
	}
	c := wd.join("a")
	wd.mv.still = true
	entities := wd.hw.Networked()
	wd.host.Events()
	wd.host.Close()
	for range 60 {
		wd.step()
	}
	if wd.hw.Networked() != entities || len(wd.hw.Owned(c.cl.Peer())) != 1 {
		t.Fatalf("after Close and a second of steps the host holds %d entities (had %d), the peer owns %d", wd.hw.Networked(), entities, len(wd.hw.Owned(c.cl.Peer())))
	}
	if ev := wd.host.Events(); len(ev) != 0 {
		t.Fatalf("events after Close: %v", ev)
	}
}
