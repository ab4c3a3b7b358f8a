package tandemtest_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/net/transport/quicnet/joincode"
	"github.com/tandem-go/tandem/tandemtest"
)

// Over QUIC on loopback, at the real rate: two players join by the host's
// join line, and once ann stops walking the host, bob and ann herself all
// have her figure at the same place.
func TestLoopback(t *testing.T) {
	lb := tandemtest.NewLoopback(t, walkers, tandem.HostConfig{})
	if code, err := joincode.Parse(lb.Line); err != nil || code.Addr() != lb.Addr {
		t.Fatalf("join line %q: %v, address %v; want %s", lb.Line, err, code.Addr(), lb.Addr)
	}
	ann := lb.Join("ann", tandem.ClientConfig[Walk]{})
	bob := lb.Join("bob", tandem.ClientConfig[Walk]{})
	if ann.State() != tandem.Playing || bob.State() != tandem.Playing || len(lb.Clients) != 2 {
		t.Fatalf("after Join: ann %v, bob %v, %d clients", ann.State(), bob.State(), len(lb.Clients))
	}
	at := func(do func(func(*tandem.World)), peer ecs.PeerID) float64 {
		x := -1.0
		do(func(w *tandem.World) {
			if owned := w.ECS.Owned(peer); len(owned) == 1 {
				x = ecs.Get[ecs.Transform](w.ECS, owned[0]).X
			}
		})
		return x
	}
	ann.SetInput(Walk{X: 1})
	waitFor(t, "the host to move ann's figure", func() bool { return at(lb.Host.Do, ann.Peer()) >= 40 })
	ann.SetInput(Walk{})
	waitFor(t, "the three to agree where ann stopped", func() bool {
		h := at(lb.Host.Do, ann.Peer())
		return h >= 40 && at(bob.Do, ann.Peer()) == h && at(ann.Do, ann.Peer()) == h
	})
	if st := lb.Host.Stats(); st.Players != 2 {
		t.Fatalf("the host has %d players, want ann and bob", st.Players)
	}
	// How each Run ended tells ann's own Close from the host's shutting
	// down, which Err (nil for both) does not.
	if ended, _ := lb.Ended(ann, 0); ended {
		t.Fatal("Ended says ann's Run returned while she plays")
	}
	ann.Close()
	if ended, err := lb.Ended(ann, 10*time.Second); !ended || !errors.Is(err, tandem.ErrClosed) || errors.Is(err, tandem.ErrHostClosed) {
		t.Fatalf("ann closed: Run ended %v with %v; want ErrClosed, not ErrHostClosed", ended, err)
	}
	if ended, _ := lb.Ended(ann, 0); !ended {
		t.Fatal("Ended with no time to wait says ann's Run, which returned, still runs")
	}
	if err := lb.Host.Close(); err != nil {
		t.Fatal(err)
	}
	if ended, err := lb.Ended(bob, 10*time.Second); !ended || !errors.Is(err, tandem.ErrHostClosed) || bob.Err() != nil {
		t.Fatalf("the host closed: bob's Run ended %v with %v (Err %v); want ErrHostClosed, and Err nil", ended, err, bob.Err())
	}
}

// Agree works on a Loopback, whose host and clients run on goroutines of
// their own: while ann walks, her client runs ahead of the host and Agree
// says so, naming her as the host knows her. (It read the host's stats
// for her name from the test's goroutine, while the host wrote them: the
// race detector found it.)
func TestAgreeOnALoopbackNamesTheClient(t *testing.T) {
	lb := tandemtest.NewLoopback(t, walkers, tandem.HostConfig{})
	ann := lb.Join("ann", tandem.ClientConfig[Walk]{})
	ann.SetInput(Walk{X: 1})
	want := fmt.Sprintf("client ann (peer %d)", ann.Peer())
	differed := 0
	waitFor(t, "ann's client to differ from the host 20 times as she walks", func() bool {
		if err := tandemtest.Agree(lb.Host, ann); err != nil {
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("Agree said %q; want it to name %q", err, want)
			}
			differed++
		}
		return differed == 20
	})
	ann.SetInput(Walk{})
	waitFor(t, "them to agree where she stopped", func() bool { return tandemtest.Agree(lb.Host, ann) == nil })
}

