package session

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// resumeRig is a host and clients that reconnect by themselves, over the
// in-memory transport on one fake clock, inside a synctest bubble: each
// client's dials run on goroutines, and every step waits for them, so a run
// is the same every time.
type resumeRig struct {
	t       *testing.T
	clk     *clock.Fake
	net     *mem.Network
	hw      *ecs.World
	hreg    *replicate.Registry
	hsched  *ecs.Schedule
	host    *Host
	mv      *mover
	spawn   generic.Map3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity]
	l       transport.Listener
	clients []*resumer
	events  []Event
	accepts []*mem.Conn // the host's ends, in the order taken
	// dupe is set when two admitted connections held one peer in a step.
	dupe string
	// schema is what the rig's clients say in their Hello and Resume.
	schema uint64
	// onLane, if set, is the rig's clients' OnLaneMessage.
	onLane func(transport.Lane, []byte)
}

// resumer is a client of the rig with a Dial of its own.
type resumer struct {
	*testClient
	rig    *resumeRig
	mu     sync.Mutex
	conns  []*mem.Conn // its ends, the first one's and each dial's
	addr   string      // where it dials
	block  bool        // dials fail
	hang   bool        // dials wait for their end, then fail with a nil *mem.Conn
	events []Event
}

func newResumeRig(t *testing.T, link condition.Config, cfg HostConfig) *resumeRig {
	clk := clock.NewFake(time.Unix(1000, 0))
	n, err := mem.NewNetwork(clk, mem.Config{ToHost: link, ToClient: link})
	if err != nil {
		t.Fatal(err)
	}
	return newResumeRigOn(t, n, clk, "host", cfg)
}

// newResumeRigOn is newResumeRig with a host listening at addr of network
// n, whose clock is clk.
func newResumeRigOn(t *testing.T, n *mem.Network, clk *clock.Fake, addr string, cfg HostConfig) *resumeRig {
	hw := ecs.NewWorld()
	r := &resumeRig{t: t, clk: clk, net: n, hw: hw, hreg: replicate.NewRegistry(hw), hsched: ecs.NewSchedule(hw, clk, 0)}
	r.mv = newMover(hw, 5, 50)
	r.mv.fixed = true
	r.hsched.Add("mover", r.mv)
	r.spawn = generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](hw.Arche())
	cfg.Clock = clk
	if cfg.OnJoin == nil {
		cfg.OnJoin = func(p ecs.PeerID, _ string) error {
			r.spawn.NewWith(&ecs.Transform{X: float64(p)}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p})
			return nil
		}
	}
	cfg.OnEvent = func(e Event) { r.events = append(r.events, e) }
	r.host = NewHost(r.hsched, r.hreg, cfg)
	var err error
	r.l, err = n.Listen(addr)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// join dials a client that reconnects by itself and runs until it plays.
func (r *resumeRig) join(name string) *resumer {
	r.t.Helper()
	c := r.dial(name, "host")
	for i := 0; c.cl.State() != Playing; i++ {
		if i > 600 {
			r.t.Fatalf("%s never joined: %v", name, c.cl.Err())
		}
		r.step()
	}
	return c
}

// dial connects a client to addr without running it.
func (r *resumeRig) dial(name, addr string) *resumer {
	r.t.Helper()
	return r.dialAs(name, addr, false)
}

// dialAs is dial for a player, or a spectator.
func (r *resumeRig) dialAs(name, addr string, spectator bool) *resumer {
	r.t.Helper()
	return r.dialWith(name, addr, func(cfg *ClientConfig) { cfg.Spectator = spectator })
}

