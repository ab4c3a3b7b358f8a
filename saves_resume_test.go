package tandem

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/store/storetest"
)

// Saves and resume together: players whose host restarted resume into the
// world it restored, and commands without a receipt go again on a resume.

// restart ends the pair's host as a crash would look to its clients (every
// connection goes dark: nobody is told), after it saved its players on
// CloseForRestart, and starts another on the same store.
func (p *resumePair) restart() {
	p.t.Helper()
	for _, spy := range p.spies {
		spy.Conn.(*mem.Conn).Cut()
	}
	if err := p.host.CloseForRestart(); err != nil {
		p.t.Fatal(err)
	}
	p.spies, p.resumed, p.left = nil, nil, nil
	p.start()
}

// until runs the pair until ok, failing after limit of simulated time.
func (p *resumePair) until(limit time.Duration, what string, ok func() bool) {
	p.t.Helper()
	for end := p.clk.Now().Add(limit); !ok(); {
		if !p.clk.Now().Before(end) {
			p.t.Fatalf("%s: not within %v", what, limit)
		}
		p.run(time.Second / 120)
	}
}

// tallies returns the tally of every entity peer owns in w, by network id.
func tallies(w *World, peer ecs.PeerID) map[ecs.NetID]int64 {
	out := map[ecs.NetID]int64{}
	a := w.ECS.Arche()
	id := arche.ComponentID[tally](a)
	for _, e := range w.ECS.Owned(peer) {
		ni, _ := w.ECS.Identity(e)
		out[ni.ID] = (*tally)(a.Get(e, id)).N
	}
	return out
}

// TestPlayersResumeIntoARestoredWorld: two players at a host that holds two
// slots; the host restarts from its save without telling them. Until they
// are back the save's players hold both slots: a newcomer is refused as
// full with a Reject, before any Join. Then both clients, reconnecting by
// themselves, resume into the restored world: the same peer ids, the same
// entities with what the commands made of them, no Join and no Leave run
// again, entity counts equal on both sides, and a command after the restart
// is answered by the restored book.
func TestPlayersResumeIntoARestoredWorld(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		joins := 0
		left := 0
		game := func() *Game[push] {
			g := ledgerGame()
			g.Roster = true
			arrived := g.Arrived
			g.Arrived = func(w *World, e arche.Entity) {
				if w.ECS.Arche().Has(e, w.ECS.IDs.Transform) { // not a roster entry
					arrived(w, e)
				}
			}
			join := g.Join
			g.Join = func(w *World, p Peer) error { joins++; return join(w, p) }
			g.Leave = func(*World, Peer) { left++ }
			return g
		}
		p := newResumePairOf(t, game, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{SaveTo: savePath(t), MaxPeers: 2})
		ann := p.joinAs(ClientConfig[push]{Name: "ann"})
		bob := p.joinAs(ClientConfig[push]{Name: "bob"})
		var receipts []Receipt
		ann.OnReceipt(func(r Receipt) { receipts = append(receipts, r) })
		if _, err := Send(ann.Client, addCommand, 7); err != nil {
			t.Fatal(err)
		}
		p.until(2*time.Second, "the first receipt", func() bool { return len(receipts) == 1 })

		peers := map[*rclient]ecs.PeerID{ann: ann.Peer(), bob: bob.Peer()}
		owned := map[ecs.PeerID]map[ecs.NetID]int64{}
		p.host.Do(func(w *World) {
			for _, id := range peers {
				owned[id] = tallies(w, id)
			}
		})
		if got := owned[peers[ann]]; len(got) != 1 || func() int64 {
			for _, n := range got {
				return n
			}
			return 0
		}() != 7 {
			t.Fatalf("ann's disc before the restart: %v", got)
		}

		p.restart()
		if st := p.host.Stats(); st.Away != 2 || st.Players != 0 {
			t.Fatalf("after the restart %+v, want the save's two players away", st)
		}
		// The restored world names its players in the roster (the save
		// keeps no roster: the restore makes it from the save's players).
		p.host.Do(func(w *World) {
			if got := memberNames(w); got != "ann bob" {
				t.Fatalf("the restored host's roster: %q, want ann and bob", got)
			}
		})
		// A newcomer while both places are held: refused as full.
		carl := p.joinRefused("carl")
		var re *session.RejectError
		if !errors.As(carl, &re) || re.Code != wire.RejectFull {
			t.Fatalf("a newcomer at capacity after the restart: %v, want a RejectFull", carl)
		}
		joinsBefore := joins

		p.until(20*time.Second, "both players resumed", func() bool {
			return ann.NetStats().Resumes == 1 && bob.NetStats().Resumes == 1 &&
				ann.State() == session.Playing && bob.State() == session.Playing
		})
		p.run(time.Second)
		if joins != joinsBefore || left != 0 || len(p.left) != 0 {
			t.Fatalf("after the resumes: Join ran %d more times, Leave %d times, %d left", joins-joinsBefore, left, len(p.left))
		}
		if st := p.host.Stats(); st.Away != 0 || st.Players != 2 || st.Resumed != 2 {
			t.Fatalf("host after the resumes: %+v", st)
		}
		var hostCount int
		p.host.Do(func(w *World) {
			hostCount = w.ECS.Networked()
			for c, id := range peers {
				if got := tallies(w, id); !equalTallies(got, owned[id]) {
					t.Errorf("%s's entities on the restored host: %v, want %v", c.cfg.Name, got, owned[id])
				}
			}
		})
		for c, id := range peers {
			if c.Peer() != id {
				t.Fatalf("%s resumed as peer %d, was %d", c.cfg.Name, c.Peer(), id)
			}
			c.Do(func(w *World) {
				if got := memberNames(w); got != "ann bob" {
					t.Errorf("%s's roster after the resume: %q, want ann and bob once each", c.cfg.Name, got)
				}
				if got := tallies(w, id); !equalTallies(got, owned[id]) || w.ECS.Networked() != hostCount {
					t.Errorf("%s holds %v of its own and %d entities; the host %v and %d", c.cfg.Name, got, w.ECS.Networked(), owned[id], hostCount)
				}
			})
		}

		if _, err := Send(ann.Client, addCommand, 5); err != nil {
			t.Fatal(err)
		}
		p.until(2*time.Second, "a receipt after the restart", func() bool { return len(receipts) == 2 })
		if r := receipts[1]; r.Status != ReceiptDone {
			t.Fatalf("the command after the restart: %+v", r)
		}
		p.host.Do(func(w *World) {
			if l := ecs.Resource[ledger](w.ECS); l.Count != 2 || l.Sum != 12 {
				t.Fatalf("the ledger after the restart: %+v, want the command before it and the one after", *l)
			}
		})
	})
}

