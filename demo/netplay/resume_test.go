package netplay

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
)

// dropper is a client's way to the host that the test can break: its
// connections, and dials that fail while the network is down.
type dropper struct {
	net   *mem.Network
	mu    sync.Mutex
	conns []*mem.Conn
	down  bool
}

func (d *dropper) dial(ctx context.Context) (transport.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.down {
		return nil, errors.New("network unreachable")
	}
	tc, err := d.net.Dial(ctx, "host")
	if err == nil {
		d.conns = append(d.conns, tc.(*mem.Conn))
	}
	return tc, err
}

// cut breaks the connection now, and keeps the network down (dials fail).
func (d *dropper) cut() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.conns[len(d.conns)-1].Cut()
	d.down = true
}

func (d *dropper) up() {
	d.mu.Lock()
	d.down = false
	d.mu.Unlock()
}

// joinResumable dials the host with a client that reconnects by itself
// through d.
func (r *rig) joinResumable(name string, input func(w *tandem.World) game.Input, d *dropper) *client {
	r.t.Helper()
	tc, err := d.dial(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	c, err := tandem.NewClient(r.game, tc, tandem.ClientConfig[game.Input]{Name: name, Clock: r.clk, Input: input, Dial: d.dial})
	if err != nil {
		r.t.Fatal(err)
	}
	c.Advance()
	r.clients = append(r.clients, c)
	r.names[c] = name
	return c
}

// TestResumeSoak plays 10 simulated minutes over links of 75 ms ± 15 ms
// each way losing 5% of the datagrams, on a fake clock, with two players
// chasing the probe. Every 20 to 60 s the runner's connection goes dark and
// its network stays down for up to 15 s; the client notices by itself,
// reconnects and resumes. It holds:
//   - every break is resumed as the same peer: the host's count of
//     networked entities never changes, and after every resume the runner
//     holds the host's count, one player of its own on each side, nothing
//     twice;
//   - the watcher, which never breaks, never loses or gets again an entity;
//   - no input lost outside the gaps: from 2 s after each resume until the
//     next break, the host applies every frame of the runner with that
//     frame's own input (none repeated, none late), and every frame of the
//     watcher after the first 5 s likewise.
func TestResumeSoak(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		link := condition.Config{Latency: 75 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.05, Seed: 21}
		var pr probe
		r := newRig(t, link, 0, &pr)
		r.bubble = true
		pr.g = r.hg
		d := &dropper{net: r.net}
		var stop bool
		runner := r.joinResumable("runner", chase(0, &stop), d)
		// The watcher's game counts every entity it receives.
		arrivals := 0
		wg := *r.game
		wg.Arrived = func(w *tandem.World, e arche.Entity) {
			arrivals++
			r.game.Arrived(w, e)
		}
		watcher := r.joinGame(&wg, "watcher", chase(1, &stop))
		r.run(5*time.Second, nil)
		entities := r.hg.World.Networked()
		watcherArrivals := arrivals
		var runnerID ecs.NetID
		for _, e := range r.hg.World.Owned(runner.Peer()) {
			ni, _ := r.hg.World.Identity(e)
			runnerID = ni.ID
		}
		var seen arche.Entity
		watcher.Do(func(w *tandem.World) { seen, _ = w.ECS.EntityOf(runnerID) })
		wBefore, _ := r.inputs(watcher)

		rng := rand.New(rand.NewPCG(21, 5))
		const settle = 1 * time.Second // after a resume, for the lead to settle
		const minutes = 10
		end := r.clk.Now().Add(minutes * time.Minute)
		var gaps []time.Duration
		breaks, exactFrames := 0, uint64(0)
		for r.clk.Now().Before(end) {
			// Play until the next break, checking the frames after the
			// settling time.
			play := time.Duration(20+rng.IntN(41)) * time.Second
			r.run(settle, nil)
			before, _ := r.inputs(runner)
			r.run(play-settle, nil)
			after, _ := r.inputs(runner)
			ex := after.Exact - before.Exact
			rep, late := after.Repeated-before.Repeated, after.LateApplied-before.LateApplied
			if rep != 0 || late != 0 || ex < uint64((play-settle)/ecs.DefaultStep)-2 {
				t.Fatalf("break %d: between resumes the host applied %d frames of the runner with their own input, %d repeated, %d late", breaks, ex, rep, late)
			}
			exactFrames += ex
			if r.hg.World.Networked() != entities {
				t.Fatalf("the host holds %d entities, %d at the start", r.hg.World.Networked(), entities)
			}

			// The break: dark at once, the network down for a while.
			breaks++
			resumes := runner.NetStats().Resumes
			down := time.Duration(rng.IntN(15000)) * time.Millisecond
			start := r.clk.Now()
			d.cut()
			r.run(down, nil)
			d.up()
			for runner.State() != session.Playing || runner.NetStats().Resumes == resumes {
				if r.clk.Now().Sub(start) > 40*time.Second {
					t.Fatalf("break %d: not back 40 s after it (down %v): %v %v", breaks, down, runner.State(), runner.Err())
				}
				r.run(r.tick, nil)
			}
			gaps = append(gaps, r.clk.Now().Sub(start))
			if got := runner.NetStats().Resumes; got != resumes+1 {
				t.Fatalf("break %d: %d resumes, want %d", breaks, got, resumes+1)
			}
			r.run(time.Second, nil)
			checkHeld(t, r, runner, entities)
		}
		ns := runner.NetStats()
		hs := r.host.Stats()
		t.Logf("%d breaks in %d simulated minutes, each resumed; gaps (break to playing again) %v", breaks, minutes, gaps)
		t.Logf("runner: %d frames checked between breaks, every one with its own input; rtt %v loss %.3f; host %+v", exactFrames, ns.RTT, ns.Loss, hs)
		if ns.Resumes != breaks || hs.Resumed != breaks || hs.Left != 0 || breaks < minutes*60/60 {
			t.Fatalf("%d breaks, %d resumes on the client, %d on the host, %d peers left", breaks, ns.Resumes, hs.Resumed, hs.Left)
		}
		var now arche.Entity
		watcher.Do(func(w *tandem.World) { now, _ = w.ECS.EntityOf(runnerID) })
		if arrivals != watcherArrivals || now != seen || now.IsZero() {
			t.Fatalf("the watcher received %d entities after its join (%d at it), and holds %v for the runner's player (%v at the start): a despawn and respawn", arrivals, watcherArrivals, now, seen)
		}
		wAfter, _ := r.inputs(watcher)
		if rep, late := wAfter.Repeated-wBefore.Repeated, wAfter.LateApplied-wBefore.LateApplied; rep != 0 || late != 0 {
			t.Fatalf("the watcher lost inputs: %d repeated, %d late", rep, late)
		}
	})
}

// checkHeld asserts that client c holds the host's networked entities,
// each network id once, one player of its own on each side.
func checkHeld(t *testing.T, r *rig, c *client, entities int) {
	t.Helper()
	var ids []ecs.NetID
	c.Do(func(w *tandem.World) {
		for slot := int32(0); int(slot) < w.ECS.NetSlots(); slot++ {
			if _, id, ok := w.ECS.SlotEntity(slot); ok {
				ids = append(ids, id)
			}
		}
	})
	seen := map[ecs.NetID]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("the client holds network id %d twice", id)
		}
		seen[id] = true
		if _, ok := r.hg.World.EntityOf(id); !ok {
			t.Fatalf("the client holds network id %d, which the host does not", id)
		}
	}
	if len(ids) != entities || r.hg.World.Networked() != entities {
		t.Fatalf("after a resume the client holds %d entities, the host %d, %d at the start", len(ids), r.hg.World.Networked(), entities)
	}
	players := 0
	for _, e := range r.hg.World.Owned(c.Peer()) {
		if r.hg.IsPlayer(e) {
			players++
		}
	}
	if _, ok := c.Local(); !ok || players != 1 {
		t.Fatalf("after a resume the host has %d players of the runner's, the client its own: %v", players, ok)
	}
}
