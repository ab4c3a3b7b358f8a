package tandem

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/command"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/save"
	"github.com/tandem-go/tandem/store/storetest"
)

// dialFails dials a client and steps until the host turns it away.
func (r *rig) dialFails(name string, cfg ClientConfig[push]) error {
	r.t.Helper()
	c := r.dial(name, cfg, session.Closed)
	if c.State() != session.Closed {
		r.t.Fatalf("%s was never turned away (%v)", name, c.State())
	}
	return c.Err()
}

// TestCapacityAndSpectators: player slots hold, a spectator takes none,
// owns nothing and has its commands and input refused, and spectator places
// hold too.
func TestCapacityAndSpectators(t *testing.T) { forEachStore(t, testCapacityAndSpectators) }

func testCapacityAndSpectators(t *testing.T, s saveStore) {
	var joins int
	r := newRig(t, HostConfig{SaveTo: s.target(t), MaxPeers: 2, Spectators: 1})
	join := r.g.Join
	r.g.Join = func(w *World, p Peer) error { joins++; return join(w, p) }
	r.join("ann", ClientConfig[push]{})
	r.join("bob", ClientConfig[push]{})
	// Refused by the session's Reject, before any Join or slot.
	var re *session.RejectError
	if err := r.dialFails("carl", ClientConfig[push]{}); !errors.Is(err, ErrRefused) || !errors.As(err, &re) ||
		re.Code != wire.RejectFull || re.Reason != "host full (2 players); try again later" {
		t.Fatalf("the third player: %v, want a Reject: full", err)
	}
	if st := r.host.Stats(); joins != 2 || st.Joined != 2 || st.Peers != 2 {
		t.Fatalf("the refused player was given a place: Join ran %d times, %+v", joins, st)
	}
	var entities int
	r.host.Do(func(w *World) { entities = w.ECS.Networked() })
	eve := r.join("eve", ClientConfig[push]{Spectator: true})
	r.step(30)
	if joins != 2 {
		t.Fatalf("the Join hook ran %d times, want twice (not for the spectator)", joins)
	}
	r.host.Do(func(w *World) {
		if n := w.ECS.Networked(); n != entities || len(w.ECS.Owned(eve.Peer())) != 0 {
			t.Errorf("the spectator made %d entities or owns %d", n-entities, len(w.ECS.Owned(eve.Peer())))
		}
	})
	if _, err := Send(eve, addCommand, 1); !errors.Is(err, ErrSpectator) {
		t.Fatalf("a spectator's Send: %v", err)
	}
	if st := r.host.Stats(); st.Players != 2 || st.Spectators != 1 {
		t.Fatalf("host counts %+v", st)
	}
	if _, ok := eve.Local(); ok {
		t.Fatal("the spectator drives an entity")
	}
	if err := r.dialFails("fay", ClientConfig[push]{Spectator: true}); !errors.As(err, &re) ||
		re.Code != wire.RejectFull || re.Reason != "no room to watch (spectator places: 1, all taken); try again later" {
		t.Fatalf("the second spectator: %v, want a Reject: no room to watch", err)
	}
	// A spectator that sends a command or input anyway: malformed.
	tc, _ := r.net.Dial(context.Background(), "host")
	w := ecs.NewWorld()
	reg := r.g.registry(w)
	sched := ecs.NewSchedule(w, r.clk, 0)
	eve.Close() // her place is gil's
	r.step(10)
	raw, err := session.NewClient(sched, reg, tc, session.ClientConfig{Name: "gil", Clock: r.clk, Spectator: true, Schema: r.g.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	r.raws = append(r.raws, &rawPlayer{w: w, sched: sched, cl: raw})
	for i := 0; raw.State() != session.Playing; i++ {
		if i > 300 {
			t.Fatal("the raw spectator never joined")
		}
		r.step(1)
	}
	malformed := r.host.Stats().Malformed
	msg, _ := wire.Command{Op: 1, Kind: 0, Payload: u32(1)}.Encode(nil)
	raw.Conn().SendLane(transport.LaneCommands, msg)
	raw.Conn().Queue(wire.KindInput, []byte{1, 1, 1}, 0)
	raw.Conn().Flush()
	r.step(10)
	if got := r.host.Stats().Malformed - malformed; got != 2 || r.host.Stats().Commands != 0 {
		t.Fatalf("a spectator's command and input: %d malformed, %d commands run", got, r.host.Stats().Commands)
	}
}

// TestKnownPlayersHoldTheirPlaces: after a restart the players of the save
// hold their slots (and peer ids, and entities) through the grace window: a
// new player is refused as the game being full; once the window is over their
// entities leave with them (the Leave hook hears of it) and the new player
// gets in.
func TestKnownPlayersHoldTheirPlaces(t *testing.T) { forEachStore(t, testKnownPlayersHoldTheirPlaces) }

func testKnownPlayersHoldTheirPlaces(t *testing.T, s saveStore) {
	var left []Peer
	r := newRig(t, HostConfig{SaveTo: s.target(t), MaxPeers: 2, Grace: 5 * time.Second})
	r.g.Leave = func(w *World, p Peer) { left = append(left, p) }
	r.join("ann", ClientConfig[push]{})
	r.join("bob", ClientConfig[push]{})
	r.restart()
	if st := r.host.Stats(); st.Away != 2 || st.Players != 0 {
		t.Fatalf("after the restart %+v, want two known players away", st)
	}
	var re *session.RejectError
	if err := r.dialFails("carl", ClientConfig[push]{}); !errors.As(err, &re) || re.Code != wire.RejectFull {
		t.Fatalf("a new player while both are away: %v, want a Reject: full", err)
	}
	r.host.Do(func(w *World) {
		if len(w.ECS.Owned(1)) != 1 || len(w.ECS.Owned(2)) != 1 {
			t.Fatal("the known players' entities were not kept")
		}
	})
	r.step(6 * 60)
	if len(left) != 2 || r.host.Stats().Away != 0 {
		t.Fatalf("after the grace window: left %v, %+v", left, r.host.Stats())
	}
	r.host.Do(func(w *World) {
		if len(w.ECS.Owned(1))+len(w.ECS.Owned(2)) != 0 {
			t.Fatal("the entities of players whose grace ran out are still there")
		}
	})
	c := r.join("carl", ClientConfig[push]{})
	if c.Peer() == 0 {
		t.Fatal("carl got no peer id")
	}
	// The records of the players who left are gone from the save too.
	r.restart()
	if st := r.host.Stats(); st.Away != 1 {
		t.Fatalf("after a second restart %+v, want carl alone away", st)
	}
}

// TestClientSendsAgainOnANewAdmission: commands without a receipt go out
// again when the client is admitted again (a reconnect), and the host
// knows the copy from its book: one run, one receipt (the first answer
// still waits for the save, and goes with it: the copy gets no second).
func TestClientSendsAgainOnANewAdmission(t *testing.T) {
	forEachStore(t, testClientSendsAgainOnANewAdmission)
}

func testClientSendsAgainOnANewAdmission(t *testing.T, s saveStore) {
	_, st := openStore(t, s.target(t))
	faulty := storetest.NewFaulty(st)
	r := newRig(t, HostConfig{Store: faulty})
	ann := r.join("ann", ClientConfig[push]{})
	r.async = true
	release := faulty.Block()
	op, err := Send(ann, addCommand, 8)
	if err != nil {
		t.Fatal(err)
	}
	r.step(10)
	ann.Do(func(*World) { ann.admittedCommands() }) // as a resume on a new connection does
	r.step(10)
	release()
	var got []Receipt
	ann.OnReceipt(func(rc Receipt) { got = append(got, rc) })
	for i := 0; len(got) == 0 && i < 1000; i++ {
		r.step(1)
		r.settle()
	}
	r.step(10)
	r.settle()
	r.step(10)
	if len(got) != 1 || got[0].Op != op || got[0].Status != ReceiptDone || got[0].Command != "add" {
		t.Fatalf("receipts %+v, want one, done", got)
	}
	if st := r.host.Stats(); st.Commands != 1 || st.Again != 1 {
		t.Fatalf("host ran %d, answered %d from its book; want 1 and 1", st.Commands, st.Again)
	}
	if cs := ann.CommandStats(); cs.Sent != 2 || cs.Stray != 0 || ann.PendingCommands() != 0 {
		t.Fatalf("client %+v, %d pending", cs, ann.PendingCommands())
	}
}

// TestSaveNeedsExactCodecs: a host that saves refuses a replicated component
// without an exact codec, naming it; a component nothing saves fails the
// save that meets it, and says so.
func TestSaveNeedsExactCodecs(t *testing.T) { forEachStore(t, testSaveNeedsExactCodecs) }

func testSaveNeedsExactCodecs(t *testing.T, s saveStore) {
	g := ledgerGame()
	g.Components = append(g.Components, Replicate(labelCodec, HostValue))
	_, err := NewHost(g, HostConfig{SaveTo: s.target(t)})
	if err == nil || !strings.Contains(err.Error(), "label") || !strings.Contains(err.Error(), "exact") {
		t.Fatalf("NewHost with a component without an exact codec: %v", err)
	}
	if h, err := NewHost(g, HostConfig{}); err != nil {
		t.Fatalf("in memory it needs none: %v", err)
	} else {
		h.Close()
	}

	type secret struct{ X int }
	var shown []error
	r := newRig(t, HostConfig{SaveTo: s.target(t), OnSaveError: func(err error) { shown = append(shown, err) }})
	r.host.Do(func(w *World) {
		e, _ := w.ECS.EntityOf(1)
		w.ECS.Arche().Add(e, arche.ComponentID[secret](w.ECS.Arche()))
		ecs.MutateComponent(w.ECS, e, w.ECS.IDs.Transform)
	})
	r.step(10)
	ss := r.host.SaveStats()
	if ss.Unsaved == 0 || !errors.Is(ss.LastErr, save.ErrUnsaved) || len(shown) == 0 || !strings.Contains(shown[0].Error(), "secret") || !strings.Contains(shown[0].Error(), "tandem.SaveComponent") || strings.Contains(shown[0].Error(), "save.Component") {
		t.Fatalf("a component nothing saves: %+v, shown %v", ss, shown)
	}
}

// TestCommandsPastTheRateAllWait: commands past the host's rate wait their
// turn, a second's worth and at least the 64 a client holds without a
// receipt: none of a client's is dropped, and each runs once, in turn.
// (With room for 8 at one command a second, the ninth of ten was dropped,
// sent again seconds later and run after newer ones.)
func TestCommandsPastTheRateAllWait(t *testing.T) { forEachStore(t, testCommandsPastTheRateAllWait) }

func testCommandsPastTheRateAllWait(t *testing.T, s saveStore) {
	r := newRig(t, HostConfig{SaveTo: s.target(t), CommandRate: 1})
	ann := r.join("ann", ClientConfig[push]{})
	for i := range 10 {
		if _, err := Send(ann, addCommand, uint32(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	r.step(60)
	if st := r.host.Stats(); st.Waited != 9 || st.Dropped != 0 || st.Commands < 1 || st.Commands > 3 {
		t.Fatalf("at one command a second: %+v, want 9 waiting their turn, none dropped, one a second run", st)
	}
	for i := 0; ann.PendingCommands() > 0; i++ {
		if i > 40*60 {
			t.Fatalf("%d commands still without a receipt after 40 s", ann.PendingCommands())
		}
		r.step(1)
	}
	if s := snapshot(r.host); !strings.Contains(s, "ledger {Count:10 Sum:55 ") {
		t.Fatalf("the commands did not each run once:\n%s", s)
	}
	if st := r.host.Stats(); st.Dropped != 0 {
		t.Fatalf("the host dropped %d commands", st.Dropped)
	}
}

// TestMaxWithheldCountsQueuedCommands: MaxWithheld bounds a player's
// receipts waiting for a save together with the commands taken this frame
// and not run yet: of four commands arriving in one frame with room for
// two, two run and two wait their turn, running, in order, once the save
// of the first receipts landed.
func TestMaxWithheldCountsQueuedCommands(t *testing.T) {
	r := newRig(t, HostConfig{SaveTo: savePath(t), MaxWithheld: 2})
	p := r.dialRaw("bob")
	r.step(2)
	for op := uint64(1); op <= 4; op++ {
		p.send(t, op, 0, u32(uint32(op)))
	}
	r.step(1)
	if st := r.host.Stats(); st.Commands != 2 || st.Waited != 2 || st.Dropped != 0 {
		t.Fatalf("%d commands run, %d waiting, %d dropped; want 2, 2 and 0", st.Commands, st.Waited, st.Dropped)
	}
	for i := 0; len(p.receipts(t)) < 4; i++ {
		if i > 600 {
			t.Fatalf("receipts %+v after 10 s, want four", p.receipts(t))
		}
		r.step(1)
	}
	for i, rc := range p.receipts(t) {
		if rc.Op != uint64(i+1) {
			t.Fatalf("receipts %+v, want ops 1 to 4 in order", p.receipts(t))
		}
	}
}

// TestHostCountsWhatAGameDoesNotTake: a player's messages that no part of a
// Game takes (a game lane kind on the commands lane, a command on the
// control lane, a game datagram kind) count as malformed, each once, and
// none runs as a command.
func TestHostCountsWhatAGameDoesNotTake(t *testing.T) {
	r := newRig(t, HostConfig{})
	p := r.dialRaw("mallory")
	r.step(2)
	before := r.host.Stats().Malformed
	cmd, _ := wire.Command{Op: 1, Kind: 0, Payload: u32(1)}.Encode(nil)
	p.cl.Conn().SendLane(transport.LaneCommands, []byte{byte(wire.KindGameLane), 1})
	p.cl.Conn().SendLane(transport.LaneControl, cmd)
	p.cl.Conn().Queue(wire.KindGameDatagram, []byte{1}, 0)
	p.cl.Conn().Flush()
	r.step(5)
	if got := r.host.Stats().Malformed - before; got != 3 || r.host.Stats().Commands != 0 {
		t.Fatalf("three messages no game takes: %d counted malformed, %d commands run", got, r.host.Stats().Commands)
	}
}

// TestFewerReceiptsKeptAfterARestart: a save holding more receipts of a
// player than the restarted host keeps (HostConfig.Receipts lowered) loses
// the oldest from the save too, not only from memory. (A host keeps at
// least command.DefaultPending.)
func TestFewerReceiptsKeptAfterARestart(t *testing.T) {
	keep := command.DefaultPending + 4
	r := newRig(t, HostConfig{SaveTo: savePath(t), Receipts: keep})
	p := r.dialRaw("bob")
	for op := uint64(1); op <= uint64(keep); op++ {
		p.send(t, op, 0, u32(uint32(op)))
		r.step(3)
	}
	receiptRecords := func() (n int) {
		for k := range records(t, r.host) {
			if k[0] == keyReceipt {
				n++
			}
		}
		return n
	}
	if n := receiptRecords(); n != keep {
		t.Fatalf("%d receipt records saved, want %d", n, keep)
	}
	r.cfg.Receipts = keep - 2
	r.restart()
	if err := r.host.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := receiptRecords(); n != keep-2 {
		t.Fatalf("%d receipt records in the save after a restart keeping %d", n, keep-2)
	}
	r.restart()
	if rp := r.host.Restored(); rp.Receipts != keep-2 || rp.Players != 1 {
		t.Fatalf("restored %+v, want bob and his %d newest receipts", rp, keep-2)
	}
	r.cfg.Receipts = 2 // raised to what a client may send again
	r.restart()
	if err := r.host.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := receiptRecords(); n != command.DefaultPending {
		t.Fatalf("%d receipt records in the save after a restart keeping \"2\": want %d, as many as a client may send again", n, command.DefaultPending)
	}
}

// TestCloseLetsEveryoneGo: a plain Close tells its players the host shut
// down, so they leave with it — the one connected and the one away alike:
// Game.Leave runs for each, PeerLeft says ErrHostShutDown, their entities
// go, and the final save holds neither. A host started on that save holds
// no place for them: two newcomers take both slots at once.
func TestCloseLetsEveryoneGo(t *testing.T) { forEachStore(t, testCloseLetsEveryoneGo) }

func testCloseLetsEveryoneGo(t *testing.T, s saveStore) {
	var left []string
	var why []error
	r := newRig(t, HostConfig{SaveTo: s.target(t), MaxPeers: 2, Grace: 5 * time.Second})
	r.g.Leave = func(w *World, p Peer) { left = append(left, p.Name) }
	r.host.OnEvent(func(e Event) {
		if e.Kind == PeerLeft {
			why = append(why, e.Err)
		}
	})
	ann := r.join("ann", ClientConfig[push]{})
	r.join("bob", ClientConfig[push]{})
	toBob := r.accepted[len(r.accepted)-1].(*mem.Conn)
	toBob.Cut() // bob is not told: he is away, his place held
	toBob.Close(transport.CloseTimeout, "the link broke")
	for i := 0; r.host.Stats().Away == 0; i++ {
		if i > 600 {
			t.Fatal("the host never saw bob's connection break")
		}
		r.step(1)
	}
	hostOwned := 0
	r.host.Do(func(w *World) { hostOwned = len(w.ECS.Owned(ecs.HostPeer)) })

	if err := r.host.Close(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(left)
	if strings.Join(left, " ") != "ann bob" || len(why) != 2 {
		t.Fatalf("Close: Game.Leave ran for %v, %d PeerLeft; want ann and bob", left, len(why))
	}
	for _, err := range why {
		if !errors.Is(err, session.ErrHostShutDown) {
			t.Fatalf("PeerLeft at Close: %v, want ErrHostShutDown", err)
		}
	}
	for range 60 {
		r.clk.Advance(ecs.DefaultStep)
		ann.Advance()
	}
	if ann.State() != session.Closed || !errors.Is(ann.stopped(), ErrHostClosed) {
		t.Fatalf("ann after Close: %v, %v; want her session ended by the host's", ann.State(), ann.stopped())
	}

	r.start()
	if rep := r.host.Restored(); rep.Players != 0 {
		t.Fatalf("restored %+v, want no player: both were let go", rep)
	}
	r.host.Do(func(w *World) {
		if n := w.ECS.Networked() - len(w.ECS.Owned(ecs.HostPeer)); n != 0 || len(w.ECS.Owned(ecs.HostPeer)) != hostOwned {
			t.Fatalf("restored %d entities of players, %d of the host's; want none and %d", n, len(w.ECS.Owned(ecs.HostPeer)), hostOwned)
		}
	})
	for _, name := range []string{"carl", "dan"} {
		if c := r.join(name, ClientConfig[push]{}); c.State() != session.Playing {
			t.Fatalf("%s on the restarted host: %v (%v), want playing", name, c.State(), c.Err())
		}
	}
}

// TestSaveTakesChangesBetweenSteps: what Do changes after the last step is
// in the save that follows (Save, or Close's final one), though no step
// read it.
func TestSaveTakesChangesBetweenSteps(t *testing.T) {
	r := newRig(t, HostConfig{SaveTo: savePath(t)})
	r.step(10)
	if err := r.host.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	set := func(n int64) {
		r.host.Do(func(w *World) {
			a := w.ECS.Arche()
			tid := arche.ComponentID[tally](a)
			for _, e := range w.ECS.Owned(ecs.HostPeer) {
				(*tally)(a.Get(e, tid)).N = n
				ecs.MutateComponent(w.ECS, e, tid)
			}
		})
	}
	set(777)
	if err := r.host.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	set(778)
	before := snapshot(r.host)
	r.restart()
	if after := snapshot(r.host); after != before {
		t.Fatalf("the changes made in Do before Close were not saved:\nbefore\n%s\nafter\n%s", before, after)
	}
	r.host.Do(func(w *World) {
		a := w.ECS.Arche()
		for _, e := range w.ECS.Owned(ecs.HostPeer) {
			if n := (*tally)(a.Get(e, arche.ComponentID[tally](a))).N; n != 778 {
				t.Fatalf("restored tally %d, want 778", n)
			}
		}
	})
}

// TestCloseForRestartWithoutGrace: a host with no grace window cannot keep
// a place for anyone, so CloseForRestart closes as Close does: its players
// are let go and the save holds none.
func TestCloseForRestartWithoutGrace(t *testing.T) { forEachStore(t, testCloseForRestartWithoutGrace) }

func testCloseForRestartWithoutGrace(t *testing.T, s saveStore) {
	var why []error
	r := newRig(t, HostConfig{SaveTo: s.target(t), Grace: -1})
	r.host.OnEvent(func(e Event) {
		if e.Kind == PeerLeft {
			why = append(why, e.Err)
		}
	})
	r.join("ann", ClientConfig[push]{})
	if r.host.Restartable() {
		t.Fatal("a host without a grace window says it can restart")
	}
	if err := r.host.CloseForRestart(); err != nil {
		t.Fatal(err)
	}
	if len(why) != 1 || !errors.Is(why[0], session.ErrHostShutDown) {
		t.Fatalf("PeerLeft at CloseForRestart without grace: %v, want ann's with ErrHostShutDown", why)
	}
	r.start()
	if rep := r.host.Restored(); rep.Players != 0 {
		t.Fatalf("restored %+v, want no player", rep)
	}
}

// A player's joining and leaving are saved at the end of their step, not at
// the next timed save: a host restored after a crash knows who played, and
// holds no place for a player who had left (and maybe joined again, as a
// new peer).
func TestJoinsAndLeavesAreSavedAtOnce(t *testing.T) {
	r := newRig(t, HostConfig{SaveTo: savePath(t), SaveEvery: time.Hour})
	r.step(10)
	commits := func() uint64 { return r.host.SaveStats().Commits }
	before := commits()
	ann := r.join("ann", ClientConfig[push]{})
	if commits() == before {
		t.Fatalf("ann joined and no save was made (%d commits)", before)
	}
	r.step(10)
	before = commits()
	ann.Close()
	for i := 0; r.host.Stats().Players != 0; i++ {
		if i > 120 {
			t.Fatalf("ann did not leave: %+v", r.host.Stats())
		}
		r.step(1)
	}
	r.step(1)
	if commits() == before {
		t.Fatalf("ann left and no save was made (%d commits)", before)
	}
}
