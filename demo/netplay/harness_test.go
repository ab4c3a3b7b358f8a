package netplay

import (
	"context"
	"fmt"
	"math"
	"testing"
	"testing/synctest"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/predict"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

type client = tandem.Client[game.Input]

// rig is a host and its clients in one process over the in-memory transport,
// all on one fake clock.
type rig struct {
	t       testing.TB
	clk     *clock.Fake
	net     *mem.Network
	l       transport.Listener
	game    *tandem.Game[game.Input]
	host    *tandem.Host[game.Input]
	hg      *game.Game
	clients []*client
	names   map[*client]string
	done    context.Context // a cancelled context: Accept only takes what waits
	tick    time.Duration   // the clock's increment
	// bubble: the rig runs inside a synctest bubble, and every increment
	// waits for the goroutines in it (clients' dials).
	bubble bool
}

// newRig starts a host with crates crates and no player of its own, its
// links conditioned by link in each direction. systems, if given, are added
// to the host's schedule after the game's.
func newRig(t testing.TB, link condition.Config, crates int, systems ...ecs.System) *rig {
	t.Helper()
	return newRigWith(t, link, Config{Match: game.DefaultConfig()}, crates, tandem.HostConfig{}, systems...)
}

// newRigWith is newRig for the match nc (its crates set to crates) and a
// host configured by hc (its clock set).
func newRigWith(t testing.TB, link condition.Config, nc Config, crates int, hc tandem.HostConfig, systems ...ecs.System) *rig {
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
	nc.Match.Crates = crates
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := &rig{t: t, clk: clk, net: n, l: l, game: New(nc), done: ctx, tick: time.Second / 144, names: map[*client]string{}}
	hc.Clock = clk
	hc.Replication.CheckReports = true // every write of the game's reported
	r.host, err = tandem.NewHost(r.game, hc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.host.Close() })
	r.hg = game.Of(r.host.World())
	for i, sys := range systems {
		r.hg.Schedule.Add(fmt.Sprintf("test.%d", i), sys)
	}
	r.host.Advance()
	return r
}

// join dials the host with a new client, its input given by input (nil:
// SetInput's), and returns it.
func (r *rig) join(name string, input func(w *tandem.World) game.Input) *client {
	r.t.Helper()
	return r.joinGame(r.game, name, input)
}

// joinGame is join with the client's Game g (the host's, seen otherwise).
func (r *rig) joinGame(g *tandem.Game[game.Input], name string, input func(w *tandem.World) game.Input) *client {
	r.t.Helper()
	tc, err := r.net.Dial(context.Background(), "host")
	if err != nil {
		r.t.Fatal(err)
	}
	c, err := tandem.NewClient(g, tc, tandem.ClientConfig[game.Input]{Name: name, Clock: r.clk, Input: input})
	if err != nil {
		r.t.Fatal(err)
	}
	c.Advance()
	r.clients = append(r.clients, c)
	r.names[c] = name
	return c
}

// run advances the clock by d in increments of r.tick, letting every
// machine run the steps due, the host's first; each, if set, runs after
// every increment, after each client's steps.
func (r *rig) run(d time.Duration, each func(c *client, now time.Time)) {
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
		r.host.Advance()
		now := r.clk.Now()
		for _, c := range r.clients {
			c.Advance()
			if each != nil {
				each(c, now)
			}
		}
		if r.bubble {
			synctest.Wait()
		}
	}
}

// hostPlayer returns the host's player of client c.
func (r *rig) hostPlayer(c *client) (arche.Entity, bool) {
	owned := r.hg.World.Owned(c.Peer())
	for _, e := range owned {
		if r.hg.IsPlayer(e) {
			return e, true
		}
	}
	return arche.Entity{}, false
}

// inputs returns the host's counts of client c's inputs.
func (r *rig) inputs(c *client) (predict.InputStats, bool) {
	var found predict.InputStats
	ok := false
	r.host.Do(func(*tandem.World) {
		for _, p := range r.host.AppendPeerStats(nil) {
			if p.Peer == c.Peer() {
				found, ok = p.Inputs, p.Inputs.Messages > 0
			}
		}
	})
	return found, ok
}

// pose returns client c's Transform of its own player.
func pose(c *client) ecs.Transform {
	e, ok := c.Local()
	if !ok {
		return ecs.Transform{}
	}
	return game.Of(c.World()).Pose(e)
}

func dist(a, b ecs.Transform) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }

// steer is a computer player for client c's own disc: the demo's bots.
func steer(n int) func(w *tandem.World) game.Input {
	var bot game.Bot
	started := false
	return func(w *tandem.World) game.Input {
		g := game.Of(w)
		if !started {
			bot, started = g.NewBot(n), true
		}
		for _, e := range w.ECS.Owned(w.Peer) {
			if g.IsPlayer(e) {
				return g.Steer(e, &bot)
			}
		}
		return game.Input{}
	}
}
