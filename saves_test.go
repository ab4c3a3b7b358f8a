package tandem

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"go.etcd.io/bbolt"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/save"
	"github.com/tandem-go/tandem/store"
	"github.com/tandem-go/tandem/store/storetest"
)

// TestSaveRestoreSaveFacade: a host that played (players, commands, bodies
// moving) closes with its final save; a host started on the save has every
// component bit for bit, the frame, the id counter, the state, the players
// and their receipts; and saving it again in full gives byte-identical
// records.
func TestSaveRestoreSaveFacade(t *testing.T) { forEachStore(t, testSaveRestoreSaveFacade) }

func testSaveRestoreSaveFacade(t *testing.T, s saveStore) {
	r := newRig(t, HostConfig{SaveTo: s.target(t)})
	ann := r.join("ann", ClientConfig[push]{})
	bob := r.dialRaw("bob")
	ann.SetInput(push{X: 1})
	for i := range 5 {
		if _, err := Send(ann, addCommand, uint32(i+1)); err != nil {
			t.Fatal(err)
		}
		bob.send(t, uint64(100+i), 0, u32(7))
		r.step(20)
	}
	if _, err := Send(ann, tokenCommand, struct{}{}); err != nil {
		t.Fatal(err)
	}
	r.step(60)
	if n := ann.PendingCommands(); n != 0 {
		t.Fatalf("%d of ann's commands have no receipt", n)
	}
	before := snapshot(r.host)
	if !strings.Contains(before, "ledger {Count:10 Sum:50") {
		t.Fatalf("the commands did not all run:\n%s", before)
	}
	r.restart()
	rep := r.host.Restored()
	if rep.Seq == 0 || rep.Players != 2 || rep.Receipts != 11 || rep.Entities != 9 || len(rep.Missing) != 0 {
		t.Fatalf("restored %+v, want 9 entities, 2 players, 11 receipts, no component missing", rep)
	}
	if after := snapshot(r.host); after != before {
		t.Fatalf("the restored world differs:\nbefore\n%s\nafter\n%s", before, after)
	}
	saved := records(t, r.host)
	r.host.Do(func(*World) { r.host.saves.tracker.MarkAll() })
	if err := r.host.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	again := records(t, r.host)
	// The head names one run more, the restored world's own, after the
	// saved world's (one run: its world was never restored).
	var runs []ecs.RunStart
	r.host.Do(func(w *World) { runs = w.ECS.Lineage(nil) })
	head := saved["\x01"]
	lw := wire.NewWriter([]byte(head[:len(head)-13]))
	lw.U8(uint8(len(runs)))
	for _, run := range runs {
		lw.U64(run.Run)
		lw.U32(uint32(run.Fresh))
	}
	if len(runs) != 2 || again["\x01"] != string(lw.Bytes()) {
		t.Fatalf("the head saved again is % x, want % x: the saved head with the restored world's run after the saved one", again["\x01"], lw.Bytes())
	}
	saved["\x01"] = again["\x01"]
	if len(again) != len(saved) {
		t.Fatalf("saved again in full: %d records, %d before", len(again), len(saved))
	}
	for k, v := range saved {
		if again[k] != v {
			t.Fatalf("record %x differs after save → restore → save:\n% x\n% x", k, v, again[k])
		}
	}
	if s := r.host.Stats(); s.Away != 2 {
		t.Fatalf("the restored players: %+v, want both away until they come back", s)
	}
}

// TestRestoresAreDeterministic: two restores of one save, stepped 600
// frames with the same inputs, are identical.
func TestRestoresAreDeterministic(t *testing.T) { forEachStore(t, testRestoresAreDeterministic) }

func testRestoresAreDeterministic(t *testing.T, s saveStore) {
	path := s.target(t)
	r := newRig(t, HostConfig{SaveTo: path})
	r.join("ann", ClientConfig[push]{})
	r.host.SetInput(push{X: 1})
	r.step(90)
	if err := r.host.Close(); err != nil {
		t.Fatal(err)
	}
	run := func() string {
		copyPath := s.target(t)
		copyWorld(t, path, copyPath)
		h, err := NewHost(ledgerGame(), HostConfig{Clock: r.clk, SaveTo: copyPath})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		for i := range 600 {
			h.SetInput(push{X: int8(i/50%3 - 1)})
			h.Step()
		}
		return snapshot(h)
	}
	a := run()
	b := run()
	if a != b {
		t.Fatalf("two restores of one save differ after 600 frames:\n%s\n----\n%s", a, b)
	}
}