// waitFor waits until cond holds, checking every few milliseconds, and
// fails the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A player the game refuses fails the test at Join with the game's reason,
// once; the loopback still closes everything at the test's end.
func TestLoopbackRefusal(t *testing.T) {
	rec := &recorder{TB: t}
	lb := tandemtest.NewLoopback(rec, walkers, tandem.HostConfig{})
	rec.joinThenEnd(lb, "mallory")
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "mallory did not join") || strings.Count(rec.errs[0], "not you") != 1 {
		t.Fatalf("a refused join reported %q, want it failed once with the game's reason", rec.errs)
	}
	if st := lb.Host.Stats(); st.Players != 0 {
		t.Fatalf("the host has %d players after refusing mallory", st.Players)
	}
}

// Every loopback client comes from 127.0.0.1: a Loopback's host takes as
// many from there as it has slots (five here, past the default of four from
// one address), and a host told to take one from an address refuses the
// second, saying why.
func TestLoopbackPeersFromOneAddress(t *testing.T) {
	lb := tandemtest.NewLoopback(t, walkers, tandem.HostConfig{})
	for _, name := range []string{"ann", "bob", "cat", "dan", "eve"} {
		lb.Join(name, tandem.ClientConfig[Walk]{})
	}
	// Read in the host's world: Stats is published at the end of a step,
	// and eve may play before the step that admitted her has ended.
	var players int
	lb.Host.Do(func(*tandem.World) { players = len(lb.Host.AppendPlayers(nil)) })
	if players != 5 {
		t.Fatalf("the host has %d players, want 5", players)
	}

	rec := &recorder{TB: t}
	one := tandemtest.NewLoopback(rec, walkers, tandem.HostConfig{MaxPeersPerAddress: 1})
	one.Join("ann", tandem.ClientConfig[Walk]{})
	rec.joinThenEnd(one, "bob")
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "for your address") {
		t.Fatalf("a second player from one address, with one allowed: %q, want it refused for its address", rec.errs)
	}
}

