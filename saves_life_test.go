package tandem

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"weak"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/store"
	"github.com/tandem-go/tandem/store/storetest"
)

// openStore opens world "world" of a bbolt file for a host to be given.
func openStore(t *testing.T, path string) (store.DB, store.World) {
	t.Helper()
	db, err := store.Open(context.Background(), path, store.Options{Holder: t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w, err := db.OpenWorld(context.Background(), "world")
	if err != nil {
		t.Fatal(err)
	}
	return db, w
}

// TestSlowAndFailingStore: while the store blocks, no receipt goes out and
// the world keeps stepping; once the commit returns, the receipts go out in
// order. A failing store withholds them, says so, and the save is tried
// again until it lands.
func TestSlowAndFailingStore(t *testing.T) { forEachStore(t, testSlowAndFailingStore) }

func testSlowAndFailingStore(t *testing.T, s saveStore) {
	_, st := openStore(t, s.target(t))
	faulty := storetest.NewFaulty(st)
	var failures []error
	r := newRig(t, HostConfig{Store: faulty, OnSaveError: func(err error) { failures = append(failures, err) }})
	p := r.dialRaw("bob")
	r.step(5)
	r.async = true
	release := faulty.Block()
	frame := func() (f ecs.Frame) { r.host.Do(func(w *World) { f = w.ECS.Frame() }); return f }
	f0 := frame()
	for op := uint64(1); op <= 5; op++ {
		p.send(t, op, 0, u32(uint32(op)))
		r.step(3)
	}
	if err := faulty.WaitBlocked(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	r.step(60)
	if len(p.got) != 0 {
		t.Fatalf("%d receipts went out while the store blocked the save", len(p.got))
	}
	if f := frame(); f < f0+70 {
		t.Fatalf("the world stepped %d frames while the store blocked, want 75", f-f0)
	}
	if n := r.host.Withheld(); n != 5 {
		t.Fatalf("%d receipts withheld, want 5", n)
	}
	release()
	for i := 0; len(p.got) < 5 && i < 1000; i++ {
		r.step(1)
		r.settle()
	}
	rs := p.receipts(t)
	if len(rs) != 5 {
		t.Fatalf("%d receipts after the store came back", len(rs))
	}
	for i, rc := range rs {
		if rc.Op != uint64(i+1) || rc.Status != wire.ReceiptDone {
			t.Fatalf("receipt %d: %+v; want ops 1 to 5 in order, done", i, rc)
		}
	}

	faulty.Fail(errors.New("disk full"))
	p.send(t, 6, 0, u32(6))
	for range 30 {
		r.step(1)
		r.settle()
	}
	if len(p.got) != 5 || r.host.Withheld() != 1 {
		t.Fatalf("a failing store: %d receipts, %d withheld", len(p.got), r.host.Withheld())
	}
	ss := r.host.SaveStats()
	if ss.Failures == 0 || ss.LastErr == nil || len(failures) == 0 || !strings.Contains(failures[0].Error(), "disk full") {
		t.Fatalf("the failure was not shown: %+v, %v", ss, failures)
	}
	faulty.Fail(nil)
	for i := 0; len(p.got) < 6 && i < 1000; i++ {
		r.step(1)
		r.settle()
	}
	if rs := p.receipts(t); len(rs) != 6 || rs[5].Op != 6 || r.host.SaveStats().LastErr != nil {
		t.Fatalf("after the store healed: %+v, %v", rs, r.host.SaveStats().LastErr)
	}
	// Everything acknowledged is in the store.
	r.restart()
	if s := snapshot(r.host); !strings.Contains(s, "ledger {Count:6 Sum:21 ") {
		t.Fatalf("the restored world lacks acknowledged commands:\n%s", s)
	}
}

// TestFailedSaveRetriedAfterItsPause: a save that fails is tried again
// after its pause (100 ms after a first failure), not after SaveEvery: the
// receipt it withheld goes out within a few frames of the store healing.
func TestFailedSaveRetriedAfterItsPause(t *testing.T) {
	forEachStore(t, testFailedSaveRetriedAfterItsPause)
}

func testFailedSaveRetriedAfterItsPause(t *testing.T, s saveStore) {
	_, st := openStore(t, s.target(t))
	faulty := storetest.NewFaulty(st)
	r := newRig(t, HostConfig{Store: faulty})
	p := r.dialRaw("bob")
	r.step(5)
	faulty.Fail(errors.New("disk full"))
	p.send(t, 1, 0, u32(1))
	for i := 0; r.host.SaveStats().Failures == 0; i++ {
		if i > 60 {
			t.Fatal("the command's save never failed")
		}
		r.step(1)
	}
	faulty.Fail(nil)
	// The first pause is 100 ms, 6 frames; the receipt then takes 5 ms to
	// arrive. SaveEvery (5 s) would be 300 frames.
	frames := 0
	for ; len(p.got) == 0; frames++ {
		if frames > 20 {
			t.Fatalf("no receipt %d frames after the store healed (a retry after its 100 ms pause is due within 7)", frames)
		}
		r.step(1)
	}
	if rs := p.receipts(t); rs[0].Op != 1 || rs[0].Status != wire.ReceiptDone {
		t.Fatalf("receipt %+v, want op 1 done", rs[0])
	}
	if ss := r.host.SaveStats(); ss.Failures != 1 || ss.LastErr != nil {
		t.Fatalf("after the retry: %d failures, last error %v; want 1 and nil", ss.Failures, ss.LastErr)
	}
	t.Logf("the receipt arrived %d frames after the store healed", frames)
}

// TestOnSave: each save that lands is reported with its sequence number,
// frame and the players it knows.
func TestOnSave(t *testing.T) {
	var reps []SavedReport
	r := newRig(t, HostConfig{SaveTo: savePath(t), OnSave: func(rep SavedReport) { reps = append(reps, rep) }})
	p := r.dialRaw("bob")
	r.step(2)
	p.send(t, 1, 0, u32(1))
	for i := 0; len(p.got) == 0; i++ {
		if i > 60 {
			t.Fatal("no receipt")
		}
		r.step(1)
	}
	if len(reps) < 2 {
		t.Fatalf("%d saves reported, want the first and the command's", len(reps))
	}
	last := reps[len(reps)-1]
	if reps[0].Players != 0 || last.Players != 1 || last.Seq != uint64(len(reps)) || last.Frame == 0 {
		t.Fatalf("saves reported %+v; want the first with no player, the last with bob, sequence numbers 1, 2, …", reps)
	}
}

// TestUnsentReceiptsAreCounted: a receipt whose save lands while its
// player's connection is broken cannot go: it is counted (HostStats.Unsent),
// and kept for the command sent again.
func TestUnsentReceiptsAreCounted(t *testing.T) {
	_, st := openStore(t, savePath(t))
	faulty := storetest.NewFaulty(st)
	r := newRig(t, HostConfig{Store: faulty})
	p := r.dialRaw("bob")
	r.step(5)
	r.async = true
	release := faulty.Block()
	p.send(t, 1, 0, u32(1))
	r.step(3)
	if err := faulty.WaitBlocked(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	toBob := r.accepted[len(r.accepted)-1].(*mem.Conn)
	toBob.Cut() // bob is not told: he stays away, his place held
	toBob.Close(transport.CloseTimeout, "the link broke")
	for i := 0; r.host.Stats().Away == 0; i++ {
		if i > 600 {
			t.Fatal("the host never saw bob's connection break")
		}
		r.step(1)
	}
	release()
	for i := 0; r.host.Withheld() > 0; i++ {
		if i > 600 {
			t.Fatal("the receipt was never released")
		}
		r.step(1)
		r.settle() // the save under way lands: its receipt is due
	}
	if st := r.host.Stats(); st.Unsent != 1 || st.Commands != 1 {
		t.Fatalf("%d receipts unsent, %d commands run; want 1 and 1", st.Unsent, st.Commands)
	}
}

// TestCloseDuringPlay: commands taken before Close are in the final save and
// their receipts go out; commands after it get none; a second Close says
// the same; the store is closed.
func TestCloseDuringPlay(t *testing.T) { forEachStore(t, testCloseDuringPlay) }

func testCloseDuringPlay(t *testing.T, s saveStore) {
	path := s.target(t)
	r := newRig(t, HostConfig{SaveTo: path, SaveEvery: time.Hour})
	ann := r.join("ann", ClientConfig[push]{})
	r.async = true
	for i := range 3 {
		if _, err := Send(ann, addCommand, uint32(10+i)); err != nil {
			t.Fatal(err)
		}
	}
	// The client's messages reach the host (5 ms) and are run.
	r.clk.Advance(10 * time.Millisecond)
	r.step(1)
	if st := r.host.Stats(); st.Commands != 3 {
		t.Fatalf("%d commands ran before Close", st.Commands)
	}
	// Close waits for the receipts its final save frees to reach the
	// client (which takes them as it steps), on the host's clock, then
	// closes. The clock moves only once the receipts are on their way: the
	// save (a real fsync) takes what it takes meanwhile, and the client,
	// which gives a host silent for 5 s up as broken, sees no time pass.
	closed := make(chan error, 1)
	go func() { closed <- r.host.Close() }()
	toAnn := r.accepted[len(r.accepted)-1]
	steps := 0
	for done := false; !done; {
		select {
		case err := <-closed:
			if err != nil {
				t.Fatal(err)
			}
			done = true
		case <-time.After(time.Millisecond):
			if toAnn.Buffered(transport.LaneCommands) > 0 {
				r.clk.Advance(ecs.DefaultStep)
				ann.Advance()
				steps++
			}
		}
	}
	if steps > int(drainWait/ecs.DefaultStep) {
		t.Fatalf("the receipts took %d steps to reach the client, past Close's wait", steps)
	}
	// A command after Close: refused by a client that knows the session
	// ended (ErrClosed); else held, and answered by the client at the end:
	// unknown if it went on the connection before it, expired if not.
	_, late := Send(ann, addCommand, 99)
	if late != nil && !errors.Is(late, ErrClosed) {
		t.Fatal(late)
	}
	for range 30 {
		r.clk.Advance(ecs.DefaultStep)
		ann.Advance()
	}
	st := ann.CommandStats()
	if got := st.Receipts - st.Unknown - st.Unsent; got != 3 {
		t.Fatalf("ann got %d receipts from the host; want the 3 taken before Close, none after", got)
	}
	if n := ann.PendingCommands() + int(st.Unknown+st.Unsent); late == nil && n != 1 {
		t.Fatalf("ann holds %d commands without a receipt, %d answered unknown and %d expired unsent; want the one sent after Close, either way", ann.PendingCommands(), st.Unknown, st.Unsent)
	}
	if err := r.host.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
	select {
	case <-r.host.Done():
	default:
		t.Fatal("Done is open after Close")
	}
	h, err := NewHost(ledgerGame(), HostConfig{Clock: r.clk, SaveTo: path})
	if err != nil {
		t.Fatalf("the store is still held after Close: %v", err)
	}
	defer h.Close()
	if s := snapshot(h); !strings.Contains(s, "ledger {Count:3 Sum:33 ") {
		t.Fatalf("the final save lacks the commands taken before Close:\n%s", s)
	}
}

// TestCloseReceiptsInFlight: the receipts Close's final save frees reach
// the client even when they are still on their way as Close closes the
// connection: on a host whose clock nobody moves during Close (a test's,
// whose steps wait for Close to return) its wait for them to leave ends
// with them in flight. They are answered as the host did (done), not
// unknown, and the save holds the commands.
func TestCloseReceiptsInFlight(t *testing.T) {
	path := savePath(t)
	r := newRig(t, HostConfig{SaveTo: path, SaveEvery: time.Hour})
	ann := r.join("ann", ClientConfig[push]{})
	r.async = true // the saves of the steps are not waited for: the receipts wait for Close's
	for i := range 3 {
		if _, err := Send(ann, addCommand, uint32(10+i)); err != nil {
			t.Fatal(err)
		}
	}
	r.clk.Advance(10 * time.Millisecond) // the commands reach the host (5 ms)
	r.step(1)
	if st := r.host.Stats(); st.Commands != 3 {
		t.Fatalf("%d commands ran before Close", st.Commands)
	}
	if err := r.host.Close(); err != nil {
		t.Fatal(err)
	}
	for range 30 {
		r.clk.Advance(ecs.DefaultStep)
		ann.Advance()
	}
	st := ann.CommandStats()
	if st.Unknown != 0 || st.Receipts != 3 || ann.PendingCommands() != 0 {
		t.Fatalf("ann's commands after Close: %+v, %d pending; want the 3 receipts the host sent, none unknown", st, ann.PendingCommands())
	}
	h, err := NewHost(ledgerGame(), HostConfig{Clock: r.clk, SaveTo: path})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if s := snapshot(h); !strings.Contains(s, "ledger {Count:3 Sum:33 ") {
		t.Fatalf("the final save lacks the commands taken before Close:\n%s", s)
	}
}

// TestFailedFinalSave: a Close whose save fails returns the error and keeps
// the world, without the players it let go (a later save must not bring
// them back), and a later Save that lands finishes the Close.
func TestFailedFinalSave(t *testing.T) { forEachStore(t, testFailedFinalSave) }

func testFailedFinalSave(t *testing.T, s saveStore) {
	// withoutOwner is snapshot s without the entities of peer.
	withoutOwner := func(s string, peer ecs.PeerID) string {
		var kept []string
		for _, line := range strings.Split(s, "\n") {
			if !strings.Contains(line, fmt.Sprintf(" owner %d ", peer)) {
				kept = append(kept, line)
			}
		}
		return strings.Join(kept, "\n")
	}
	_, st := openStore(t, s.target(t))
	faulty := storetest.NewFaulty(st)
	r := newRig(t, HostConfig{Store: faulty})
	ann := r.join("ann", ClientConfig[push]{})
	before := withoutOwner(snapshot(r.host), ann.Peer())
	faulty.Fail(errors.New("disk gone"))
	err := r.host.Close()
	if err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Fatalf("Close with a failing store: %v", err)
	}
	if again := r.host.Close(); again != err {
		t.Fatalf("a second Close: %v, want the first's %v", again, err)
	}
	if after := snapshot(r.host); after != before {
		t.Fatalf("after the failed Close the world is not as before without ann (let go):\nbefore\n%s\nafter\n%s", before, after)
	}
	faulty.Fail(nil)
	if err := r.host.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestFencedHostStops: when another holder takes the world's lease, the
// host's next save is refused, and the host stops: its Run ends with the
// fencing error, its peers are told, and it saves nothing more; its Close
// lets no one go (the world is no longer its own to change).
func TestFencedHostStops(t *testing.T) { forEachStore(t, testFencedHostStops) }

func testFencedHostStops(t *testing.T, s saveStore) {
	db, st := openStore(t, s.target(t))
	r := newRig(t, HostConfig{Store: st})
	ann := r.join("ann", ClientConfig[push]{})
	left := 0
	r.host.OnEvent(func(e Event) {
		if e.Kind == session.PeerLeft {
			left++
		}
	})
	if _, err := db.OpenWorld(context.Background(), "world"); err != nil {
		t.Fatal(err)
	}
	if _, err := Send(ann, addCommand, 1); err != nil {
		t.Fatal(err)
	}
	r.step(10)
	if err := r.host.Err(); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("host error %v, want store.ErrFenced", err)
	}
	select {
	case <-r.host.Done():
	default:
		t.Fatal("a fenced host is not done")
	}
	if err := r.host.Run(context.Background()); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("Run of a fenced host: %v", err)
	}
	r.step(10)
	if st := ann.CommandStats(); ann.State() != session.Closed || st.Receipts != 1 || st.Unknown != 1 {
		t.Fatalf("ann is %v with %d receipts, %d unknown; want closed, her command answered unknown by her client", ann.State(), st.Receipts, st.Unknown)
	}
	if err := r.host.Close(); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("Close of a fenced host: %v", err)
	}
	if left != 0 {
		t.Fatalf("a fenced host's Close let %d players go", left)
	}
}

// TestIdleUnload: a world nobody plays in is saved and released; it comes
// back as it was when someone looks at it, and when a player connects.
func TestIdleUnload(t *testing.T) { forEachStore(t, testIdleUnload) }

func testIdleUnload(t *testing.T, s saveStore) {
	r := newRig(t, HostConfig{SaveTo: s.target(t), IdleUnload: 2 * time.Second})
	var world weak.Pointer[ecs.World]
	r.host.Do(func(w *World) { world = weak.Make(w.ECS) })
	ann := r.join("ann", ClientConfig[push]{})
	if _, err := Send(ann, tokenCommand, struct{}{}); err != nil {
		t.Fatal(err)
	}
	r.step(30)
	ann.Close()
	r.clients = nil
	untilReleased := func() string {
		last := ""
		for i := 0; ; i++ {
			if i > 10*60 {
				t.Fatalf("an idle world is still loaded after 10 s: %+v", r.host.SaveStats())
			}
			r.step(1)
			s := peek(r.host)
			if s == "" {
				return last
			}
			last = s
		}
	}
	before := untilReleased()
	if st := r.host.SaveStats(); st.Unloads != 1 || r.host.World() != nil {
		t.Fatalf("released: %+v", st)
	}
	// Released is dropped from memory: nothing of the host holds it.
	runtime.GC()
	runtime.GC()
	if world.Value() != nil {
		t.Fatal("the released world is still in memory")
	}
	r.step(60) // released, nothing steps
	// The world was saved as it was after the step that released it, one
	// frame past the last look; nothing moves in it by then.
	after := snapshot(r.host)
	var fb, fa int
	fmt.Sscanf(before, "frame %d", &fb)
	fmt.Sscanf(after, "frame %d", &fa)
	if fa != fb+1 || after[strings.Index(after, " next"):] != before[strings.Index(before, " next"):] {
		t.Fatalf("the world loaded again differs:\nbefore\n%s\nafter\n%s", before, after)
	}
	if !strings.Contains(before, "Tokens:[0 1 0 0]") {
		t.Fatalf("the token command is not in the world:\n%s", before)
	}
	untilReleased()
	c := r.join("bob", ClientConfig[push]{})
	if st := r.host.SaveStats(); st.Reloads != 2 || st.Unloads != 2 {
		t.Fatalf("a player's connection did not load the world again: %+v", st)
	}
	if _, err := Send(c, addCommand, 4); err != nil {
		t.Fatal(err)
	}
	r.step(20)
	if c.CommandStats().Receipts != 1 {
		t.Fatal("no receipt from the world loaded again")
	}
}

// TestIdleReloadRetries: a released world whose store cannot be read when a
// player comes (the read breaks at its end, after the records) is let go
// and tried again after pauses of 100 ms doubling to 5 s, the player's
// connection waiting meanwhile; each failure is counted and heard of, the
// host keeps running; once the store answers, the world loads as it was
// saved and the player plays.
func TestIdleReloadRetries(t *testing.T) { forEachStore(t, testIdleReloadRetries) }

func testIdleReloadRetries(t *testing.T, s saveStore) {
	_, st := openStore(t, s.target(t))
	faulty := storetest.NewFaulty(st)
	var heard []error
	r := newRig(t, HostConfig{Store: faulty, IdleUnload: 2 * time.Second, OnSaveError: func(err error) { heard = append(heard, err) }})
	ann := r.join("ann", ClientConfig[push]{})
	if _, err := Send(ann, tokenCommand, struct{}{}); err != nil {
		t.Fatal(err)
	}
	r.step(30)
	ann.Close()
	r.clients = nil
	r.stepUntilReleased()

	down := errors.New("connection reset by peer")
	faulty.FailLoad(down)
	loads := faulty.Loads()
	bob := r.dial("bob", ClientConfig[push]{}, session.Playing) // 600 frames: 10 s
	// Tries at 0, 0.1, 0.3, 0.7, 1.5, 3.1 and 6.3 s; the next would be at 11.3 s.
	const tries = 7
	st1 := r.host.SaveStats()
	if bob.State() == session.Playing || bob.State() == session.Closed {
		t.Fatalf("bob is %v while the world cannot load; want waiting", bob.State())
	}
	if err := r.host.Err(); err != nil {
		t.Fatalf("the host stopped on a store that could not be read: %v", err)
	}
	if st1.ReloadFailures != tries || !errors.Is(st1.ReloadErr, down) || st1.Reloads != 0 {
		t.Fatalf("after 10 s of a store that cannot be read: %d failures (want %d), last %v, %d reloads", st1.ReloadFailures, tries, st1.ReloadErr, st1.Reloads)
	}
	if n := faulty.Loads() - loads; n != 2*tries {
		t.Fatalf("%d loads in %d tries; want two a try (is there a save, then the save)", n, tries)
	}
	if len(heard) != tries {
		t.Fatalf("OnSaveError heard %d errors, want %d: %v", len(heard), tries, heard)
	}
	for _, err := range heard {
		if !errors.Is(err, down) || !strings.Contains(err.Error(), "trying again in") {
			t.Fatalf("OnSaveError heard %q: want the store's error and when it is tried again", err)
		}
	}
	if r.host.World() != nil {
		t.Fatal("a world that failed to load is kept")
	}

	faulty.FailLoad(nil)
	for i := 0; bob.State() != session.Playing; i++ {
		if i > 10*60 || bob.State() == session.Closed {
			t.Fatalf("bob is %v 10 s after the store came back: %v; %+v", bob.State(), bob.Err(), r.host.SaveStats())
		}
		r.step(1)
	}
	if st := r.host.SaveStats(); st.Reloads != 1 || st.ReloadErr != nil || st.ReloadFailures != tries {
		t.Fatalf("once loaded: %+v", st)
	}
	if got := peek(r.host); !strings.Contains(got, "Tokens:[0 1 0 0]") {
		t.Fatalf("the world loaded after the failures lacks ann's token:\n%s", got)
	}
	if _, err := Send(bob, addCommand, 4); err != nil {
		t.Fatal(err)
	}
	r.step(20)
	if bob.CommandStats().Receipts != 1 {
		t.Fatal("no receipt from the world loaded after the failures")
	}
}

// TestIdleReloadOfDamagedSaveStops: a released world whose save reads as
// damaged when a player comes is not tried again: the host stops on it (Err,
// Done), and the waiting player is told it shut down.
func TestIdleReloadOfDamagedSaveStops(t *testing.T) {
	forEachStore(t, testIdleReloadOfDamagedSaveStops)
}

func testIdleReloadOfDamagedSaveStops(t *testing.T, s saveStore) {
	_, st := openStore(t, s.target(t))
	faulty := storetest.NewFaulty(st)
	r := newRig(t, HostConfig{Store: faulty, IdleUnload: time.Second})
	r.stepUntilReleased()
	faulty.FailLoad(fmt.Errorf("entity 7: %w", store.ErrCorrupt))
	bob := r.dial("bob", ClientConfig[push]{}, session.Closed)
	if err := r.host.Err(); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("the host's Err after its save read as damaged: %v", err)
	}
	select {
	case <-r.host.Done():
	default:
		t.Fatal("a host whose save reads as damaged is not done")
	}
	if st := r.host.SaveStats(); st.ReloadFailures != 0 {
		t.Fatalf("a damaged save was counted as a store to try again: %+v", st)
	}
	looked := false
	r.host.Do(func(*World) { looked = true })
	if r.host.World() != nil || looked {
		t.Fatal("the half-restored world of a damaged save is left to look at")
	}
	var ce *transport.CloseError
	if bob.State() != session.Closed || bob.Joined() || !errors.As(bob.session.Err(), &ce) || ce.Code != transport.CloseHostShutdown {
		t.Fatalf("bob is %v (joined %v, %v); want told the host shut down before joining", bob.State(), bob.Joined(), bob.session.Err())
	}
}

