package netplay

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// rig is a host and its clients in one process over the in-memory transport,
// all on one fake clock.
type rig struct {
	t       testing.TB
	clk     *clock.Fake
	net     *mem.Network
	l       transport.Listener
	host    *Host
	hg      *game.Game
	clients []*Client
	done    context.Context // a cancelled context: Accept only takes what waits
	tick    time.Duration   // the clock's increment
}

// newRig starts a host with crates crates and no player of its own, its
// links conditioned by link in each direction. systems, if given, are added
// to the host's schedule before the network's (a game's systems come before
// netplay.NewHost).
func newRig(t testing.TB, link condition.Config, crates int, systems ...ecs.System) *rig {
	t.Helper()
	clk := clock.NewFake(t0)
	toClient := link
	toClient.Seed = link.Seed + 1
	n, err := mem.NewNetwork(clk, mem.Config{ToHost: link, ToClient: toClient})
	if err != nil {
		t.Fatal(err)
	}
	l, err := n.Listen("host")
	if err != nil {
		t.Fatal(err)
	}
	cfg := game.DefaultConfig()
	cfg.Crates = crates
	hg := game.New(cfg, clk)
	hg.Populate()
	for i, sys := range systems {
		hg.Schedule.Add(fmt.Sprintf("test.%d", i), sys)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := &rig{t: t, clk: clk, net: n, l: l, hg: hg, done: ctx, tick: time.Second / 144}
	r.host = NewHost(hg, HostConfig{Clock: clk})
	t.Cleanup(func() { r.host.Close() })
	hg.Schedule.Advance()
	return r
}

// join dials the host with a new client (a bot with bot) and returns it.
func (r *rig) join(name string, bot bool) *Client {
	r.t.Helper()
	tc, err := r.net.Dial(context.Background(), "host")
	if err != nil {
		r.t.Fatal(err)
	}
	g := game.New(game.DefaultConfig(), r.clk)
	c, err := NewClient(g, tc, ClientConfig{Name: name, Clock: r.clk, Bot: bot})
	if err != nil {
		r.t.Fatal(err)
	}
	g.Schedule.Advance()
	r.clients = append(r.clients, c)
	return c
}

// run advances the clock by d in increments of r.tick, letting every
// schedule run the steps due, the host's first; each, if set, runs after
// every increment, after each client's steps.
func (r *rig) run(d time.Duration, each func(c *Client, now time.Time)) {
	end := r.clk.Now().Add(d)
	for r.clk.Now().Before(end) {
		r.clk.Advance(r.tick)
		for {
			tc, err := r.l.Accept(r.done)
			if err != nil {
				break
			}
			r.host.Accept(tc)
		}
		r.hg.Schedule.Advance()
		now := r.clk.Now()
		for _, c := range r.clients {
			c.g.Schedule.Advance()
			if each != nil {
				each(c, now)
			}
		}
	}
}