// TestReceipts: a command sent again gets its receipt again, byte for byte,
// and runs once; other content under a kept id is a conflict and changes
// nothing; of 65 distinct commands 64 receipts are kept and the oldest id is
// then expired; a command the game refuses gets a receipt too.
func TestReceipts(t *testing.T) { forEachStore(t, testReceipts) }

func testReceipts(t *testing.T, s saveStore) {
	r := newRig(t, HostConfig{SaveTo: s.target(t)})
	p := r.dialRaw("bob")
	p.send(t, 1, 0, u32(5))
	r.step(10)
	p.send(t, 1, 0, u32(5)) // the receipt was "lost": sent again
	r.step(10)
	p.send(t, 1, 0, u32(9)) // the same id, other content
	r.step(10)
	p.send(t, 2, 0, u32(0)) // refused by the game: nothing to add
	r.step(10)
	rs := p.receipts(t)
	if len(rs) != 4 || !bytes.Equal(p.got[0], p.got[1]) || rs[0].Status != wire.ReceiptDone {
		t.Fatalf("receipts %+v; want the first twice, byte for byte", rs)
	}
	if rs[2].Status != wire.ReceiptConflict || rs[2].Op != 1 || rs[3].Status != wire.ReceiptRefused || rs[3].Reason != "nothing to add" {
		t.Fatalf("conflict and refusal: %+v", rs[2:])
	}
	if s := snapshot(r.host); !strings.Contains(s, "ledger {Count:1 Sum:5 ") {
		t.Fatalf("the handler ran other than once for op 1:\n%s", s)
	}
	if st := r.host.Stats(); st.Commands != 2 || st.Again != 1 || st.Conflicts != 1 {
		t.Fatalf("host counts %+v", st)
	}
	// 63 more distinct ones: 65 in all, the oldest (1) let go.
	p.got = nil
	for op := uint64(3); op <= 65; op++ {
		p.send(t, op, 0, u32(1))
		r.step(2)
	}
	r.step(10)
	p.send(t, 1, 0, u32(5))
	p.send(t, 2, 0, u32(0)) // still kept: its refusal again
	r.step(10)
	rs = p.receipts(t)
	if len(rs) != 65 {
		t.Fatalf("%d receipts for 63 commands and 2 retries", len(rs))
	}
	if last := rs[63]; last.Op != 1 || last.Status != wire.ReceiptExpired {
		t.Fatalf("op 1 after 65 distinct ops: %+v, want expired", last)
	}
	if last := rs[64]; last.Op != 2 || last.Status != wire.ReceiptRefused {
		t.Fatalf("op 2 after 65 distinct ops: %+v, want its refusal again", last)
	}
	if s := snapshot(r.host); !strings.Contains(s, "ledger {Count:64 Sum:68 ") {
		t.Fatalf("an expired op ran again:\n%s", s)
	}
	// The receipts outlive the host.
	r.restart()
	p = r.dialRaw("carl") // a new player: peer 2 (bob, away, keeps 1)
	if p.cl.Peer() == 1 {
		t.Fatal("a new player got the peer id of a known player away")
	}
	book := r.host.people.players[1].book
	if book.Len() != 64 || book.Floor() != 1 {
		t.Fatalf("bob's restored book: %d kept, floor %d", book.Len(), book.Floor())
	}
}