// TestRunEndsAtClose: a host running on its own goroutine stops at Close
// from another, after its final save: Run returns ErrClosed.
func TestRunEndsAtClose(t *testing.T) { forEachStore(t, testRunEndsAtClose) }

func testRunEndsAtClose(t *testing.T, s saveStore) {
	r := newRig(t, HostConfig{SaveTo: s.target(t)})
	done := make(chan error, 1)
	go func() { done <- r.host.Run(context.Background()) }()
	if err := r.host.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("Run returned %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after Close")
	}
	if n := r.host.SaveStats().Commits; n == 0 {
		t.Fatal("no final save")
	}
}

// TestOwnLeaveIsOrderly: a client's own Close ends its session with one
// PeerLeft whose Err is nil, as Err is, and the host hears an orderly
// leave too.
func TestOwnLeaveIsOrderly(t *testing.T) {
	r := newRig(t, HostConfig{})
	var hostLeft []Event
	r.host.OnEvent(func(e Event) {
		if e.Kind == session.PeerLeft {
			hostLeft = append(hostLeft, e)
		}
	})
	ann := r.join("ann", ClientConfig[push]{})
	var left []Event
	ann.OnEvent(func(e Event) {
		if e.Kind == session.PeerLeft {
			left = append(left, e)
		}
	})
	if err := ann.Close(); err != nil {
		t.Fatal(err)
	}
	r.step(30)
	if len(left) != 1 || left[0].Err != nil || ann.Err() != nil {
		t.Fatalf("ann's own leave: PeerLeft %+v, Err %v; want one, with no error", left, ann.Err())
	}
	if len(hostLeft) != 1 || hostLeft[0].Err != nil {
		t.Fatalf("the host heard ann leave as %+v; want one orderly leave", hostLeft)
	}
}

