package tandemtest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
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