// TestSendRefusesWhatItsCodecRefuses: a command whose own codec's Read
// refuses it (a value the game does not take) is refused by Send, SendOwn
// and Give with Read's error, and nothing is sent: the host would count it
// malformed against the client's connection.
func TestSendRefusesWhatItsCodecRefuses(t *testing.T) {
	r := newRig(t, HostConfig{})
	ann := r.join("ann", ClientConfig[push]{})
	if _, err := Send(ann, addCommand, maxAdd+1); !errors.Is(err, errAddTooMuch) {
		t.Fatalf("Send of a value the codec refuses: %v, want errAddTooMuch", err)
	}
	if n := ann.PendingCommands(); n != 0 {
		t.Fatalf("%d commands pending after a refused Send", n)
	}
	if _, err := SendOwn(r.host, addCommand, maxAdd+1); !errors.Is(err, errAddTooMuch) {
		t.Fatalf("SendOwn: %v, want errAddTooMuch", err)
	}
	if _, err := Give(ann, addCommand, maxAdd+1); !errors.Is(err, errAddTooMuch) {
		t.Fatalf("Give: %v, want errAddTooMuch", err)
	}
	if _, err := Send(ann, addCommand, maxAdd); err != nil {
		t.Fatalf("Send of the most the codec takes: %v", err)
	}
	r.step(10)
	if st := r.host.Stats(); st.Malformed != 0 {
		t.Fatalf("the host counted %d malformed messages", st.Malformed)
	}
}

// TestRestoreRefusesBadSaves: a corrupt record and a save of another game
// are typed errors, and no host starts on an empty world in their place.
func TestRestoreRefusesBadSaves(t *testing.T) { forEachStore(t, testRestoreRefusesBadSaves) }

func testRestoreRefusesBadSaves(t *testing.T, s saveStore) {
	path := s.target(t)
	r := newRig(t, HostConfig{SaveTo: path})
	r.join("ann", ClientConfig[push]{})
	if err := r.host.Close(); err != nil {
		t.Fatal(err)
	}
	other := ledgerGame()
	other.Saved = nil // a game without the memo and ledger
	_, err := NewHost(other, HostConfig{Clock: r.clk, SaveTo: path})
	if !errors.Is(err, save.ErrMismatch) {
		t.Fatalf("a save of another game: %v, want save.ErrMismatch", err)
	}
	s.corrupt(t, path)
	_, err = NewHost(ledgerGame(), HostConfig{Clock: r.clk, SaveTo: path})
	if !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("a corrupt save: %v, want store.ErrCorrupt", err)
	}
}

// corrupt flips a bit of an entity record of the world in the bbolt file at
// path, under its checksum.
func corrupt(t *testing.T, path string) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bbolt.Tx) error {
		rb := tx.Bucket([]byte("worlds")).Bucket([]byte("world")).Bucket([]byte("r"))
		k, v := rb.Cursor().Seek([]byte{0x03})
		if k == nil || k[0] != 0x03 {
			return errors.New("no entity record")
		}
		v = append([]byte(nil), v...)
		v[len(v)-1] ^= 1
		return rb.Put(append([]byte(nil), k...), v)
	}); err != nil {
		t.Fatal(err)
	}
}

// TestSavesInPostgres: the same host saves to and restores from PostgreSQL
// (SaveTo a postgres:// URL): commands, their receipts, the world.
func TestSavesInPostgres(t *testing.T) {
	r := newRig(t, HostConfig{SaveTo: storetest.PostgresURL(t)})
	p := r.dialRaw("bob")
	for op := uint64(1); op <= 3; op++ {
		p.send(t, op, 0, u32(uint32(op)))
		r.step(5)
	}
	if rs := p.receipts(t); len(rs) != 3 || rs[2].Status != wire.ReceiptDone {
		t.Fatalf("receipts %+v", rs)
	}
	before := snapshot(r.host)
	r.restart()
	if after := snapshot(r.host); after != before {
		t.Fatalf("restored from PostgreSQL:\n%s\nsaved:\n%s", after, before)
	}
	if rep := r.host.Restored(); rep.Players != 1 || rep.Receipts != 3 {
		t.Fatalf("restored %v", rep)
	}
}

// TestRestoreReportSaysWhatTheSaveLacks: a host's restore line names the
// components the save was written without, and where the game gives them.
func TestRestoreReportSaysWhatTheSaveLacks(t *testing.T) {
	r := RestoreReport{Seq: 3, Frame: 61, Entities: 35, Missing: []string{"stamina"}}
	if s := r.String(); !strings.Contains(s, "restored save 3: frame 61, 35 entities, 0 players, 0 receipts") || !strings.Contains(s, "none of stamina") || !strings.Contains(s, "Game.Restored") {
		t.Fatalf("the restore line %q does not name the missing component and where to give it", s)
	}
	r.Missing = nil
	if s := r.String(); strings.Contains(s, "none of") {
		t.Fatalf("the restore line %q names missing components when none is", s)
	}
	r.Entities, r.Players, r.Receipts = 1, 1, 1
	if s := r.String(); !strings.Contains(s, "1 entity, 1 player, 1 receipt,") {
		t.Fatalf("the restore line %q does not count one of each in the singular", s)
	}
}