// dialWith is dial with the client's config tuned by tune.
func (r *resumeRig) dialWith(name, addr string, tune func(*ClientConfig)) *resumer {
	r.t.Helper()
	c := &resumer{rig: r, addr: addr}
	tc, err := r.net.Dial(context.Background(), addr)
	if err != nil {
		r.t.Fatal(err)
	}
	c.conns = append(c.conns, tc.(*mem.Conn))
	w := ecs.NewWorld()
	c.testClient = &testClient{w: w, reg: replicate.NewRegistry(w), sched: ecs.NewSchedule(w, r.clk, 0)}
	cfg := ClientConfig{Name: name, Clock: r.clk, Dial: c.redial, Schema: r.schema, OnLaneMessage: r.onLane,
		OnEvent: func(e Event) { c.events = append(c.events, e) }}
	tune(&cfg)
	c.cl, err = NewClient(c.sched, c.reg, tc, cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	r.clients = append(r.clients, c)
	return c
}

// redial is the client's Dial: on its own goroutine.
func (c *resumer) redial(ctx context.Context) (transport.Conn, error) {
	c.mu.Lock()
	if c.hang {
		c.mu.Unlock()
		<-ctx.Done()
		var none *mem.Conn // as a transport whose dial returns its own type
		return none, ctx.Err()
	}
	defer c.mu.Unlock()
	if c.block {
		return nil, errors.New("no route to the host")
	}
	tc, err := c.rig.net.Dial(ctx, c.addr)
	if err != nil {
		return nil, err
	}
	c.conns = append(c.conns, tc.(*mem.Conn))
	return tc, nil
}

// conn returns the client's newest end.
func (c *resumer) conn() *mem.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conns[len(c.conns)-1]
}

func (c *resumer) setBlock(b bool) {
	c.mu.Lock()
	c.block = b
	c.mu.Unlock()
}

// count returns how many of the client's events are of kind k.
func (c *resumer) count(k EventKind) int { return countEvents(c.events, k) }

func countEvents(es []Event, k EventKind) int {
	n := 0
	for _, e := range es {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// step runs one frame of every machine, then lets the dials finish.
func (r *resumeRig) step() {
	r.clk.Advance(ecs.DefaultStep)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 0)
		tc, err := r.l.Accept(ctx)
		cancel()
		if err != nil {
			break
		}
		r.accepts = append(r.accepts, tc.(*mem.Conn))
		r.host.Accept(tc)
	}
	r.hsched.Step()
	seen := map[ecs.PeerID]bool{}
	for _, p := range r.host.Peers() {
		if seen[p] && r.dupe == "" {
			r.dupe = fmt.Sprintf("frame %d: peer %d bound to two connections", r.hw.Frame(), p)
		}
		seen[p] = true
	}
	for _, c := range r.clients {
		c.sched.Step()
	}
	synctest.Wait()
}

func (r *resumeRig) steps(d time.Duration) {
	for range int(d / ecs.DefaultStep) {
		r.step()
	}
}

// owned returns the network ids peer owns on the host.
func (r *resumeRig) owned(peer ecs.PeerID) []ecs.NetID {
	var ids []ecs.NetID
	for _, e := range r.hw.Owned(peer) {
		ni, _ := r.hw.Identity(e)
		ids = append(ids, ni.ID)
	}
	return ids
}

// hostCount returns how many of the host's events are of kind k for peer.
func (r *resumeRig) hostCount(k EventKind, peer ecs.PeerID) int {
	n := 0
	for _, e := range r.events {
		if e.Kind == k && e.Peer == peer {
			n++
		}
	}
	return n
}

// A client closed while it dials again after a break stops the dial, and
// what the dial returns when it ends (an error, beside a nil connection of
// the transport's own type) is not closed as a connection.
func TestCloseWhileDialingAgain(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{})
		a := r.join("a")
		a.mu.Lock()
		a.hang = true
		a.mu.Unlock()
		a.conn().Close(transport.CloseTimeout, "the host stopped answering")
		for i := 0; a.cl.re.dial == nil; i++ {
			if i > 60 {
				t.Fatalf("no dial under way after the break: %v", a.cl.State())
			}
			r.step()
		}
		a.cl.Close()
		synctest.Wait() // the dial's end is taken, and nothing panicked
		if a.cl.State() != Closed {
			t.Fatalf("after Close: %v", a.cl.State())
		}
	})
}

// A connection broken at a random moment is resumed within the window: the
// same peer id and owned entities, the host's entity count unchanged, the
// client's world the host's again, State flowing within two send ticks of
// the resume, and another peer never seeing the entity go. The break is
// clean (the client closes for a timeout and the host hears of it) or a
// black hole (the host still holds the old connection, which the resume
// replaces: one peer is never bound to two connections).
func TestResumeAfterABreak(t *testing.T) {
	for seed := range uint64(6) {
		hole := seed%2 == 1
		t.Run(fmt.Sprintf("seed%d-hole%v", seed, hole), func(t *testing.T) {
			bubble.Test(t, func(t *testing.T) { resumeAfterABreak(t, seed, hole) })
		})
	}
}

