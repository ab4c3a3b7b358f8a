package session

import (
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
)

// stillWorld is a host of n entities that never move, over perfect
// in-memory links on a fake clock, stepped once (the replicator has taken in
// the world); onJoin, if set, makes its OnJoin from the world.
func stillWorld(t *testing.T, n int, onJoin func(w *ecs.World) func(ecs.PeerID, string) error) *world {
	t.Helper()
	clk := clock.NewFake(time.Unix(1000, 0))
	net, _ := mem.NewNetwork(clk, mem.Config{})
	hw := ecs.NewWorld()
	hsched := ecs.NewSchedule(hw, clk, 0)
	mv := newMover(hw, 3, n)
	mv.still = true
	hsched.Add("mover", mv)
	cfg := HostConfig{Clock: clk}
	if onJoin != nil {
		cfg.OnJoin = onJoin(hw)
	}
	host := NewHost(hsched, replicate.NewRegistry(hw), cfg)
	l, _ := net.Listen("host")
	t.Cleanup(func() { l.Close(); host.Close() })
	hsched.Step()
	return &world{t: t, clk: clk, net: net, hw: hw, hsched: hsched, host: host, l: l}
}

// handshakeWithoutSteps runs a raw client's handshake against a host of n
// entities that steps once at the start and then only answers between
// steps (Host.Handshake), and returns the kinds of the lane messages the
// client got, in order, and the host's peers.
func handshakeWithoutSteps(t *testing.T, n int, onJoin func(w *ecs.World) func(ecs.PeerID, string) error) ([]wire.Kind, *Host, *ecs.Schedule, *rawPeer) {
	t.Helper()
	wd := stillWorld(t, n, onJoin)
	hw, hsched, host, l := wd.hw, wd.hsched, wd.host, wd.l
	p := wd.dialRaw("quick", wire.Version)
	acceptPending(l, host)
	frame := hw.Frame()
	if !host.Handshake() {
		t.Fatal("Handshake says no handshake is under way after a Hello's Welcome")
	}
	p.read()
	if len(p.got) != 1 || wire.Kind(p.got[0][0]) != wire.KindWelcome {
		t.Fatalf("after the Hello and no step the client got %d messages, want a Welcome", len(p.got))
	}
	answer(p.tc, p.got[0])
	// The WelcomeAck admits the peer; Handshake reports more while its
	// join has pages to send, and then nothing.
	for calls := 0; host.Handshake(); calls++ {
		p.read()
		if calls > 100 {
			t.Fatal("Handshake reports more for ever after the WelcomeAck admitted the peer")
		}
	}
	if host.Handshake() {
		t.Fatal("Handshake reports more with the join sent")
	}
	p.read()
	if hw.Frame() != frame {
		t.Fatalf("Handshake stepped the world: frame %d → %d", frame, hw.Frame())
	}
	var kinds []wire.Kind
	for _, m := range p.got {
		kinds = append(kinds, wire.Kind(m[0]))
	}
	return kinds, host, hsched, p
}

// wholeJoin checks that msgs are a join: pages, then FINAL counting them,
// and nothing after; it returns the number of pages.
func wholeJoin(t *testing.T, msgs [][]byte) int {
	t.Helper()
	pages := 0
	for i, m := range msgs {
		switch k := wire.Kind(m[0]); {
		case k == wire.KindJoinPage:
			pages++
		case k == wire.KindJoinFinal && i == len(msgs)-1:
			r := wire.NewReader(m[1:])
			r.Uvarint32()
			if sent := r.Uvarint(); sent != uint64(pages) {
				t.Fatalf("FINAL counts %d pages, the client got %d", sent, pages)
			}
			return pages
		default:
			t.Fatalf("message %d of the join is %v; want pages, then FINAL last", i, k)
		}
	}
	t.Fatalf("the join's %d pages came without FINAL", pages)
	return 0
}

// TestHandshakeAnswersBetweenSteps: a host that answers handshakes between
// steps sends the Welcome on the Hello and admits on the WelcomeAck without
// waiting for a step, and the join's pages start at once; a world that
// fits in one top-up is joined whole, FINAL too, before the next step.
func TestHandshakeAnswersBetweenSteps(t *testing.T) {
	kinds, host, hsched, p := handshakeWithoutSteps(t, 3000, nil)
	if len(host.Peers()) != 1 {
		t.Fatalf("peers after the WelcomeAck: %v, want the new one admitted", host.Peers())
	}
	if kinds[0] != wire.KindWelcome {
		t.Fatalf("the first message is %v, want the Welcome", kinds[0])
	}
	if wholeJoin(t, p.got[1:]) == 0 {
		t.Fatal("no join page before the next step")
	}
	got := len(p.got)
	hsched.Step()
	p.read()
	if len(p.got) != got {
		t.Fatalf("the step after a whole join sent %d more lane messages", len(p.got)-got)
	}
	// A loop calls it every millisecond: with no handshake under way it
	// allocates nothing.
	if a := testing.AllocsPerRun(100, func() { host.Handshake() }); a != 0 {
		t.Fatalf("an idle Handshake allocates %v times", a)
	}
}