// TestRetiredSavesRestoreWithout: a version of the ledger game that dropped
// its memo component and its ledger state restores the saves of the one
// before once it lists them as Retired (the restore names them, the discs
// come back with the rest of their state), is refused without, saying
// what to do, and its own saves hold neither.
func TestRetiredSavesRestoreWithout(t *testing.T) {
	path := savePath(t)
	r := newRig(t, HostConfig{SaveTo: path})
	ann := r.join("ann", ClientConfig[push]{})
	if _, err := Send(ann, addCommand, uint32(3)); err != nil {
		t.Fatal(err)
	}
	r.step(30)
	var before int
	r.host.Do(func(w *World) { before = w.ECS.Networked() })
	if err := r.host.CloseForRestart(); err != nil {
		t.Fatal(err)
	}
	memoName, ledgerName := Plain[memo]().Name, Plain[ledger]().Name
	v2 := func(saved ...Saved) *Game[push] {
		g := ledgerGame()
		g.Saved = saved
		g.Join = nil // its discs would hold the memo it no longer saves
		return g
	}
	cfg := HostConfig{SaveTo: path, Clock: clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))}
	if h, err := NewHost(v2(), cfg); err == nil || !errors.Is(err, save.ErrMismatch) || !strings.Contains(err.Error(), "tandem.Retired") {
		if h != nil {
			h.Close()
		}
		t.Fatalf("a host without the retirement: %v; want save.ErrMismatch saying to retire it", err)
	}
	h, err := NewHost(v2(Retired(memoName), Retired(ledgerName)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep := h.Restored()
	if rep.Entities != before || !slices.Contains(rep.Retired, memoName) || !slices.Contains(rep.Retired, ledgerName) || !strings.Contains(rep.String(), "retired") {
		t.Fatalf("restored %+v (%s); want %d entities, memo and ledger left out", rep, rep, before)
	}
	if err := h.Save(context.Background()); err != nil {
		t.Fatalf("the first save without them: %v", err)
	}
	if err := h.CloseForRestart(); err != nil {
		t.Fatal(err)
	}
	h, err = NewHost(v2(), cfg)
	if err != nil {
		t.Fatalf("restoring the save written since, retiring nothing: %v", err)
	}
	defer h.Close()
	if rep := h.Restored(); rep.Entities != before || len(rep.Retired) != 0 {
		t.Fatalf("restored %+v; want %d entities and nothing left out", rep, before)
	}
}

// TestRetiredNameMustBeGone: a name the game saves or replicates cannot be
// retired too.
func TestRetiredNameMustBeGone(t *testing.T) {
	for _, name := range []string{Plain[memo]().Name, replicate.TransformCodec().Name, "tandem.Input"} {
		g := ledgerGame()
		g.Saved = append(g.Saved, Retired(name))
		if err := g.checkSaved(); err == nil || !strings.Contains(err.Error(), "retire only") {
			t.Errorf("retiring %s, which the game saves: %v", name, err)
		}
	}
}

// TestALargeWorldsFirstSaveIsSpread: the first save of a new world of
// 20,000 entities is written a slice a step (4,096 entities), not in one
// step, and holds the whole world.
func TestALargeWorldsFirstSaveIsSpread(t *testing.T) {
	r := newRigOf(t, ledgerProps(20_000), HostConfig{SaveTo: savePath(t)})
	var world int
	r.host.Do(func(w *World) { world = w.ECS.Networked() })
	for i := 0; r.host.SaveStats().Commits == 0; i++ {
		if i > 100 {
			t.Fatalf("no save after %d steps: %+v", i, r.host.SaveStats())
		}
		r.step(1)
	}
	st := r.host.SaveStats()
	// The discs move (physics): written again by the step that ends the
	// save, each at most once a slice.
	if want := uint64((world - saveSliceFrom + saveSlice - 1) / saveSlice); st.Slices != want || st.Entities < uint64(world) || st.Entities > uint64(world+6*int(want+1)) {
		t.Fatalf("the first save: %+v; want %d slices ahead of it and each of %d entities written about once", st, want, world)
	}
	// The saves after it hold what changed, at once.
	for i := 0; r.host.SaveStats().Commits < 3; i++ {
		if i > 100 {
			t.Fatalf("no third save in %d steps: %+v", 30*i, r.host.SaveStats())
		}
		r.step(30)
	}
	if n := r.host.SaveStats().Slices; n != st.Slices {
		t.Fatalf("the saves after the first took %d slices", n-st.Slices)
	}
	r.restart()
	if rep := r.host.Restored(); rep.Entities != world {
		t.Fatalf("restored %d entities, the world held %d", rep.Entities, world)
	}
}

// TestRestoreReportsValuesItsCodecsCannotCarry: a restored value beyond its
// codec's range (a velocity past replicate.MaxSpeed, as a version that
// narrowed a range restores) is counted and named in the restore report,
// and the audit of the host in play counts it too.
func TestRestoreReportsValuesItsCodecsCannotCarry(t *testing.T) {
	r := newRigOf(t, ledgerProps(0), HostConfig{SaveTo: savePath(t)}) // the stray below has no body
	r.host.Do(func(w *World) {
		m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.ECS.Arche())
		m.NewWith(&ecs.Transform{}, &ecs.Velocity{X: 2 * replicate.MaxSpeed}, &ecs.NetworkIdentity{})
	})
	r.step(2)
	r.restart()
	rep := r.host.Restored()
	if rep.Lossy != 1 || !strings.Contains(rep.LossyFirst, "Velocity") || !strings.Contains(rep.String(), "do not survive their codec") {
		t.Fatalf("restored %+v (%s); want the one velocity past MaxSpeed counted and named", rep, rep)
	}
	for i := 0; r.host.Stats().Lossy == 0; i++ {
		if i > 600 {
			t.Fatal("the host's audit did not find the velocity in 600 steps")
		}
		r.step(1)
	}
}

