package tandem

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

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

// A Join hook that refuses a peer sends its reason to the client, whose Err
// wraps ErrRefused with it; nothing of the peer stays on the host.
func TestJoinRefusalReachesTheClient(t *testing.T) {
	g := testGame()
	g.Join = func(w *World, p Peer) error { return Refuse("the blue team is full") }
	p := newPair(t, g, condition.Config{Latency: 10 * time.Millisecond})
	p.run(time.Second)
	err := p.client.Err()
	var rj *session.RejectError
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "the blue team is full") {
		t.Fatalf("client error %v, want ErrRefused with the host's reason", err)
	}
	if !errors.As(err, &rj) || rj.Code != wire.RejectDenied || rj.Reason != "the blue team is full" {
		t.Fatalf("client error %v, want the host's Reject (denied) with the hook's reason", err)
	}
	if st := p.client.State(); st != session.Closed {
		t.Fatalf("refused client is %v, want closed", st)
	}
	if s := p.host.Stats(); s.Refused != 1 || s.Joined != 0 || s.Peers != 0 {
		t.Fatalf("host stats %+v, want one refusal and nobody in", s)
	}
	if n := p.host.World().ECS.Networked(); n != 0 {
		t.Fatalf("the host holds %d networked entities after refusing the only peer", n)
	}
}

// HostConfig.Admit refuses a player before anything is given to it: the
// client reads the reason in the host's Reject, Game.Join never runs.
func TestAdmitRefusesBeforeJoin(t *testing.T) {
	g := testGame()
	joins := 0
	join := g.Join
	g.Join = func(w *World, p Peer) error { joins++; return join(w, p) }
	p := newPairWith(t, g, g, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{
		Admit: func(a session.Arrival) error { return Refuse("the server is closed for maintenance") },
	})
	p.run(time.Second)
	var rj *session.RejectError
	if err := p.client.Err(); !errors.Is(err, ErrRefused) || !errors.As(err, &rj) || rj.Reason != "the server is closed for maintenance" {
		t.Fatalf("client error %v, want the Admit hook's reason in a Reject", err)
	}
	if s := p.host.Stats(); joins != 0 || s.Joined != 0 || s.Peers != 0 {
		t.Fatalf("Join ran %d times; host stats %+v", joins, s)
	}
}

// Every peer's input reaches the entities it owns, each frame, on the host;
// the host's own input reaches the entities it owns; a Bot's is left alone.
func TestInputIsRoutedToOwnedEntities(t *testing.T) {
	p := newPair(t, testGame(), condition.Config{Latency: 10 * time.Millisecond})
	var mine, bot arche.Entity
	p.host.Do(func(w *World) {
		a := w.ECS.Arche()
		m := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, Input[push]](a)
		mine = m.NewWith(&ecs.Transform{Y: 100}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: ecs.HostPeer}, &Input[push]{})
		bot = m.NewWith(&ecs.Transform{Y: -100}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: ecs.HostPeer}, &Input[push]{Bot: true, Value: push{X: -1}})
	})
	p.host.SetInput(push{X: 2})
	p.client.SetInput(push{X: 1})
	p.run(time.Second)
	in := func(e arche.Entity) (v Input[push]) {
		p.host.Do(func(w *World) {
			v = *(*Input[push])(w.ECS.Arche().Get(e, arche.ComponentID[Input[push]](w.ECS.Arche())))
		})
		return v
	}
	if v := in(mine); v.Value.X != 2 {
		t.Errorf("the host's own entity took input %+v, want the host's X=2", v)
	}
	if v := in(bot); v.Value.X != -1 {
		t.Errorf("a bot's input was overwritten: %+v", v)
	}
	var peers arche.Entity
	var frame float64
	p.host.Do(func(w *World) { peers, frame = w.ECS.Owned(p.client.Peer())[0], float64(w.ECS.Frame()) })
	if v := in(peers); v.Value.X != 1 {
		t.Errorf("the peer's entity on the host took input %+v, want the peer's X=1", v)
	}
	// The host's own player sees the present, and a Bot (the engine writing
	// its view as it leaves its Value alone); the peer, which draws nothing,
	// the newest states it can hold: its lead and half a round trip behind
	// its frame.
	for name, e := range map[string]arche.Entity{"the host's own": mine, "the bot's": bot} {
		if v := in(e); v.View != frame {
			t.Errorf("%s entity's view: %v, want the host's frame %v", name, v.View, frame)
		}
	}
	if v := in(peers); !(v.View > frame-8 && v.View < frame-1) {
		t.Errorf("the peer's entity's view: %v, want its newest states' frame, a few frames before %v", v.View, frame)
	}
}