// TestHandshakeWaitsForTheStepToPageAPlayer: a peer given entities by
// OnJoin is admitted between steps, but its join (whose scope they decide)
// begins at the next step, which takes them in.
func TestHandshakeWaitsForTheStepToPageAPlayer(t *testing.T) {
	spawn := func(w *ecs.World) func(ecs.PeerID, string) error {
		m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.Arche())
		return func(p ecs.PeerID, _ string) error {
			m.NewWith(&ecs.Transform{}, &ecs.NetworkIdentity{Owner: p})
			return nil
		}
	}
	kinds, host, hsched, p := handshakeWithoutSteps(t, 3000, spawn)
	if len(host.Peers()) != 1 {
		t.Fatalf("peers after the WelcomeAck: %v, want the new one admitted", host.Peers())
	}
	if len(kinds) != 1 {
		t.Fatalf("a peer whose player is not taken in yet got %v before the step; want the Welcome only", kinds)
	}
	hsched.Step()
	p.read()
	if len(p.got) < 3 || wire.Kind(p.got[1][0]) != wire.KindJoinPage {
		t.Fatalf("the step sent %d messages, want the join", len(p.got)-1)
	}
}

// TestHandshakeTopsUpAJoinBegunAtAStep: the join of a peer given a player
// by OnJoin begins at the next step, which queues only a top-up of its
// first round; Handshake then goes on with it between steps as the lane
// drains, to FINAL with every page counted.
func TestHandshakeTopsUpAJoinBegunAtAStep(t *testing.T) {
	const n = 40000 // about 600 KB of pages
	spawn := func(w *ecs.World) func(ecs.PeerID, string) error {
		m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.Arche())
		return func(p ecs.PeerID, _ string) error {
			m.NewWith(&ecs.Transform{}, &ecs.NetworkIdentity{Owner: p})
			return nil
		}
	}
	_, host, hsched, p := handshakeWithoutSteps(t, n, spawn)
	before := len(p.got)
	hsched.Step()
	p.read()
	bytes := 0
	for _, m := range p.got[before:] {
		if wire.Kind(m[0]) != wire.KindJoinPage {
			t.Fatalf("the join's first step sent %v; want pages only", wire.Kind(m[0]))
		}
		bytes += len(m)
	}
	if bytes == 0 || bytes > 300<<10 {
		t.Fatalf("the join's first step sent %d bytes of pages; want a top-up of at most 256 KiB and a page", bytes)
	}
	calls := 0
	for more := true; more; calls++ {
		more = host.Handshake()
		p.read()
		if calls > 100 {
			t.Fatal("Handshake reports more for ever")
		}
	}
	if calls < 2 {
		t.Fatalf("Handshake sent the rest of a 600 KB join in %d calls after the step: it was not topped up", calls)
	}
	wholeJoin(t, p.got[1:])
}

// TestHandshakeQueuesALargeJoinAsItDrains: a join larger than what a lane
// keeps queued between steps is sent over several Handshake calls, each
// topping the lane up as the client reads it; Handshake reports more until
// the first round is sent, and FINAL comes with the last call, no step
// needed.
func TestHandshakeQueuesALargeJoinAsItDrains(t *testing.T) {
	const n = 40000 // about 600 KB of pages
	wd := stillWorld(t, n, nil)
	host, l := wd.host, wd.l
	frame := wd.hw.Frame()
	p := wd.dialRaw("big", wire.Version)
	acceptPending(l, host)
	host.Handshake()
	p.read()
	answer(p.tc, p.got[0])
	calls := 0
	for more := true; more; calls++ {
		more = host.Handshake()
		p.read() // the client takes what is queued
		if calls > 100 {
			t.Fatal("Handshake reports more for ever")
		}
	}
	pages := wholeJoin(t, p.got[1:])
	if calls < 3 {
		t.Fatalf("%d pages went in %d calls: the lane was not topped up as it drained", pages, calls)
	}
	if st := host.Peers(); len(st) != 1 {
		t.Fatalf("peers %v", st)
	}
	if wd.hw.Frame() != frame {
		t.Fatalf("the host stepped from frame %d to %d", frame, wd.hw.Frame())
	}
}