// ledgerProps is the ledger game with props static networked entities more
// in a new world (without bodies).
func ledgerProps(props int) *Game[push] {
	g := withProps(ledgerGame(), props, 10)
	arrived := g.Arrived
	g.Arrived = func(w *World, e arche.Entity) {
		if a := w.ECS.Arche(); a.Has(e, arche.ComponentID[tally](a)) {
			arrived(w, e) // a disc; the props have no body
		}
	}
	return g
}

// TestARefusedFirstSaveIsSpreadAgain: a new world's first save refused at
// its last step (an entity the save cannot hold, among those left to it)
// is taken a slice a step again once the game fixed the entity, not in
// one step.
func TestARefusedFirstSaveIsSpreadAgain(t *testing.T) {
	type stray struct{ N int }
	r := newRigOf(t, ledgerProps(20_000), HostConfig{SaveTo: savePath(t)})
	var last arche.Entity
	r.host.Do(func(w *World) {
		for slot := range int32(w.ECS.NetSlots()) {
			if e, _, ok := w.ECS.SlotEntity(slot); ok {
				last = e // the last the slices come to: left to the step that ends the save
			}
		}
		w.ECS.Arche().Add(last, arche.ComponentID[stray](w.ECS.Arche()))
	})
	for i := 0; r.host.SaveStats().Unsaved == 0; i++ {
		if i > 100 {
			t.Fatalf("no refusal after %d steps: %+v", i, r.host.SaveStats())
		}
		r.step(1)
	}
	refused := r.host.SaveStats().Slices
	r.host.Do(func(w *World) { w.ECS.Arche().Remove(last, arche.ComponentID[stray](w.ECS.Arche())) })
	for i := 0; r.host.SaveStats().Commits == 0; i++ {
		if i > 600 {
			t.Fatalf("no save after %d steps: %+v", i, r.host.SaveStats())
		}
		r.step(1)
	}
	if st := r.host.SaveStats(); refused < 3 || st.Slices-refused < 3 {
		t.Fatalf("%d slices before the refusal, %d after: want the save spread both times", refused, st.Slices-refused)
	}
}