// Driven finds the entity each peer's input drives: on the host any
// peer's, the host's own (not its bot, made first), and nothing of a peer
// that drives none; on the client its own, as Local.
func TestDrivenFindsEachPeersEntity(t *testing.T) {
	p := newPair(t, testGame(), condition.Config{Latency: 10 * time.Millisecond})
	var mine arche.Entity
	p.host.Do(func(w *World) {
		m := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, Input[push]](w.ECS.Arche())
		m.NewWith(&ecs.Transform{Y: -100}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: ecs.HostPeer}, &Input[push]{Bot: true})
		mine = m.NewWith(&ecs.Transform{Y: 100}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: ecs.HostPeer}, &Input[push]{})
	})
	p.run(time.Second)
	peer := p.client.Peer()
	p.host.Do(func(w *World) {
		if e, ok := Driven[push](w, ecs.HostPeer); !ok || e != mine {
			t.Errorf("the host's own: %v %t, want %v (not the bot)", e, ok, mine)
		}
		owned := w.ECS.Owned(peer)
		if e, ok := Driven[push](w, peer); len(owned) != 1 || !ok || e != owned[0] {
			t.Errorf("peer %d's on the host: %v %t, want its entity %v", peer, e, ok, owned)
		}
		if e, ok := Driven[push](w, peer+1); ok {
			t.Errorf("a peer that is not there drives %v", e)
		}
		if n := testing.AllocsPerRun(100, func() { Driven[push](w, peer) }); n != 0 {
			t.Errorf("Driven allocates %.1f times a call, want none", n)
		}
		// Another input type than the Game's panics, naming the Game's
		// (Go cannot infer it: a wrong one found nothing, silently).
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "Driven[int] on a world whose Game's input is tandem.push") {
					t.Errorf("Driven of another input type: panic %v; want one naming both types", p)
				}
			}()
			Driven[int](w, peer)
		}()
	})
	p.client.Do(func(w *World) {
		local, lok := p.client.Local()
		e, ok := Driven[push](w, w.Peer)
		if !ok || !lok || e != local {
			t.Errorf("the client's own: %v %t, Local %v %t", e, ok, local, lok)
		}
		if id, _ := w.ECS.Identity(e); id.Owner != peer {
			t.Errorf("the client drives an entity of peer %d, not its own %d", id.Owner, peer)
		}
	})
}