// TestPlayersComeBackAfterAnAnnouncedRestart: a host that closes with
// CloseForRestart tells its players to come back: their clients reconnect
// (Reconnecting, not Closed) and resume, as the same peers, into the world
// the next host restores from the save; a client that cannot dial again
// ends as at a shutdown. One closed with Close ends its players' sessions:
// they are Closed, with no error (an orderly end).
func TestPlayersComeBackAfterAnAnnouncedRestart(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p := newResumePairOf(t, ledgerGame, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{SaveTo: savePath(t)})
		ann := p.joinAs(ClientConfig[push]{Name: "ann"})
		cid := p.joinDialing(ClientConfig[push]{Name: "cid"}, false)
		peer := ann.Peer()
		if !p.host.Restartable() {
			t.Fatal("a saving host with a grace window says a restart would not bring its players back")
		}
		if err := p.host.CloseForRestart(); err != nil {
			t.Fatal(err)
		}
		if p.host.Restartable() {
			t.Fatal("a closed host says a restart would bring its players back")
		}
		p.spies, p.resumed, p.left = nil, nil, nil
		p.until(time.Second, "ann and cid told of the restart", func() bool {
			return ann.State() != session.Playing && cid.State() != session.Playing
		})
		if st := ann.State(); st != session.Reconnecting {
			t.Fatalf("ann after the host's restart: %v (%v), want reconnecting", st, ann.Err())
		}
		cid.mu.Lock()
		ended := cid.stopped()
		cid.mu.Unlock()
		if st := cid.State(); st != session.Closed || cid.Err() != nil || !errors.Is(ended, ErrHostRestarting) || !errors.Is(ended, ErrHostClosed) {
			t.Fatalf("cid, who cannot dial again, after the host's restart: %v, Err %v, Run's end %v; want closed, no error, ErrHostRestarting (an ErrHostClosed)", st, cid.Err(), ended)
		}
		p.clients = p.clients[:1] // cid is gone
		p.start()
		p.until(20*time.Second, "ann resumed", func() bool {
			return ann.State() == session.Playing && ann.NetStats().Resumes == 1
		})
		if ann.Peer() != peer || len(p.resumed) != 1 || len(p.left) != 0 {
			t.Fatalf("ann resumed as peer %d (was %d); the new host saw %d resumes, %d leaves", ann.Peer(), peer, len(p.resumed), len(p.left))
		}

		if err := p.host.Close(); err != nil {
			t.Fatal(err)
		}
		p.until(time.Second, "ann told of the shutdown", func() bool { return ann.State() == session.Closed })
		if err := ann.Err(); err != nil {
			t.Fatalf("ann after the host shut down: %v, want an orderly end", err)
		}
		// What Run returns: the host's shutdown, which is a close.
		ann.mu.Lock()
		ended = ann.stopped()
		ann.mu.Unlock()
		if !errors.Is(ended, ErrHostClosed) || !errors.Is(ended, ErrClosed) || errors.Is(ended, ErrHostRestarting) {
			t.Fatalf("ann's Run after the host shut down would return %v, want ErrHostClosed, not ErrHostRestarting", ended)
		}
	})
}

