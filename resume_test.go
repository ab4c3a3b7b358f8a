package tandem

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// inputSpy is the host's end of a connection, reading the frames of the
// inputs that arrive on it: the oldest input frame of every KindInput
// message, before the session sees it.
type inputSpy struct {
	transport.Conn
	mu     sync.Mutex
	oldest ecs.Frame // the oldest input frame received; 0: none
	inputs int       // input messages
}

func (s *inputSpy) RecvDatagram() ([]byte, bool) {
	p, ok := s.Conn.RecvDatagram()
	if !ok {
		return p, ok
	}
	r := wire.NewReader(p)
	var h wire.Header
	if h.Decode(&r) != nil {
		return p, ok
	}
	for r.Len() > 0 && r.Err() == nil {
		k, body := wire.ReadMessage(&r, len(p))
		if k != wire.KindInput || r.Err() != nil {
			continue
		}
		br := wire.NewReader(body)
		newest := ecs.Frame(br.Uvarint())
		n := ecs.Frame(br.U8() &^ 0x80) // the count, less the unaligned flag (PROTOCOL.md §10)
		if br.Err() != nil || n == 0 || n > newest {
			continue
		}
		s.mu.Lock()
		if first := newest - n + 1; s.oldest == 0 || first < s.oldest {
			s.oldest = first
		}
		s.inputs++
		s.mu.Unlock()
	}
	return p, ok
}

// resumePair is a host of the test game and clients that reconnect by
// themselves, in memory on one fake clock, inside a synctest bubble (dials
// run on goroutines; every step waits for them).
type resumePair struct {
	t       *testing.T
	game    func() *Game[push] // the game host and clients run
	cfg     HostConfig
	clk     *clock.Fake
	net     *mem.Network
	l       transport.Listener
	host    *Host[push]
	clients []*rclient
	spies   []*inputSpy // the host's ends, in the order accepted
	resumed []Event     // the host's PeerResumed events
	left    []Event     // the host's PeerLeft events
}

// rclient is a client of a resumePair and its connections.
type rclient struct {
	*Client[push]
	mu    sync.Mutex
	conns []*mem.Conn
	block bool
}

func newResumePair(t *testing.T, link condition.Config, cfg HostConfig) *resumePair {
	return newResumePairOf(t, testGame, link, cfg)
}

// newResumePairOf is newResumePair for game.
func newResumePairOf(t *testing.T, game func() *Game[push], link condition.Config, cfg HostConfig) *resumePair {
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	n, err := mem.NewNetwork(clk, mem.Config{ToHost: link, ToClient: link})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := n.Listen("host")
	cfg.Clock = clk
	p := &resumePair{t: t, game: game, cfg: cfg, clk: clk, net: n, l: l}
	p.start()
	return p
}

// start makes the pair's host.
func (p *resumePair) start() {
	p.t.Helper()
	h, err := NewHost(p.game(), p.cfg)
	if err != nil {
		p.t.Fatal(err)
	}
	p.host = h
	p.t.Cleanup(func() { h.Close() })
	h.OnEvent(func(e Event) {
		switch e.Kind {
		case session.PeerResumed:
			p.resumed = append(p.resumed, e)
		case session.PeerLeft:
			p.left = append(p.left, e)
		}
	})
}

// join adds a client that reconnects by itself and runs until it plays.
func (p *resumePair) join(input func(w *World) push) *rclient {
	p.t.Helper()
	return p.joinAs(ClientConfig[push]{Input: input})
}

// joinAs is join with cfg (its clock and dial are the pair's).
func (p *resumePair) joinAs(cfg ClientConfig[push]) *rclient {
	return p.joinDialing(cfg, true)
}

// joinDialing is joinAs, the client given no way to dial again unless
// redial is set.
func (p *resumePair) joinDialing(cfg ClientConfig[push], redial bool) *rclient {
	p.t.Helper()
	rc := &rclient{}
	tc, _ := p.net.Dial(context.Background(), "host")
	rc.conns = append(rc.conns, tc.(*mem.Conn))
	cfg.Clock, cfg.Dial = p.clk, nil
	if redial {
		cfg.Dial = rc.dial(p.net)
	}
	c, err := NewClient(p.game(), tc, cfg)
	if err != nil {
		p.t.Fatal(err)
	}
	rc.Client = c
	p.clients = append(p.clients, rc)
	for i := 0; c.State() != session.Playing || !c.pred.Sync().Stats().Synced; i++ {
		if i > 10*120 {
			p.t.Fatalf("client never played: %v %v", c.State(), c.Err())
		}
		p.run(time.Second / 120)
	}
	return rc
}