func resumeAfterABreak(t *testing.T, seed uint64, hole bool) {
	r := newResumeRig(t, condition.Config{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02, Seed: seed}, HostConfig{})
	a := r.join("a")
	watcher := r.join("watcher")
	rng := rand.New(rand.NewPCG(seed, 7))
	r.steps(time.Duration(rng.IntN(300)) * ecs.DefaultStep)

	peer := a.cl.Peer()
	ids := r.owned(peer)
	if len(ids) != 1 {
		t.Fatalf("peer %d owns %v on the host", peer, ids)
	}
	entities := r.hw.Networked()
	heldBy := func(c *resumer) (arche.Entity, bool) { return c.w.EntityOf(ids[0]) }
	mine, _ := heldBy(a)
	theirs, _ := heldBy(watcher)
	old := a.conn()
	hostOld := r.accepts[0]
	if hole {
		old.Cut()
		r.steps(time.Duration(rng.IntN(60)) * ecs.DefaultStep)
		old.Close(transport.CloseTimeout, "the host stopped answering") // the client notices
	} else {
		old.Close(transport.CloseTimeout, "the host stopped answering")
	}

	resumedAt := ecs.Frame(0)
	stateAt := ecs.Frame(0)
	for i := 0; a.cl.State() != Playing || stateAt == 0; i++ {
		if i > 10*60 {
			t.Fatalf("not resumed after 10 s: state %v, %v", a.cl.State(), a.cl.Err())
		}
		r.step()
		if e, ok := heldBy(watcher); !ok || e != theirs {
			t.Fatalf("the watcher lost the peer's entity %d during the break", ids[0])
		}
		if resumedAt == 0 && r.hostCount(PeerResumed, peer) == 1 {
			resumedAt = r.hw.Frame()
		}
		if _, rs, ok := r.host.PeerStats(peer); ok && resumedAt != 0 && stateAt == 0 && rs.Messages > 0 {
			stateAt = r.hw.Frame()
		}
	}
	if r.dupe != "" {
		t.Fatal(r.dupe)
	}
	if a.cl.Peer() != peer || a.cl.Resumes() != 1 || a.count(PeerResumed) != 1 || a.count(PeerJoined) != 1 {
		t.Fatalf("client is peer %d (was %d) after %d resumes; events %v", a.cl.Peer(), peer, a.cl.Resumes(), a.events)
	}
	if got := r.owned(peer); len(got) != 1 || got[0] != ids[0] || r.hw.Networked() != entities {
		t.Fatalf("after the resume peer %d owns %v (was %v), the host holds %d entities (was %d)", peer, got, ids, r.hw.Networked(), entities)
	}
	if e, ok := heldBy(a); !ok || e != mine {
		t.Fatalf("the client's own entity was replaced: %v, was %v", e, mine)
	}
	if ws := watcher.cl.Replicator().Stats(); ws.Despawns != 0 || ws.Spawns != uint64(entities) {
		t.Fatalf("the watcher saw %d removals and %d spawns; want none and the %d it joined with", ws.Despawns, ws.Spawns, entities)
	}
	if hole {
		var ce *transport.CloseError
		if !errors.As(hostOld.Err(), &ce) || ce.Code != transport.CloseReplaced || ce.Remote {
			t.Fatalf("the host's old connection ended with %v, want closed by the host as replaced", hostOld.Err())
		}
	}
	// Every resume follows a disconnection: one the host saw, or, when it
	// still held the old connection, one told right before the resume.
	var kinds []EventKind
	for _, e := range r.events {
		if e.Peer == peer && (e.Kind == PeerDisconnected || e.Kind == PeerResumed) {
			kinds = append(kinds, e.Kind)
			if e.Kind == PeerDisconnected && hole != errors.Is(e.Err, ErrResumedElsewhere) {
				t.Fatalf("disconnected with %v (the host still held the old connection: %v)", e.Err, hole)
			}
		}
	}
	if !slices.Equal(kinds, []EventKind{PeerDisconnected, PeerResumed}) {
		t.Fatalf("host events of the peer %v: want disconnected, then resumed", kinds)
	}
	if n := r.hostCount(PeerLeft, peer); n != 0 {
		t.Fatalf("the host reported the resumed peer left %d times", n)
	}
	sendEvery := ecs.Frame(r.host.Replicator().Config().SendEvery)
	if stateAt-resumedAt > 2*sendEvery {
		t.Fatalf("State flowed %d frames after the resume (frame %d), more than two send ticks", stateAt-resumedAt, resumedAt)
	}
	r.mv.still = true
	r.steps(time.Second)
	sameImage(t, "resumed", r.hw, r.hreg, a.w, a.reg)
	sameImage(t, "watcher", r.hw, r.hreg, watcher.w, watcher.reg)
	if st := r.host.Stats(); st.Resumed != 1 || st.ResumeRefused != 0 {
		t.Fatalf("host stats %+v", st)
	}
}