// TestSavedStateNeedsItsResource: a host saving a state whose resource the
// game's Setup never adds does not start: its saves would hold nothing of
// it, silently.
func TestSavedStateNeedsItsResource(t *testing.T) {
	type tally struct{ N int32 }
	g := ledgerGame()
	g.Saved = append(g.Saved, SaveState(Plain[tally]()))
	_, err := NewHost(g, HostConfig{SaveTo: savePath(t)})
	if err == nil || !strings.Contains(err.Error(), "tally") || !strings.Contains(err.Error(), "ecs.AddResource") {
		t.Fatalf("NewHost with a saved state Setup never adds: %v; want an error naming it and what to do", err)
	}
	// Without a store nothing is saved, and nothing is asked.
	h, err := NewHost(g, HostConfig{})
	if err != nil {
		t.Fatalf("NewHost without a store: %v", err)
	}
	h.Close()
}

// TestSendFromObservers: a client's observers, which run with its world
// locked, send commands (one when it is ready, then the next of a chain at
// each receipt), add an observer and read the command counts: nothing waits
// for itself, every command is answered in order, in as many steps as
// sent from outside; one sent inside Do or View leaves as it returns.
func TestSendFromObservers(t *testing.T) {
	r := newRig(t, HostConfig{})
	tc, err := r.net.Dial(context.Background(), "host")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(r.g, tc, ClientConfig[push]{Name: "ann", Clock: r.clk})
	if err != nil {
		t.Fatal(err)
	}
	r.clients = append(r.clients, c)
	var ops, answered []uint64
	var failed []error
	var pending []int
	send := func(n uint32) {
		op, err := Send(c, addCommand, n)
		if err != nil {
			failed = append(failed, err)
			return
		}
		ops = append(ops, op)
		pending = append(pending, c.PendingCommands())
	}
	late := 0
	c.OnEvent(func(e Event) {
		if e.Kind == PeerReady {
			send(1)
			c.OnReceipt(func(Receipt) { late++ })
		}
	})
	c.OnReceipt(func(rc Receipt) {
		if rc.Status != ReceiptDone {
			failed = append(failed, fmt.Errorf("receipt %v", rc))
		}
		answered = append(answered, rc.Op)
		if n := len(answered); n < 5 {
			send(uint32(n + 1))
		}
		_ = c.CommandStats()
	})
	for i := 0; c.State() != session.Playing; i++ {
		if i > 600 {
			t.Fatalf("ann never played: %v", c.Err())
		}
		r.step(1)
	}
	steps := 0
	for ; len(answered) < 5 && len(failed) == 0; steps++ {
		if steps > 20 {
			t.Fatalf("%d of 5 chained commands answered in 20 steps: those sent from observers wait", len(answered))
		}
		r.step(1)
	}
	if len(failed) > 0 || !slices.Equal(answered, ops) || !slices.Equal(pending, []int{1, 1, 1, 1, 1}) {
		t.Fatalf("sent %v (pending after each %v), answered %v, failures %v", ops, pending, answered, failed)
	}
	if st := c.CommandStats(); st.Sent != 5 || st.Receipts != 5 || c.PendingCommands() != 0 || late != 5 {
		t.Fatalf("counts %+v, %d pending, the observer added by an observer heard %d; want 5 sent and answered", st, c.PendingCommands(), late)
	}
	// Sent inside Do, it leaves as Do returns, before any step.
	c.Do(func(*World) { send(6) })
	if st := c.CommandStats(); st.Sent != 6 || len(failed) > 0 {
		t.Fatalf("a command sent inside Do: %d sent when Do returned (%v); want it gone", st.Sent, failed)
	}
	c.View(r.clk.Now(), func(*View) { send(7) })
	if st := c.CommandStats(); st.Sent != 7 || len(failed) > 0 {
		t.Fatalf("a command sent inside View: %d sent when View returned (%v); want it gone", st.Sent, failed)
	}
}