func (rc *rclient) dial(n *mem.Network) func(ctx context.Context) (transport.Conn, error) {
	return func(ctx context.Context) (transport.Conn, error) {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if rc.block {
			return nil, fmt.Errorf("no route")
		}
		tc, err := n.Dial(ctx, "host")
		if err == nil {
			rc.conns = append(rc.conns, tc.(*mem.Conn))
		}
		return tc, err
	}
}

func (rc *rclient) conn() *mem.Conn {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.conns[len(rc.conns)-1]
}

// run advances the clock by d at 120 Hz, stepping every machine.
func (p *resumePair) run(d time.Duration) {
	for end := p.clk.Now().Add(d); p.clk.Now().Before(end); {
		p.clk.Advance(time.Second / 120)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 0)
			tc, err := p.l.Accept(ctx)
			cancel()
			if err != nil {
				break
			}
			spy := &inputSpy{Conn: tc}
			p.spies = append(p.spies, spy)
			p.host.Accept(spy)
		}
		p.host.Advance()
		for _, c := range p.clients {
			c.Advance()
		}
		synctest.Wait()
	}
}

// networkIDs returns the network ids peer owns in w.
func networkIDs(w *World, peer ecs.PeerID) []ecs.NetID {
	var ids []ecs.NetID
	for _, e := range w.ECS.Owned(peer) {
		ni, _ := w.ECS.Identity(e)
		ids = append(ids, ni.ID)
	}
	return ids
}

// A client's connection after a break starts from the round trip the old one
// measured, not from the default guess (NetStats.RTT read 200 ms after a
// resume on a 30 ms link), until it measures its own.
func TestResumedConnectionKeepsTheRoundTrip(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p := newResumePair(t, condition.Config{Latency: 15 * time.Millisecond}, HostConfig{})
		a := p.join(func(w *World) push { return push{X: 1} })
		p.run(time.Second)
		before := a.NetStats().RTT
		a.conn().Cut()
		for i := 0; a.NetStats().Resumes == 0; i++ {
			if i > 30*120 {
				t.Fatalf("not resumed: %v %v", a.State(), a.Err())
			}
			p.run(time.Second / 120)
		}
		after := a.NetStats().RTT
		if before > 100*time.Millisecond || after > 100*time.Millisecond {
			t.Fatalf("round trips %v before the break, %v at the resume, on a 30 ms link", before, after)
		}
	})
}

// A client whose connection breaks at a random moment comes back as the same
// player: the same peer id and owned network ids, the same entities on its
// own side, the host's entity count unchanged and the client's equal to it,
// the entity never gone for another player; while it is away its world is
// held still and its entity on the host gets the zero input; every input
// the host receives after the resume is for a frame after the resume's.
func TestClientResumesAfterABreak(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			bubble.Test(t, func(t *testing.T) { clientResumesAfterABreak(t, seed) })
		})
	}
}