// Six clients dialing a loopback host at once (as bots started together do)
// all get in: the host takes as many joins under way from one address as
// it takes players from it.
func TestLoopbackSimultaneousJoins(t *testing.T) {
	lb := tandemtest.NewLoopback(t, walkers, tandem.HostConfig{})
	code, err := joincode.Parse(lb.Line)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var clients []*tandem.Client[Walk]
	var running sync.WaitGroup
	for i := range 6 {
		var qc quicnet.Config
		code.Apply(&qc)
		tr, err := quicnet.New(qc)
		if err != nil {
			t.Fatal(err)
		}
		c, err := tandem.NewClient(walkers, nil, tandem.ClientConfig[Walk]{Name: fmt.Sprint("bot", i), Dial: tr.Dialer(code.Addr(), 5*time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
		running.Add(1)
		go func() {
			defer running.Done()
			c.Run(ctx)
		}()
	}
	defer func() {
		cancel()
		running.Wait()
		for _, c := range clients {
			c.Close()
		}
	}()
	waitFor(t, "six clients to play", func() bool {
		for _, c := range clients {
			if c.State() != tandem.Playing {
				return false
			}
		}
		return true
	})
	for _, c := range clients {
		if c.Err() != nil {
			t.Fatalf("%v", c.Err())
		}
	}
}

// A client whose network stops carrying anything (Cut) notices, dials
// again on a new socket and resumes its peer over real QUIC: the same peer
// and player, playing again; the host tells the break, then the resume.
func TestLoopbackCut(t *testing.T) {
	if testing.Short() {
		t.Skip("waits some 5 s of real time for the client to notice the cut")
	}
	lb := tandemtest.NewLoopback(t, walkers, tandem.HostConfig{})
	var mu sync.Mutex
	var events []tandem.EventKind
	lb.Host.OnEvent(func(e tandem.Event) {
		if e.Kind == tandem.PeerDisconnected || e.Kind == tandem.PeerResumed {
			mu.Lock()
			events = append(events, e.Kind)
			mu.Unlock()
		}
	})
	ann := lb.Join("ann", tandem.ClientConfig[Walk]{})
	peer := ann.Peer()
	lb.Cut(ann)
	waitFor(t, "ann to notice the cut and resume", func() bool {
		return ann.NetStats().Resumes == 1 && ann.State() == tandem.Playing
	})
	if ann.Peer() != peer || ann.NetStats().Resumes != 1 {
		t.Fatalf("ann is peer %d (was %d) after %d resumes, want the same peer after one", ann.Peer(), peer, ann.NetStats().Resumes)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 2 || events[0] != tandem.PeerDisconnected || events[1] != tandem.PeerResumed {
		t.Fatalf("the host told %v, want the break, then the resume", events)
	}
}

// A host restarted on its save over QUIC (Restart) takes its players back:
// ann and bob resume as the same peers (not a fresh join), on the same
// address and certificate, into the world as it was saved, where ann had
// walked; what bob walks then reaches the new host and both of them.
func TestLoopbackRestart(t *testing.T) {
	lb := tandemtest.NewLoopback(t, walkers, tandem.HostConfig{SaveTo: filepath.Join(t.TempDir(), "walkers.db")})
	ann := lb.Join("ann", tandem.ClientConfig[Walk]{})
	bob := lb.Join("bob", tandem.ClientConfig[Walk]{})
	at := func(do func(func(*tandem.World)), peer ecs.PeerID) float64 {
		x := -1000.0
		do(func(w *tandem.World) {
			if owned := w.ECS.Owned(peer); len(owned) == 1 {
				x = ecs.Get[ecs.Transform](w.ECS, owned[0]).X
			}
		})
		return x
	}
	// agree waits until the host, ann and bob have peer's figure at the
	// same place, which want accepts, and returns it.
	agree := func(what string, peer ecs.PeerID, want func(float64) bool) float64 {
		t.Helper()
		var x float64
		waitFor(t, what, func() bool {
			x = at(lb.Host.Do, peer)
			return want(x) && at(ann.Do, peer) == x && at(bob.Do, peer) == x
		})
		return x
	}
	ann.SetInput(Walk{X: 1})
	waitFor(t, "the host to move ann's figure", func() bool { return at(lb.Host.Do, ann.Peer()) >= 20 })
	ann.SetInput(Walk{})
	annAt := agree("the three to agree where ann stopped", ann.Peer(), func(x float64) bool { return x >= 20 })

	old, line, annPeer, bobPeer := lb.Host, lb.Line, ann.Peer(), bob.Peer()
	lb.Restart()
	if lb.Host == old || lb.Line != line {
		t.Fatalf("Restart kept the host (%v) or changed the join line (%q, was %q)", lb.Host == old, lb.Line, line)
	}
	if rep := lb.Host.Restored(); rep.Seq == 0 || rep.Players != 2 {
		t.Fatalf("the new host restored %v, want ann and bob", rep)
	}
	for _, c := range []*tandem.Client[Walk]{ann, bob} {
		if ns := c.NetStats(); c.State() != tandem.Playing || ns.Resumes != 1 || c.Err() != nil {
			t.Fatalf("peer %d after the restart: %v, %d resumes, error %v; want playing after one resume", c.Peer(), c.State(), ns.Resumes, c.Err())
		}
	}
	if ann.Peer() != annPeer || bob.Peer() != bobPeer {
		t.Fatalf("ann is peer %d (was %d), bob %d (was %d): a fresh join, not a resume", ann.Peer(), annPeer, bob.Peer(), bobPeer)
	}
	if x := agree("the three to agree where ann was saved", annPeer, func(float64) bool { return true }); x != annAt {
		t.Fatalf("after the restart ann's figure is at %.0f, it was saved at %.0f", x, annAt)
	}

	bob.SetInput(Walk{X: -1})
	waitFor(t, "the new host to move bob's figure", func() bool { return at(lb.Host.Do, bobPeer) <= -20 })
	bob.SetInput(Walk{})
	agree("the three to agree where bob stopped", bobPeer, func(x float64) bool { return x <= -20 })
	if x := at(lb.Host.Do, annPeer); x != annAt {
		t.Fatalf("ann's figure moved to %.0f while bob walked", x)
	}
	if st := lb.Host.Stats(); st.Players != 2 || st.Away != 0 {
		t.Fatalf("the new host has %d players, %d away; want ann and bob, playing", st.Players, st.Away)
	}
}

// Restart waits for a spectator too: no save keeps one, so it watches the
// new host as a new peer, where a player resumes as the peer it was.
func TestLoopbackRestartWithASpectator(t *testing.T) {
	lb := tandemtest.NewLoopback(t, walkers, tandem.HostConfig{SaveTo: filepath.Join(t.TempDir(), "walkers.db"), Spectators: 1})
	ann := lb.Join("ann", tandem.ClientConfig[Walk]{})
	sam := lb.Join("sam", tandem.ClientConfig[Walk]{Spectator: true})
	annPeer := ann.Peer()
	lb.Restart()
	if ann.State() != tandem.Playing || ann.Peer() != annPeer || ann.NetStats().Resumes != 1 {
		t.Fatalf("ann after the restart: %v as peer %d (was %d), %d resumes", ann.State(), ann.Peer(), annPeer, ann.NetStats().Resumes)
	}
	if sam.State() != tandem.Playing {
		t.Fatalf("the spectator after the restart: %v (%v)", sam.State(), sam.Err())
	}
	if st := lb.Host.Stats(); st.Players != 1 || st.Spectators != 1 {
		t.Fatalf("the new host has %d players and %d spectators, want 1 and 1", st.Players, st.Spectators)
	}
}

// Restart of a host that does not save fails the test, saying what to set.
func TestLoopbackRestartNeedsASave(t *testing.T) {
	rec := &recorder{TB: t}
	lb := tandemtest.NewLoopback(rec, walkers, tandem.HostConfig{})
	restarted := make(chan struct{})
	go func() {
		defer close(restarted)
		lb.Restart()
	}()
	<-restarted
	rec.end()
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "cannot restart") || !strings.Contains(rec.errs[0], "SaveTo") {
		t.Fatalf("Restart without a save reported %q, want it to fail once naming SaveTo", rec.errs)
	}
}

// A test restarts a host that saves, over QUIC, and finds its player back
// where she was.
func ExampleLoopback_Restart() {
	test := func(t *testing.T) {
		lb := tandemtest.NewLoopback(t, walkers, tandem.HostConfig{SaveTo: filepath.Join(t.TempDir(), "world.db")})
		ann := lb.Join("ann", tandem.ClientConfig[Walk]{})
		peer := ann.Peer()
		// ... ann plays; the host saves as the world changes.
		lb.Restart() // returns once ann resumed on the new host
		if ann.Peer() != peer || ann.NetStats().Resumes != 1 {
			t.Fatalf("ann is peer %d after %d resumes, want peer %d after one", ann.Peer(), ann.NetStats().Resumes, peer)
		}
		// ... the new host restored the world the old one saved: look at
		// it through lb.Host.Do, and at ann's through ann.Do.
	}
	_ = test
}

// A client joined over a link that delays and loses (JoinOver) meets it
// through QUIC: its round trip is the link's two ways, it sees the host's
// datagrams lost and not its own (the link loses only towards it), and what
// ann walks still reaches it where she stopped.
func TestLoopbackOverALossyLink(t *testing.T) {
	lb := tandemtest.NewLoopback(t, walkers, tandem.HostConfig{})
	ann := lb.Join("ann", tandem.ClientConfig[Walk]{})
	toHost := condition.Config{Latency: 40 * time.Millisecond, Seed: 7}
	toClient := condition.Config{Latency: 40 * time.Millisecond, Loss: 0.15, Seed: 8}
	bob := lb.JoinOver("bob", tandem.ClientConfig[Walk]{}, toHost, toClient)
	x := func(do func(func(*tandem.World))) float64 {
		x := -1.0
		do(func(w *tandem.World) {
			if owned := w.ECS.Owned(ann.Peer()); len(owned) == 1 {
				x = ecs.Get[ecs.Transform](w.ECS, owned[0]).X
			}
		})
		return x
	}
	ann.SetInput(Walk{X: 1})
	waitFor(t, "the host to move ann's figure, and bob to measure his link", func() bool {
		st := bob.NetStats()
		return x(lb.Host.Do) >= 60 && st.RTT >= 80*time.Millisecond && st.LossIn > 0.05
	})
	if st := bob.NetStats(); st.Loss > st.LossIn/3 {
		t.Fatalf("bob lost %.3f of his datagrams and %.3f of the host's: the link loses only the host's", st.Loss, st.LossIn)
	}
	ann.SetInput(Walk{})
	waitFor(t, "bob to have ann where she stopped", func() bool {
		h := x(lb.Host.Do)
		return h >= 60 && x(bob.Do) == h && x(ann.Do) == h
	})
}