// Alone, the player drives its networked entities and those of this machine
// alone (Input without NetworkIdentity), as the input routing does.
func TestDrivenAlone(t *testing.T) {
	l, err := NewLocal(testGame(), LocalConfig{Clock: clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	l.Do(func(w *World) {
		if e, ok := Driven[push](w, ecs.HostPeer); ok {
			t.Fatalf("an empty world drives %v", e)
		}
		a := w.ECS.Arche()
		m := generic.NewMap2[ecs.Transform, Input[push]](a)
		m.NewWith(&ecs.Transform{}, &Input[push]{Bot: true})
		cursor := m.NewWith(&ecs.Transform{}, &Input[push]{})
		if e, ok := Driven[push](w, ecs.HostPeer); !ok || e != cursor {
			t.Fatalf("alone: %v %t, want the player's own entity %v (not the bot)", e, ok, cursor)
		}
		if e, ok := Driven[push](w, 1); ok {
			t.Fatalf("peer 1 drives %v in a game alone", e)
		}
		if n := testing.AllocsPerRun(100, func() { Driven[push](w, ecs.HostPeer) }); n != 0 {
			t.Fatalf("Driven of this machine's own entity allocates %.1f times a call", n)
		}
	})
	// On a host, the host's player drives this machine's own entities too.
	h, err := NewHost(testGame(), HostConfig{Clock: clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	h.Do(func(w *World) {
		m := generic.NewMap1[Input[push]](w.ECS.Arche())
		cursor := m.NewWith(&Input[push]{})
		if e, ok := Driven[push](w, ecs.HostPeer); !ok || e != cursor {
			t.Fatalf("on a host: %v %t, want the host's own entity %v", e, ok, cursor)
		}
	})
}

// A client built from a Game of another step than the host's refuses to
// play, saying why.
func TestClientRefusesAnotherStep(t *testing.T) {
	hg, cg := testGame(), testGame()
	cg.Step = time.Second / 30
	p := newPairOf(t, hg, cg, condition.Config{Latency: 10 * time.Millisecond})
	p.run(time.Second)
	if err := p.client.Err(); err == nil || !strings.Contains(err.Error(), "same Game") {
		t.Fatalf("client error %v, want a tick-rate mismatch naming the cure", err)
	}
}

// A client whose Game replicates the host's components in another order (two
// of three fields each: it would read one's bytes as the other's, with no
// error) is refused at its Hello with both schemas, and never joins.
func TestClientOfAnotherBuildIsRefused(t *testing.T) {
	hg, cg := testGame(), testGame()
	cg.Components[0], cg.Components[1] = cg.Components[1], cg.Components[0]
	p := newPairOf(t, hg, cg, condition.Config{Latency: 10 * time.Millisecond})
	p.run(time.Second)
	err := p.client.Err()
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "another build") ||
		!strings.Contains(err.Error(), fmt.Sprintf("%016x", hg.Schema())) || p.client.Joined() {
		t.Fatalf("client error %v (joined %v), want refused as another build naming the host's schema", err, p.client.Joined())
	}
}

// Schema is the same for the same Game, and differs when what is on the wire
// does: components' order, a component's name or field count, a command's
// name or payload type, the input's type, the roster.
func TestSchemaFollowsTheWire(t *testing.T) {
	base := testGame().Schema()
	if again := testGame().Schema(); again != base || base == 0 {
		t.Fatalf("one Game's schema %016x, then %016x", base, again)
	}
	// The bytes PROTOCOL.md §6.2 lays out, written here by hand.
	var comps []byte
	str := func(dst []byte, v string) []byte { return append(wire.AppendUvarint(dst, uint64(len(v))), v...) }
	component := func(name, typ string, fields int, delta bool, wrap []int32) {
		comps = str(comps, name)
		comps = str(comps, typ)
		comps = append(comps, byte(fields))
		if delta {
			comps = append(comps, 1)
		} else {
			comps = append(comps, 0)
		}
		for i := range fields {
			var m int32
			if i < len(wrap) {
				m = wrap[i]
			}
			comps = wire.AppendUvarint(comps, wire.ZigZag(int64(m)))
		}
	}
	tc, vc := replicate.TransformCodec(), replicate.VelocityCodec()
	component(tc.Name, "ecs.Transform", tc.Fields, tc.Delta, tc.Wrap)
	component(vc.Name, "ecs.Velocity", vc.Fields, vc.Delta, vc.Wrap)
	component(labelCodec.Name, "tandem.label", labelCodec.Fields, labelCodec.Delta, labelCodec.Wrap)
	component("tandem.Driven", "tandem.drivenMark{on bool}", 1, false, nil)
	// The motion that ties Transform (0) and Velocity (1), replicated with
	// the default codecs.
	m := replicate.DefaultMotion(0, 1)
	comps = append(comps, 0, 1)
	comps = binary.LittleEndian.AppendUint64(comps, math.Float64bits(m.Linear))
	comps = binary.LittleEndian.AppendUint64(comps, math.Float64bits(m.Angular))
	doc := wire.AppendUvarint(nil, uint64(len(comps)))
	doc = append(doc, comps...)
	doc = wire.AppendUvarint(doc, 0) // no commands
	doc = str(doc, "tandem.push")
	sum := sha256.Sum256(doc)
	if want := binary.LittleEndian.Uint64(sum[:8]); base != want {
		t.Fatalf("the test game's schema is %016x, PROTOCOL.md's layout gives %016x", base, want)
	}
	cmd := func(name string) Command {
		return NewCommand(name, CommandCodec[int32]{}, func(*World, Peer, int32) error { return nil })
	}
	wider := labelCodec
	wider.Fields = 2
	wider.Quantize = func(v *label, q []int32) { q[0], q[1] = v.N, 0 }
	wider.Dequantize = func(q []int32, v *label) { v.N = q[0] }
	renamed := labelCodec
	renamed.Name = "label-v2"
	changes := map[string]func(g *Game[push]){
		"swapped": func(g *Game[push]) { g.Components[0], g.Components[1] = g.Components[1], g.Components[0] },
		"renamed": func(g *Game[push]) { g.Components[2] = Replicate(renamed, HostValue) },
		"wider":   func(g *Game[push]) { g.Components[2] = Replicate(wider, HostValue) },
		"dropped": func(g *Game[push]) { g.Components = g.Components[:2] },
		"command": func(g *Game[push]) { g.Commands = []Command{cmd("jump")} },
		"roster":  func(g *Game[push]) { g.Roster = true },
		"step":    func(g *Game[push]) { g.Step = time.Second / 30 }, // not in it: checked apart
	}
	jump := testGame()
	jump.Commands = []Command{cmd("jump")}
	seen := map[uint64]string{base: "base"}
	for name, change := range changes {
		g := testGame()
		change(g)
		s := g.Schema()
		if name == "step" {
			if s != base {
				t.Errorf("the step changed the schema")
			}
			continue
		}
		if other, dup := seen[s]; dup {
			t.Errorf("%s has the schema of %s: %016x", name, other, s)
		}
		seen[s] = name
	}
	dash := testGame()
	dash.Commands = []Command{cmd("dash")}
	if dash.Schema() == jump.Schema() {
		t.Error("commands of other names have one schema")
	}
	typed := testGame()
	typed.Commands = []Command{NewCommand("jump", CommandCodec[uint8]{}, func(*World, Peer, uint8) error { return nil })}
	if typed.Schema() == jump.Schema() {
		t.Error("a command's payload type is not in the schema")
	}
	if other := (&Game[int8]{Components: testGame().Components}); other.Schema() == base {
		t.Error("the input's type is not in the schema")
	}
}

// A first join that does not finish within ClientConfig.JoinTimeout is given
// up: a host that never answers leaves the client Closed with
// ErrJoinTimeout (on its own clock, as it is stepped), never Joined; without
// a bound it waits on. A client that joined is not timed out later.
func TestJoinTimeout(t *testing.T) {
	var link *mem.Conn // the last silent client's end
	silent := func(timeout time.Duration) (*Client[push], *clock.Fake) {
		clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
		n, err := mem.NewNetwork(clk, mem.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.Listen("host"); err != nil { // nobody accepts
			t.Fatal(err)
		}
		tc, err := n.Dial(context.Background(), "host")
		if err != nil {
			t.Fatal(err)
		}
		link = tc.(*mem.Conn)
		c, err := NewClient(testGame(), tc, ClientConfig[push]{Clock: clk, JoinTimeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c, clk
	}
	stepFor := func(c *Client[push], clk *clock.Fake, d time.Duration) {
		for end := clk.Now().Add(d); clk.Now().Before(end); {
			clk.Advance(time.Second / 60)
			c.Advance()
		}
	}

	c, clk := silent(5 * time.Second)
	var left error
	c.OnEvent(func(e Event) {
		if e.Kind == session.PeerLeft {
			left = e.Err
		}
	})
	stepFor(c, clk, 4900*time.Millisecond)
	if st := c.State(); st != Connecting || c.Err() != nil {
		t.Fatalf("before the timeout: %v, %v; want still connecting", st, c.Err())
	}
	stepFor(c, clk, 200*time.Millisecond)
	if st, err := c.State(), c.Err(); st != Closed || !errors.Is(err, ErrJoinTimeout) || c.Joined() {
		t.Fatalf("after the timeout: %v, %v, joined %v; want closed with ErrJoinTimeout", st, err, c.Joined())
	}
	c.mu.Lock()
	ended := c.stopped()
	c.mu.Unlock()
	var ce *transport.CloseError
	if !errors.Is(ended, ErrJoinTimeout) || !errors.As(left, &ce) || ce.Code != transport.CloseTimeout {
		t.Fatalf("Run would return %v; the session left with %v; want ErrJoinTimeout, closed as a timeout", ended, left)
	}

	// A link that goes dark before the host answers: the connection ends
	// by its idle timeout, and the error says there is nothing to come
	// back to.
	c, clk = silent(time.Minute)
	link.Cut()
	stepFor(c, clk, 15*time.Second)
	if st, err := c.State(), c.Err(); st != Closed || !errors.Is(err, ErrNoAnswer) || errors.Is(err, ErrJoinTimeout) {
		t.Fatalf("a link cut before the Welcome: %v, %v; want closed with ErrNoAnswer", st, err)
	}

	c, clk = silent(-1)
	stepFor(c, clk, 2*DefaultJoinTimeout)
	if st := c.State(); st != Connecting || c.Err() != nil {
		t.Fatalf("without a bound, after %v: %v, %v; want still connecting", 2*DefaultJoinTimeout, st, c.Err())
	}

	p := newPair(t, testGame(), condition.Config{Latency: 10 * time.Millisecond})
	if p.client.Joined() {
		t.Fatal("joined before a step")
	}
	p.run(DefaultJoinTimeout + time.Second)
	if st, err := p.client.State(), p.client.Err(); st != Playing || err != nil || !p.client.Joined() {
		t.Fatalf("a joined client after the join timeout: %v, %v, joined %v; want playing", st, err, p.client.Joined())
	}
}

// A game alone ends at Close, as a Session: Run returns ErrClosed, Advance
// and Step run nothing more, and the world can still be looked at.
func TestLocalCloseEndsRun(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		l, err := NewLocal(testGame(), LocalConfig{})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- l.Run(context.Background()) }()
		time.Sleep(time.Second)
		synctest.Wait()
		var frame ecs.Frame
		l.Do(func(w *World) { frame = w.ECS.Frame() })
		if frame == 0 {
			t.Fatal("Run stepped nothing in a second")
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		select {
		case err := <-done:
			if !errors.Is(err, ErrClosed) {
				t.Fatalf("Run after Close returned %v, want ErrClosed", err)
			}
		default:
			t.Fatal("Run still runs a second after Close")
		}
		var after ecs.Frame
		l.Do(func(w *World) { after = w.ECS.Frame() })
		time.Sleep(time.Second)
		if n := l.Advance(); n != 0 {
			t.Fatalf("Advance after Close ran %d steps", n)
		}
		l.Step()
		l.Do(func(w *World) {
			if w.ECS.Frame() != after {
				t.Fatalf("the world stepped after Close: frame %d, was %d", w.ECS.Frame(), after)
			}
		})
	})
}

// NewClient given no connection makes the first one itself with
// ClientConfig.Dial and joins; a dial the host does not answer is an
// ErrJoinTimeout; without Dial it says to dial first.
func TestNewClientDialsFirst(t *testing.T) {
	if _, err := NewClient(testGame(), nil, ClientConfig[push]{}); err == nil || !strings.Contains(err.Error(), "dial it first") {
		t.Fatalf("no connection and no Dial: %v, want a message saying to dial first", err)
	}
	// A dial that waits for an answer that never comes is cut at the join
	// bound (real time: the dial is the network's).
	silent := func(ctx context.Context) (transport.Conn, error) {
		<-ctx.Done()
		return nil, fmt.Errorf("dial: %w", ctx.Err())
	}
	if _, err := NewClient(testGame(), nil, ClientConfig[push]{Dial: silent, JoinTimeout: 50 * time.Millisecond}); !errors.Is(err, ErrJoinTimeout) {
		t.Fatalf("a host that does not answer the first dial: %v, want ErrJoinTimeout", err)
	}
	// A name the host would refuse is refused before dialing.
	if _, err := NewClient(testGame(), nil, ClientConfig[push]{Name: " ann", Dial: func(context.Context) (transport.Conn, error) {
		t.Fatal("dialed with a name the host refuses")
		return nil, nil
	}}); !errors.Is(err, wire.ErrBadName) {
		t.Fatalf("a bad name: %v, want wire.ErrBadName before any dial", err)
	}
	// A Setup that spawns networked entities on a client too is refused
	// before any dial, saying so.
	g := testGame()
	setup := g.Setup
	g.Setup = func(w *World) {
		setup(w)
		w.ECS.Arche().NewEntity(w.ECS.IDs.Transform, w.ECS.IDs.NetworkIdentity)
	}
	if _, err := NewClient(g, nil, ClientConfig[push]{Dial: func(context.Context) (transport.Conn, error) {
		t.Fatal("dialed with a Setup that spawns networked entities on a client")
		return nil, nil
	}}); err == nil || !strings.Contains(err.Error(), "Game.Setup spawned 1 networked entities on a client") {
		t.Fatalf("a Setup that spawns a networked entity on a client: %v, want an error naming Setup", err)
	}
	refused := errors.New("the address is not a host's")
	if _, err := NewClient(testGame(), nil, ClientConfig[push]{Dial: func(context.Context) (transport.Conn, error) { return nil, refused }}); !errors.Is(err, refused) || errors.Is(err, ErrJoinTimeout) {
		t.Fatalf("a first dial that fails: %v, want its error, not a timeout", err)
	}

	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	n, err := mem.NewNetwork(clk, mem.Config{})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := n.Listen("host")
	h, err := NewHost(testGame(), HostConfig{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	dials := 0
	c, err := NewClient(testGame(), nil, ClientConfig[push]{Clock: clk, Dial: func(ctx context.Context) (transport.Conn, error) {
		dials++
		return n.Dial(ctx, "host")
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	hc, _ := l.Accept(context.Background())
	h.Accept(hc)
	for i := 0; c.State() != Playing; i++ {
		if i > 600 {
			t.Fatalf("the client that dialed itself did not join: %v, %v", c.State(), c.Err())
		}
		clk.Advance(time.Second / 60)
		h.Advance()
		c.Advance()
	}
	if dials != 1 {
		t.Fatalf("%d dials for one join", dials)
	}
}

// A first dial the host refuses as busy with other connections from this
// address (transport.ErrBusy) is made again after 50 ms, then 100, ...;
// one that stays busy past JoinTimeout is an ErrJoinTimeout that says so.
func TestNewClientDialsAgainWhileTheHostIsBusy(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
		n, err := mem.NewNetwork(clk, mem.Config{})
		if err != nil {
			t.Fatal(err)
		}
		l, _ := n.Listen("host")
		defer l.Close()
		var at []time.Duration
		start := time.Now()
		c, err := NewClient(testGame(), nil, ClientConfig[push]{Clock: clk, Dial: func(ctx context.Context) (transport.Conn, error) {
			at = append(at, time.Since(start))
			if len(at) <= 3 {
				return nil, fmt.Errorf("dial: %w", transport.ErrBusy)
			}
			return n.Dial(ctx, "host")
		}})
		if err != nil {
			t.Fatalf("a host busy three times, then free: %v", err)
		}
		c.Close()
		want := []time.Duration{0, 50 * time.Millisecond, 150 * time.Millisecond, 350 * time.Millisecond}
		if !slices.Equal(at, want) {
			t.Fatalf("dialed at %v, want %v", at, want)
		}
		_, err = NewClient(testGame(), nil, ClientConfig[push]{JoinTimeout: 2 * time.Second, Dial: func(ctx context.Context) (transport.Conn, error) {
			return nil, fmt.Errorf("dial: %w", transport.ErrBusy)
		}})
		if !errors.Is(err, ErrJoinTimeout) || !errors.Is(err, transport.ErrBusy) || !strings.Contains(err.Error(), "busy") {
			t.Fatalf("a host busy for good: %v, want ErrJoinTimeout saying it stayed busy", err)
		}
	})
}

// A host that lets the client in and then never finishes its world (it stops
// stepping mid-join) is given up too: the client, Joining, ends with
// ErrJoinTimeout and a message that the world did not arrive.
func TestJoinTimeoutWhileJoining(t *testing.T) {
	g := testGame()
	setup := g.Setup
	g.Setup = func(w *World) {
		setup(w)
		if w.Role == Joined {
			return
		}
		m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.ECS.Arche())
		for i := range 30000 {
			m.NewWith(&ecs.Transform{X: float64(i % 300), Y: float64(i / 300)}, &ecs.NetworkIdentity{})
		}
	}
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	n, err := mem.NewNetwork(clk, mem.Config{})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := n.Listen("host")
	h, err := NewHost(g, HostConfig{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	tc, _ := n.Dial(context.Background(), "host")
	c, err := NewClient(g, tc, ClientConfig[push]{Clock: clk, JoinTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	hc, _ := l.Accept(context.Background())
	h.Accept(hc)
	for i := 0; c.State() != Joining; i++ {
		if i > 600 || c.State() == Playing {
			t.Fatalf("the join was not seen under way: %v", c.State())
		}
		clk.Advance(time.Second / 120)
		h.Advance()
		c.Advance()
	}
	// The host stops; the client goes on stepping.
	for end := clk.Now().Add(4 * time.Second); clk.Now().Before(end) && c.State() != Closed; {
		clk.Advance(time.Second / 60)
		c.Advance()
	}
	if err := c.Err(); c.State() != Closed || !errors.Is(err, ErrJoinTimeout) || !strings.Contains(err.Error(), "did not arrive") || c.Joined() {
		t.Fatalf("a join the host never finished: %v, %v, joined %t; want closed with ErrJoinTimeout saying the world did not arrive", c.State(), err, c.Joined())
	}
}

// Replicate refuses a prediction its component type cannot take, when the
// Game is written, naming the cure; HostValue takes any type.
func TestReplicateChecksThePrediction(t *testing.T) {
	panics := func(f func()) (msg string) {
		defer func() {
			if r := recover(); r != nil {
				msg = fmt.Sprint(r)
			}
		}()
		f()
		return ""
	}
	if msg := panics(func() { Replicate(labelCodec, PredictVelocity) }); !strings.Contains(msg, "for ecs.Velocity") || !strings.Contains(msg, "use HostValue") {
		t.Errorf("a label predicted as a velocity: %q", msg)
	}
	if msg := panics(func() { Replicate(replicate.VelocityCodec(), PredictPose) }); !strings.Contains(msg, "for ecs.Transform") {
		t.Errorf("a velocity predicted as a pose: %q", msg)
	}
	if msg := panics(func() { Replicate(labelCodec, HostValue) }); msg != "" {
		t.Errorf("a label as a host value: %q", msg)
	}
}

// State, Peer, Err and SetInput may be called from inside Do and an observer
// (they waited for the world for ever there): an observer reads the state its
// event left, Do the state of the last step; Err after Close is Close's.
func TestStatusFromInsideCallbacks(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p := newPair(t, testGame(), condition.Config{Latency: 10 * time.Millisecond})
		states := map[EventKind]ClientState{}
		var peerAtReady ecs.PeerID
		p.client.OnEvent(func(e Event) {
			states[e.Kind] = p.client.State()
			if e.Kind == PeerReady {
				peerAtReady = p.client.Peer()
			}
			if p.client.Err() != nil {
				t.Errorf("Err %v while joining", p.client.Err())
			}
			p.client.SetInput(push{X: 1})
		})
		p.run(time.Second)
		if states[PeerJoined] != Joining || states[PeerReady] != Playing || peerAtReady == 0 {
			t.Fatalf("observers read %v, peer %d at PeerReady", states, peerAtReady)
		}
		p.client.Do(func(w *World) {
			if p.client.State() != Playing || p.client.Peer() != w.Peer {
				t.Errorf("inside Do: %v, peer %d (the world says %d)", p.client.State(), p.client.Peer(), w.Peer)
			}
			p.client.SetInput(push{})
		})
		p.host.Do(func(*World) {
			p.host.SetInput(push{X: 1})
			if p.host.Err() != nil {
				t.Errorf("host Err %v", p.host.Err())
			}
		})
		p.client.Close()
		if p.client.State() != Closed || p.client.Err() != nil {
			t.Fatalf("after Close: %v, %v", p.client.State(), p.client.Err())
		}
	})
}

// A game of more replicated components than fit beside the engine's own is
// an error from NewHost and NewLocal, naming the limit, not a panic.
func TestTooManyComponentsIsAnError(t *testing.T) {
	type c0 struct{ V int32 }
	g := testGame()
	for i := range replicate.MaxComponents {
		codec := replicate.IntegerCodec[c0](fmt.Sprintf("c%d", i))
		g.Components = append(g.Components, Replicate(codec, HostOnly))
	}
	_, err := NewHost(g, HostConfig{})
	if err == nil || !strings.Contains(err.Error(), "at most 15 fit") {
		t.Fatalf("NewHost of %d components: %v; want an error naming the 15 that fit", len(g.Components), err)
	}
	g.Roster = true
	if _, err := NewLocal(g, LocalConfig{}); err == nil || !strings.Contains(err.Error(), "at most 13 fit") {
		t.Fatalf("NewLocal of %d components with the roster: %v; want an error naming the 13 that fit", len(g.Components), err)
	}
}