// TestSendOwnFromObservers: the host's own observers and callbacks, which
// run with its world locked, give its player's commands (when a player is
// ready, at each receipt the next of a chain, inside Do) and add an
// observer: nothing waits for itself, and every command runs once, in the
// order given, with its receipt.
func TestSendOwnFromObservers(t *testing.T) {
	r := newRig(t, HostConfig{})
	var ops, answered []uint64
	var failed []error
	give := func(n uint32) {
		op, err := SendOwn(r.host, addCommand, n)
		if err != nil {
			failed = append(failed, err)
			return
		}
		ops = append(ops, op)
	}
	late := 0
	r.host.OnEvent(func(e Event) {
		if e.Kind == PeerReady {
			give(1)
			r.host.OnReceipt(func(Receipt) { late++ })
		}
	})
	r.host.OnReceipt(func(rc Receipt) {
		if rc.Status != ReceiptDone {
			failed = append(failed, fmt.Errorf("receipt %v", rc))
		}
		answered = append(answered, rc.Op)
		if n := len(answered); n < 5 {
			give(uint32(n + 1))
		}
	})
	r.join("ann", ClientConfig[push]{})
	for i := 0; len(answered) < 5 && len(failed) == 0; i++ {
		if i > 20 {
			t.Fatalf("%d of 5 chained commands answered in 20 steps", len(answered))
		}
		r.step(1)
	}
	r.host.Do(func(*World) { give(6) })
	r.step(2)
	var sum uint64
	r.host.Do(func(w *World) { sum = ecs.Resource[ledger](w.ECS).Sum })
	if len(failed) > 0 || !slices.Equal(answered, ops) || len(ops) != 6 || !slices.IsSorted(ops) || late != 6 || sum != 1+2+3+4+5+6 {
		t.Fatalf("gave %v, answered %v (late observer %d), failures %v, sum %d; want six run once each, in order", ops, answered, late, failed, sum)
	}
	if err := r.host.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := SendOwn(r.host, addCommand, 7); !errors.Is(err, ErrClosed) {
		t.Fatalf("SendOwn after Close: %v, want ErrClosed", err)
	}
}