func clientResumesAfterABreak(t *testing.T, seed uint64) {
	// The pushed player speeds up all along and flies thousands of units
	// from the watcher: past the interest grid's radius it would leave the
	// watcher's scope, which is not what this test watches.
	hc := HostConfig{Replication: replicate.HostConfig{Interest: replicate.InterestConfig{Off: true}}}
	p := newResumePair(t, condition.Config{Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02, Seed: seed}, hc)
	a := p.join(func(w *World) push { return push{X: 1} })
	watcher := p.join(nil)
	rng := rand.New(rand.NewPCG(seed, 3))
	p.run(time.Duration(200+rng.IntN(2000)) * time.Millisecond)

	peer := a.Peer()
	var ids []ecs.NetID
	var hostEntities int
	var hostE arche.Entity
	p.host.Do(func(w *World) {
		ids = networkIDs(w, peer)
		hostEntities = w.ECS.Networked()
		hostE = w.ECS.Owned(peer)[0]
	})
	var mine, theirs arche.Entity
	a.Do(func(w *World) { mine, _ = w.ECS.EntityOf(ids[0]) })
	watcher.Do(func(w *World) { theirs, _ = w.ECS.EntityOf(ids[0]) })
	var frameAtBreak ecs.Frame
	a.Do(func(w *World) { frameAtBreak = w.ECS.Frame() })

	// The link goes dark; the client notices by its own timeout, the host
	// still holds the connection when the client comes back.
	a.conn().Cut()
	away, held := false, false
	var frozen ecs.Frame
	for i := 0; a.State() != session.Playing || a.NetStats().Resumes == 0; i++ {
		if i > 30*120 {
			t.Fatalf("not back after 30 s: %v %v", a.State(), a.Err())
		}
		p.run(time.Second / 120)
		if e, ok := watcherHolds(watcher, ids[0]); !ok || e != theirs {
			t.Fatal("the watcher lost the player's entity during the break")
		}
		if a.State() == session.Reconnecting {
			var f ecs.Frame
			a.Do(func(w *World) { f = w.ECS.Frame() })
			if !away {
				away, frozen = true, f
			} else if f != frozen {
				t.Fatalf("the world was simulated while reconnecting: frame %d, held at %d", f, frozen)
			}
			if left := a.NetStats().ReconnectLeft; left <= 0 || left > 30*time.Second {
				t.Fatalf("reconnecting with %v of the window left", left)
			}
			p.host.Do(func(w *World) {
				in := (*Input[push])(w.ECS.Arche().Get(hostE, arche.ComponentID[Input[push]](w.ECS.Arche())))
				held = held || in.Value == (push{})
			})
		}
	}
	if !away || !held {
		t.Fatalf("the client was reconnecting: %v; its entity on the host took the zero input: %v", away, held)
	}
	if len(p.resumed) != 1 {
		t.Fatalf("the host resumed %d times", len(p.resumed))
	}
	resumeFrame := p.resumed[0].Frame
	p.run(2 * time.Second)

	if a.Peer() != peer || a.NetStats().Resumes != 1 || len(p.left) != 0 {
		t.Fatalf("client is peer %d (was %d) after %d resumes; peers left: %v", a.Peer(), peer, a.NetStats().Resumes, p.left)
	}
	p.host.Do(func(w *World) {
		if got := networkIDs(w, peer); len(got) != 1 || got[0] != ids[0] || w.ECS.Networked() != hostEntities {
			t.Fatalf("after the resume peer %d owns %v on the host (was %v), %d entities (was %d)", peer, got, ids, w.ECS.Networked(), hostEntities)
		}
	})
	a.Do(func(w *World) {
		if e, ok := w.ECS.EntityOf(ids[0]); !ok || e != mine || w.ECS.Networked() != hostEntities {
			t.Fatalf("the client holds %v for its entity (was %v) and %d entities (the host %d)", e, mine, w.ECS.Networked(), hostEntities)
		}
	})
	spy := p.spies[len(p.spies)-1]
	spy.mu.Lock()
	oldest, n := spy.oldest, spy.inputs
	spy.mu.Unlock()
	if n == 0 || oldest <= resumeFrame {
		t.Fatalf("after the resume at frame %d the host received %d input messages, the oldest for frame %d", resumeFrame, n, oldest)
	}
	var ps []PeerStats
	p.host.Do(func(*World) { ps = p.host.AppendPeerStats(nil) })
	for _, s := range ps {
		if s.Peer == peer && (s.Inputs.BeforeResume != 0 || s.Inputs.Exact == 0) {
			t.Fatalf("inputs after the resume: %+v", s.Inputs)
		}
	}
	t.Logf("broke at client frame %d; resumed at host frame %d; first input after it for frame %d", frameAtBreak, resumeFrame, oldest)
}

func watcherHolds(c *rclient, id ecs.NetID) (e arche.Entity, ok bool) {
	c.Do(func(w *World) { e, ok = w.ECS.EntityOf(id) })
	return e, ok
}

// A client whose resume the host refused (it came after the host's grace
// window) joins afresh, and that join is bounded by JoinTimeout from the
// refusal: the host stops answering then, and the client gives up
// JoinTimeout later, not at once (it joined long before) nor never.
func TestJoinTimeoutAfterARefusedResume(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p := newResumePair(t, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{Grace: 2 * time.Second})
		a := p.joinAs(ClientConfig[push]{JoinTimeout: 5 * time.Second})
		rejected := false
		a.OnEvent(func(e Event) { rejected = rejected || e.Kind == PeerRejected })
		p.run(6 * time.Second) // longer than the join bound since NewClient
		a.mu.Lock()
		a.block = true
		a.mu.Unlock()
		a.conn().Close(transport.CloseTimeout, "the host stopped answering")
		p.run(3 * time.Second) // past the host's window, within the client's
		a.mu.Lock()
		a.block = false
		a.mu.Unlock()
		for i := 0; !rejected; i++ {
			if i > 10*120 {
				t.Fatalf("the resume was not refused: %v, %v", a.State(), a.Err())
			}
			p.run(time.Second / 120)
		}
		// The host stops: only the client steps.
		clientFor := func(d time.Duration) {
			for end := p.clk.Now().Add(d); p.clk.Now().Before(end) && a.State() != Closed; {
				p.clk.Advance(time.Second / 120)
				a.Advance()
				synctest.Wait()
			}
		}
		clientFor(4 * time.Second)
		if a.State() == Closed {
			t.Fatalf("the fresh join was given up within 4 s of the refusal (bound 5 s): %v", a.Err())
		}
		clientFor(2 * time.Second)
		if err := a.Err(); a.State() != Closed || !errors.Is(err, ErrJoinTimeout) || !a.Joined() {
			t.Fatalf("6 s after the refusal: %v, %v, joined %t; want closed with ErrJoinTimeout, joined once", a.State(), err, a.Joined())
		}
	})
}