// A resume that comes after the window is refused with a reason: the
// client joins afresh as a new peer, and the old peer's entity is removed
// once, on the host and on the client.
func TestResumeAfterTheWindowJoinsAfresh(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{Grace: 2 * time.Second})
		a := r.join("a")
		peer := a.cl.Peer()
		ids := r.owned(peer)
		removed := map[ecs.NetID]int{}
		a.setBlock(true)
		a.conn().Close(transport.CloseTimeout, "the host stopped answering")
		r.steps(3 * time.Second) // past the host's window, within the client's
		if a.cl.State() != Reconnecting {
			t.Fatalf("client %v while the host cannot be reached", a.cl.State())
		}
		if left := a.cl.ReconnectLeft(); left != 0 {
			t.Fatalf("%v of the window left after it ran out", left)
		}
		for _, e := range r.events {
			if e.Kind == PeerLeft && e.Peer == peer {
				if !errors.Is(e.Err, ErrGraceExpired) {
					t.Fatalf("the peer left with %v, want ErrGraceExpired", e.Err)
				}
				for _, id := range ids {
					removed[id]++
				}
			}
		}
		if len(r.owned(peer)) != 0 || removed[ids[0]] != 1 {
			t.Fatalf("after the window peer %d owns %v; it left %d times", peer, r.owned(peer), removed[ids[0]])
		}
		a.setBlock(false)
		for i := 0; a.cl.State() != Playing; i++ {
			if i > 10*60 {
				t.Fatalf("not joined afresh: %v, %v", a.cl.State(), a.cl.Err())
			}
			r.step()
		}
		var rj *RejectError
		for _, e := range a.events {
			if e.Kind == PeerRejected && errors.As(e.Err, &rj) {
				break
			}
		}
		if rj == nil || rj.Code != wire.RejectResume || rj.Reason == "" {
			t.Fatalf("client events %v: want the resume refused with RejectResume and a reason", a.events)
		}
		if a.cl.Resumes() != 0 || a.count(PeerJoined) != 2 {
			t.Fatalf("client: %d resumes, %d joins; want a fresh join", a.cl.Resumes(), a.count(PeerJoined))
		}
		now := r.owned(a.cl.Peer())
		if len(now) != 1 || now[0] == ids[0] {
			t.Fatalf("the fresh peer owns %v; want one new entity (the old one was %v)", now, ids)
		}
		if _, held := a.w.EntityOf(ids[0]); held || a.cl.Replicator().Stats().Swept != 1 {
			t.Fatalf("the client holds the old entity %v (swept %d), want it removed once", held, a.cl.Replicator().Stats().Swept)
		}
		r.mv.still = true
		r.steps(time.Second)
		sameImage(t, "fresh", r.hw, r.hreg, a.w, a.reg)
		if st := r.host.Stats(); st.Expired != 1 || st.ResumeRefused != 1 || st.Resumed != 0 {
			t.Fatalf("host stats %+v", st)
		}
	})
}

// A connection that breaks before the join's final page is never resumed:
// the client's Resume is refused, the peer it was leaves, and the client
// joins afresh.
func TestDropBeforeTheJoinEndsJoinsAfresh(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{
			Replication: replicate.HostConfig{JoinPage: 256, JoinWindow: 512},
		})
		for range 400 {
			r.mv.spawn()
		}
		r.mv.still = true
		a := r.dial("a", "host")
		for a.cl.State() != Joining {
			r.step()
		}
		r.steps(100 * time.Millisecond)
		if got, total := a.cl.Progress(); got >= total {
			t.Fatalf("the join finished (%d of %d) before the test could break it", got, total)
		}
		first := a.cl.Peer()
		a.conn().Cut() // the host still holds it, mid-join
		a.conn().Close(transport.CloseTimeout, "the host stopped answering")
		for i := 0; a.cl.State() != Playing; i++ {
			if i > 20*60 {
				t.Fatalf("not joined afresh: %v, %v", a.cl.State(), a.cl.Err())
			}
			r.step()
		}
		if a.cl.Resumes() != 0 || a.count(PeerRejected) != 1 || r.host.Stats().ResumeRefused != 1 {
			t.Fatalf("a peer that dropped mid-join: %d resumes, events %v, host %+v", a.cl.Resumes(), a.events, r.host.Stats())
		}
		if r.hostCount(PeerLeft, first) != 1 || r.hostCount(PeerResumed, first) != 0 {
			t.Fatalf("host events %v: the first peer must leave, not resume", r.events)
		}
		if n := len(r.owned(a.cl.Peer())); n != 1 || len(r.host.Peers()) != 1 {
			t.Fatalf("the fresh peer owns %d entities, the host has peers %v", n, r.host.Peers())
		}
		r.steps(time.Second)
		sameImage(t, "fresh", r.hw, r.hreg, a.w, a.reg)
	})
}