// TestOwnCloseIsNotTheHosts: a client that leaves ends its Run with
// ErrClosed, not ErrHostClosed, though the host is still there.
func TestOwnCloseIsNotTheHosts(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p := newResumePairOf(t, ledgerGame, condition.Config{}, HostConfig{})
		if p.host.Restartable() {
			t.Fatal("a host without a save says a restart would bring its players back")
		}
		ann := p.joinAs(ClientConfig[push]{Name: "ann"})
		if err := ann.Close(); err != nil {
			t.Fatal(err)
		}
		p.until(time.Second, "ann closed", func() bool { return ann.State() == session.Closed })
		ann.mu.Lock()
		ended := ann.stopped()
		ann.mu.Unlock()
		if !errors.Is(ended, ErrClosed) || errors.Is(ended, ErrHostClosed) {
			t.Fatalf("ann's Run after its own Close would return %v, want ErrClosed alone", ended)
		}
	})
}

// joinRefused dials the pair's host as a new player named name and runs
// until the client closes; it returns its Err.
func (p *resumePair) joinRefused(name string) error {
	p.t.Helper()
	tc, _ := p.net.Dial(context.Background(), "host")
	c, err := NewClient(p.game(), tc, ClientConfig[push]{Name: name, Clock: p.clk})
	if err != nil {
		p.t.Fatal(err)
	}
	rc := &rclient{Client: c}
	p.clients = append(p.clients, rc)
	defer func() { p.clients = p.clients[:len(p.clients)-1] }()
	p.until(2*time.Second, name+" refused", func() bool { return c.State() == session.Closed })
	if !errors.Is(c.Err(), ErrRefused) {
		p.t.Fatalf("%s: %v, want refused", name, c.Err())
	}
	return c.Err()
}

func equalTallies(a, b map[ecs.NetID]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// awaitingSave is a player, ann, of a ledger game whose host saves to a
// store that holds its writes back: the command the player sent (op) ran,
// and its receipt waits for the save until release; the receipts ann
// hears are kept.
type awaitingSave struct {
	p        *resumePair
	ann      *rclient
	release  func()
	op       uint64
	receipts *[]Receipt
}

// commandAwaitingItsSave sets up an awaitingSave whose host runs with cfg
// (its Store is the holding one).
func commandAwaitingItsSave(t *testing.T, cfg HostConfig) awaitingSave {
	_, st := openStore(t, savePath(t))
	faulty := storetest.NewFaulty(st)
	cfg.Store = faulty
	c := awaitingSave{receipts: new([]Receipt)}
	c.p = newResumePairOf(t, ledgerGame, condition.Config{Latency: 20 * time.Millisecond}, cfg)
	c.ann = c.p.joinAs(ClientConfig[push]{Name: "ann"})
	c.ann.OnReceipt(func(r Receipt) { *c.receipts = append(*c.receipts, r) })
	c.release = faulty.Block()
	var err error
	if c.op, err = Send(c.ann.Client, addCommand, 9); err != nil {
		t.Fatal(err)
	}
	c.p.until(time.Second, "the command run", func() bool { return c.p.host.Stats().Commands == 1 })
	return c
}

// TestCommandsGoAgainOnAResume: a command the host ran whose receipt waits
// for a slow store; the player's connection breaks and its receipt, freed
// while it is away, reaches nobody. On the resume the client sends the
// command again at once (on the new connection, not after its resend
// timer), and the host answers the copy from its book: the handler ran
// once, one receipt, done.
func TestCommandsGoAgainOnAResume(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		c := commandAwaitingItsSave(t, HostConfig{})
		p, ann, release, op := c.p, c.ann, c.release, c.op
		if p.host.Withheld() != 1 {
			t.Fatalf("%d receipts withheld, want the command's", p.host.Withheld())
		}
		// The link breaks (both ends learn it at once); the save lands
		// while the player is away.
		ann.conn().Close(transport.CloseTimeout, "the link went down")
		p.until(time.Second, "reconnecting", func() bool { return ann.State() == session.Reconnecting })
		release()
		p.until(time.Second, "the receipt freed", func() bool { return p.host.Withheld() == 0 })
		if len(*c.receipts) != 0 {
			t.Fatalf("a receipt reached the client while it was away: %+v", *c.receipts)
		}

		p.until(5*time.Second, "a receipt after the resume", func() bool { return len(*c.receipts) == 1 })
		if ann.NetStats().Resumes != 1 {
			t.Fatalf("the receipt came without a resume (%d)", ann.NetStats().Resumes)
		}
		p.run(time.Second)
		if len(*c.receipts) != 1 || (*c.receipts)[0].Op != op || (*c.receipts)[0].Status != ReceiptDone {
			t.Fatalf("receipts %+v, want one, done, for op %d", *c.receipts, op)
		}
		if hs := p.host.Stats(); hs.Commands != 1 || hs.Again != 1 {
			t.Fatalf("the host ran %d commands and answered %d from its book; want 1 and 1", hs.Commands, hs.Again)
		}
		if cs := ann.CommandStats(); cs.Sent != 2 || cs.Resent != 0 || ann.PendingCommands() != 0 {
			t.Fatalf("client %+v with %d pending; want the command sent once more, on the resume (not by the resend timer)", cs, ann.PendingCommands())
		}
		p.host.Do(func(w *World) {
			if l := ecs.Resource[ledger](w.ECS); l.Count != 1 || l.Sum != 9 {
				t.Fatalf("the ledger %+v: the command ran other than once", *l)
			}
		})
	})
}