// TestClientEntityBound: a host whose world holds more networked entities
// than a client's MaxEntities ends that client's session with an error
// saying so, before it holds more than the bound.
func TestClientEntityBound(t *testing.T) {
	r := newRig(t, HostConfig{})
	r.host.Do(func(w *World) {
		for i := range 8 {
			spawnDisc(w, ecs.HostPeer, ecs.Transform{X: float64(i)}, false, 0, 0)
		}
	})
	c := r.dial("ann", ClientConfig[push]{MaxEntities: 4}, session.Playing)
	var held int
	c.Do(func(w *World) { held = w.ECS.Networked() })
	if c.State() != session.Closed || !errors.Is(c.Err(), replicate.ErrTooManyEntities) || held > 4 {
		t.Fatalf("a client of 4 entities joining a world of 8: %v, %v, holding %d; want closed with ErrTooManyEntities", c.State(), c.Err(), held)
	}
}

// TestSendOwnKeepsOrder: the own player's commands given from goroutines
// racing the loop (some through the mailbox, some at once) run in the order
// of their ids, each once.
func TestSendOwnKeepsOrder(t *testing.T) {
	r := newRig(t, HostConfig{MaxWithheld: 1 << 16})
	var answered []uint64
	r.host.OnReceipt(func(rc Receipt) { answered = append(answered, rc.Op) })
	const each, senders = 2000, 4
	var wg sync.WaitGroup
	errs := make(chan error, senders)
	for range senders {
		wg.Go(func() {
			for range each {
				if _, err := SendOwn(r.host, addCommand, 1); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for stepping := true; stepping; {
		select {
		case <-done:
			stepping = false
		default:
		}
		r.step(1)
	}
	r.step(2)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i := 1; i < len(answered); i++ {
		if answered[i] <= answered[i-1] {
			t.Fatalf("receipt %d is of op %d, after op %d: not in id order", i, answered[i], answered[i-1])
		}
	}
	if len(answered) != each*senders {
		t.Fatalf("%d receipts of %d commands", len(answered), each*senders)
	}
}

// TestSendOwnBoundsAndClose: the mailbox counts the own player's commands
// already queued against MaxWithheld; a command given and not run when the
// host closes is answered as refused, saying so.
func TestSendOwnBoundsAndClose(t *testing.T) {
	r := newRig(t, HostConfig{MaxWithheld: 4})
	var got []Receipt
	r.host.OnReceipt(func(rc Receipt) { got = append(got, rc) })
	for range 4 {
		if _, err := SendOwn(r.host, addCommand, 1); err != nil {
			t.Fatal(err)
		}
	}
	var inside error
	r.host.Do(func(*World) { _, inside = SendOwn(r.host, addCommand, 1) })
	if !errors.Is(inside, ErrTooManyCommands) {
		t.Fatalf("a fifth command through the mailbox with four queued: %v, want ErrTooManyCommands", inside)
	}
	r.step(3)
	if len(got) != 4 {
		t.Fatalf("%d receipts after three steps, want 4", len(got))
	}
	var op uint64
	r.host.Do(func(*World) { op, inside = SendOwn(r.host, addCommand, 1) })
	if inside != nil {
		t.Fatal(inside)
	}
	if err := r.host.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[4].Op != op || got[4].Status != ReceiptRefused || !strings.Contains(got[4].Reason, "closed") {
		t.Fatalf("receipts %v; want the one given before Close refused, saying the host closed", got)
	}
}

// stepUntilReleased steps until the host has released its idle world, at
// most 10 s.
func (r *rig) stepUntilReleased() {
	r.t.Helper()
	for i := 0; r.host.SaveStats().Unloads == 0; i++ {
		if i > 10*60 {
			r.t.Fatalf("an idle world is still loaded after 10 s: %+v", r.host.SaveStats())
		}
		r.step(1)
	}
}

// A world released while idle is dropped from memory with a roster too
// (the roster held it).
func TestIdleUnloadWithARosterDropsTheWorld(t *testing.T) {
	g := ledgerProps(0) // the roster's entities have no body
	g.Roster = true
	r := newRigOf(t, g, HostConfig{SaveTo: savePath(t), IdleUnload: 2 * time.Second})
	var world weak.Pointer[ecs.World]
	r.host.Do(func(w *World) { world = weak.Make(w.ECS) })
	for i := 0; r.host.SaveStats().Unloads == 0; i++ {
		if i > 10*60 {
			t.Fatalf("an idle world is still loaded after 10 s: %+v", r.host.SaveStats())
		}
		r.step(1)
	}
	runtime.GC()
	runtime.GC()
	if world.Value() != nil {
		t.Fatal("the released world is still in memory")
	}
	ann := r.join("ann", ClientConfig[push]{}) // loaded again, its roster with it
	r.step(30)
	if ann.State() != session.Playing {
		t.Fatalf("a player joining the released world: %v (%v)", ann.State(), ann.Err())
	}
}