// A connection that breaks again while the world is joined anew after a
// resume is resumed again: the client held the whole world before, and the
// next join brings all of it.
func TestBreakDuringTheRejoinResumesAgain(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{
			Replication: replicate.HostConfig{JoinPage: 256, JoinWindow: 512},
		})
		for range 400 {
			r.mv.spawn()
		}
		r.mv.still = true
		a := r.join("a")
		peer := a.cl.Peer()
		a.conn().Close(transport.CloseTimeout, "the host stopped answering")
		for a.cl.Resumes() == 0 {
			r.step()
		}
		r.steps(50 * time.Millisecond)
		if got, total := a.cl.Progress(); a.cl.State() != Joining || got >= total {
			t.Fatalf("the rejoin is not under way (%v, %d of %d): the test cannot break it", a.cl.State(), got, total)
		}
		a.conn().Cut()
		a.conn().Close(transport.CloseTimeout, "the host stopped answering")
		for i := 0; a.cl.State() != Playing; i++ {
			if i > 20*60 {
				t.Fatalf("not back: %v %v", a.cl.State(), a.cl.Err())
			}
			r.step()
		}
		if a.cl.Peer() != peer || a.cl.Resumes() != 2 || a.count(PeerRejected) != 0 || r.hostCount(PeerLeft, peer) != 0 {
			t.Fatalf("after a break mid-rejoin: peer %d (was %d), %d resumes, events %v; host events %v", a.cl.Peer(), peer, a.cl.Resumes(), a.events, r.events)
		}
		r.steps(time.Second)
		sameImage(t, "resumed twice", r.hw, r.hreg, a.w, a.reg)
	})
}

// A host whose observer ends a peer when its connection breaks (a kick on
// PeerDisconnected: no reconnects in this game) is obeyed when the client
// resumed before the host saw the break: the break is told, the peer
// leaves, and its resume is refused; the client joins afresh as a new
// peer. It is never resumed after it left.
func TestKickOnABreakRefusesTheResume(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 30 * time.Millisecond}, HostConfig{})
		told := r.host.cfg.OnEvent
		r.host.cfg.OnEvent = func(e Event) {
			told(e)
			if e.Kind == PeerDisconnected {
				r.host.Kick(e.Peer, "no reconnects in this game")
			}
		}
		a := r.join("a")
		r.steps(30 * time.Millisecond)
		peer := a.cl.Peer()
		old := a.conn()
		old.Cut()
		r.steps(100 * time.Millisecond)
		old.Close(transport.CloseTimeout, "the host stopped answering") // the client notices first
		for i := 0; a.cl.State() != Playing || a.count(PeerRejected) == 0; i++ {
			if i > 10*60 {
				t.Fatalf("not refused and playing again after 10 s: %v, %d refusals, %v", a.cl.State(), a.count(PeerRejected), a.cl.Err())
			}
			r.step()
		}
		var kinds []EventKind
		for _, e := range r.events {
			if e.Peer == peer && e.Kind != PeerJoined && e.Kind != PeerReady {
				kinds = append(kinds, e.Kind)
			}
		}
		if !slices.Equal(kinds, []EventKind{PeerDisconnected, PeerLeft}) {
			t.Fatalf("host events of the kicked peer %v: want disconnected, then left, never resumed", kinds)
		}
		if a.cl.Resumes() != 0 || r.host.Stats().Resumed != 0 || r.host.Stats().ResumeRefused != 1 {
			t.Fatalf("the client resumed %d times, the host %+v: want the resume refused", a.cl.Resumes(), r.host.Stats())
		}
	})
}