// memberNames returns the names of w's roster (Members), in peer order.
func memberNames(w *World) string {
	var names []string
	for _, m := range Members(w, nil) {
		names = append(names, m.Name)
	}
	return strings.Join(names, " ")
}

// TestCommandsOfAPlayerLetGoAreNotRunAgain: a command the host ran whose
// receipt waits for a slow store; the player's connection breaks and stays
// down past the grace window, so the host lets the player go. The client's
// resume is refused and it joins afresh as a new player, whose receipts
// start anew: the command, sent to the player let go, is not sent again
// (it would run twice) but answered by the client itself, ReceiptUnknown.
// A command sent after goes as usual.
func TestCommandsOfAPlayerLetGoAreNotRunAgain(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		c := commandAwaitingItsSave(t, HostConfig{Grace: 2 * time.Second})
		p, ann, release, op := c.p, c.ann, c.release, c.op
		ann.mu.Lock()
		ann.block = true // no route back until the grace window has passed
		ann.mu.Unlock()
		ann.conn().Close(transport.CloseTimeout, "the link went down")
		p.until(time.Second, "reconnecting", func() bool { return ann.State() == session.Reconnecting })
		release()
		p.until(5*time.Second, "the player let go", func() bool { return len(p.left) == 1 })
		ann.mu.Lock()
		ann.block = false
		ann.mu.Unlock()
		p.until(30*time.Second, "playing again, nothing pending", func() bool {
			return ann.State() == session.Playing && ann.PendingCommands() == 0
		})
		p.run(time.Second)
		if hs := p.host.Stats(); hs.Commands != 1 {
			t.Fatalf("the host ran %d commands, want the one, once", hs.Commands)
		}
		if len(*c.receipts) != 1 || (*c.receipts)[0].Op != op || (*c.receipts)[0].Status != ReceiptUnknown || (*c.receipts)[0].Reason == "" {
			t.Fatalf("receipts %+v, want one for op %d, unknown, saying why", *c.receipts, op)
		}
		if cs := ann.CommandStats(); cs.Unknown != 1 {
			t.Fatalf("command stats %+v, want one unknown", cs)
		}
		next, err := Send(ann.Client, addCommand, 1)
		if err != nil {
			t.Fatal(err)
		}
		p.until(5*time.Second, "the next command's receipt", func() bool { return len(*c.receipts) == 2 })
		if r := (*c.receipts)[1]; r.Op != next || r.Status != ReceiptDone {
			t.Fatalf("the command after the fresh join: %+v, want done", r)
		}
		p.host.Do(func(w *World) {
			if l := ecs.Resource[ledger](w.ECS); l.Count != 2 || l.Sum != 10 {
				t.Fatalf("the ledger %+v: each command was to run once", *l)
			}
		})
	})
}
