package tandem

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync/atomic"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/command"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/physics"
	"github.com/tandem-go/tandem/save"
	"github.com/tandem-go/tandem/store"
)

// hostSaves is a host's link to its store: the committer (one goroutine,
// for the life of the host), and for the world loaded now its schema, its
// tracker and the batch the next save fills.
type hostSaves struct {
	st        store.World
	db        store.DB // opened by the host (SaveTo): closed with it
	committer *save.Committer
	every     time.Duration
	timeout   time.Duration
	onError   func(error)
	onSave    func(SavedReport)

	schema  *save.Schema
	tracker *save.Tracker
	batch   store.Batch

	next      uint64      // the generation the next save gets
	durable   uint64      // the newest generation known durable
	want      bool        // answers wait for the next save
	soon      atomic.Bool // SaveSoon asked for a save
	retry     bool        // a save failed: the next is due once retryAt passed
	last      time.Time
	lastFrame ecs.Frame   // the frame of the newest save handed over
	inFlight  SavedReport // what the save handed over holds, but its Seq
	retryAt   time.Time
	backoff   time.Duration
	checked   time.Time // when the lease was last checked between saves
	// slices counts the steps whose slice of the next save Prefill took
	// (saveStep): at most maxSaveSlices, then the rest is filled at once.
	slices   int
	stats    SaveStats
	restored RestoreReport
}

// SaveStats are the figures of a host's saves.
type SaveStats struct {
	// Commits counts the saves that landed, Failures those that did not
	// (each retried), Unsaved the saves refused before the store because an
	// entity held a component nothing saves (save.UnsavedError).
	Commits, Failures, Unsaved uint64
	// LastErr is the error of the newest save that failed, nil once one
	// landed since.
	LastErr error
	// Last and Max are the commit times of the newest save and the slowest,
	// from the hand-over to the store's answer.
	Last, Max time.Duration
	// Entities counts the entity records written, Bytes the bytes handed to
	// the store, over every save.
	Entities, Bytes uint64
	// Slices counts the steps that wrote a slice of a save of many
	// entities ahead of it (4,096 entities a step, when more than 8,192
	// wait: a new world's first save, the first after the game's saved
	// components changed), so that no step writes the whole world.
	Slices uint64
	// Unloads and Reloads count the times the world was released while
	// idle and loaded again.
	Unloads, Reloads int
	// ReloadFailures counts the times a released world failed to load again
	// because its store could not be read just then (a network, a disk, a
	// timeout: ReloadErr says which). The host keeps the connections that
	// wait for the world and tries again after a pause that grows from
	// 100 ms to 5 s; it hears of each failure through
	// HostConfig.OnSaveError. A save that does not fit the game, corrupt
	// data or a store another host took stop the host instead (Host.Err).
	ReloadFailures int
	// ReloadErr is the newest failure to load the world again, nil once it
	// loaded.
	ReloadErr error
}

// SavedReport says what one save that landed holds (HostConfig.OnSave).
type SavedReport struct {
	// Seq is the store's sequence number of the save.
	Seq uint64
	// Frame is the frame the world was saved at.
	Frame ecs.Frame
	// Players counts the players the save knows (playing or away).
	Players int
	// Took is the commit's time, from the hand-over to the store's answer.
	Took time.Duration
}

// RestoreReport says what a host restored, for its log.
type RestoreReport struct {
	// Seq is the store's sequence number of the save; 0 when there was
	// none and the world is as Game.Setup built it.
	Seq uint64
	// Frame is the saved frame the world goes on from.
	Frame ecs.Frame
	// Entities, Players and Receipts count what came back.
	Entities, Players, Receipts int
	// Missing names the components this game saves that the save does not
	// hold: it was written before the game saved them (one it added since),
	// so no restored entity has them. Give them in Game.Restored to the
	// entities that need them; a system that expects them finds nothing.
	Missing []string
	// Retired names the components and states the save held that the game
	// retired (Retired): the restore left them out.
	Retired []string
	// Lossy counts the restored values of replicated components that do
	// not survive their codec, LossyFirst names the first: a value beyond
	// the codec's range (a version of the game that narrowed it restores
	// values saved before) arrives clamped, so the clients hold another
	// value than the host's. Only codecs with Equal, or of whole numbers,
	// are checked.
	Lossy      int
	LossyFirst string
	// Took is how long the restore took.
	Took time.Duration
}

// String says what was restored in one line, for a host's log: the save's
// sequence number, frame and counts and the time taken, or that there was
// no save and the world is new.
func (r RestoreReport) String() string {
	if r.Seq == 0 {
		return "no save to restore: a new world"
	}
	s := fmt.Sprintf("restored save %d: frame %d, %s, %s, %s, in %v",
		r.Seq, r.Frame, counted(r.Entities, "entity", "entities"), counted(r.Players, "player", "players"),
		counted(r.Receipts, "receipt", "receipts"), r.Took.Round(time.Millisecond))
	if len(r.Missing) > 0 {
		s += fmt.Sprintf("; the save holds none of %s (saved before this game had them: Game.Restored gives them)", strings.Join(r.Missing, ", "))
	}
	if len(r.Retired) > 0 {
		s += fmt.Sprintf("; left out %s (retired)", strings.Join(r.Retired, ", "))
	}
	if r.Lossy > 0 {
		s += fmt.Sprintf("; %d values do not survive their codec, the clients get them otherwise (the first: %s)", r.Lossy, r.LossyFirst)
	}
	return s
}

// counted says n of something: "1 player", "3 players".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// openSaves opens what cfg says to save to and starts its committer.
func openSaves(cfg HostConfig) (*hostSaves, error) {
	s := &hostSaves{st: cfg.Store, every: cfg.SaveEvery, timeout: cfg.SaveTimeout, onError: cfg.OnSaveError, onSave: cfg.OnSave, next: 1}
	if s.st == nil {
		ctx, cancel := context.WithTimeout(context.Background(), cfg.SaveTimeout)
		defer cancel()
		db, err := store.Open(ctx, cfg.SaveTo, store.Options{})
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("tandem: open the save %s: %w; make its directory first (OpenSave makes it)", store.Describe(cfg.SaveTo), err)
			}
			return nil, fmt.Errorf("tandem: open the save %s: %w", store.Describe(cfg.SaveTo), err)
		}
		w, err := db.OpenWorld(ctx, cfg.World)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("tandem: open world %q of the save %s: %w", cfg.World, store.Describe(cfg.SaveTo), err)
		}
		s.db, s.st = db, w
	}
	s.committer = save.NewCommitter(s.st, cfg.SaveTimeout)
	return s, nil
}

// close stops the committer and closes what the host opened.
func (s *hostSaves) close() error {
	s.committer.Close()
	if s.db != nil {
		err := s.db.Close()
		s.db = nil
		return err
	}
	return nil
}

// build gives a new world's schema its tracker.
func (s *hostSaves) build(schema *save.Schema) {
	s.schema = schema
	s.tracker = save.NewTracker(schema)
}

// saveSchema is what a host of g saves of world w: every replicated
// component by its exact codec, the engine's Input (its Bot flag: the value
// is each frame's), Interpolated (rebuilt from the pose) and ecs.HostMoved
// (the host sends the owner of what it marks states, not corrections), the
// Game's Saved, nothing of the physics body, which is rebuilt, nothing of
// the roster's entities, and nothing of a client's marks (ecs.Predicted,
// ecs.Departing) a game's Arrived put on the host's entities.
func (g *Game[I]) saveSchema(w *World) *save.Schema {
	s := save.NewSchema(w.ECS)
	for _, c := range g.Components {
		c.save(s)
	}
	save.Component(s, save.Codec[Input[I]]{
		Name:   inputSaveName,
		Layout: "{Bot bool}",
		Append: func(dst []byte, v *Input[I]) []byte {
			if v.Bot {
				return append(dst, 1)
			}
			return append(dst, 0)
		},
		Read: func(r *wire.Reader, v *Input[I]) { v.Bot = r.Bool() },
	})
	save.Component(s, save.Codec[ecs.Interpolated]{
		Name:   interpolatedSaveName,
		Layout: "{}",
		Append: func(dst []byte, _ *ecs.Interpolated) []byte { return dst },
		Read:   func(*wire.Reader, *ecs.Interpolated) {},
	})
	save.Component(s, save.Codec[ecs.HostMoved]{
		Name:   hostMovedSaveName,
		Layout: "{}",
		Append: func(dst []byte, _ *ecs.HostMoved) []byte { return dst },
		Read:   func(*wire.Reader, *ecs.HostMoved) {},
	})
	for _, sv := range g.Saved {
		sv.add(s)
	}
	if w.Physics != nil {
		save.Skip[physics.Body](s)
	}
	if g.Roster {
		// Who is connected is the session's: the roster is made again as
		// players come back.
		save.Exclude[memberInfo](s)
	}
	// Made again from the restored Input (driven.go).
	save.Skip[drivenMark](s)
	// A client's marks: a game that adds one in Game.Arrived adds it on
	// the host too when Arrived stands in for a nil Game.Restored, and does
	// again after the next restore.
	save.Skip[ecs.Predicted](s)
	save.Skip[ecs.Departing](s)
	return s
}

// hasSave reports whether st holds a save: its head record is the first in
// key order, so this reads one record.
func hasSave(ctx context.Context, st store.World) (bool, error) {
	errFound := errors.New("found")
	_, err := st.Load(ctx, func(key, value []byte) error { return errFound })
	if errors.Is(err, errFound) {
		return true, nil
	}
	return false, err
}

// storeReadError is a failure to read the store that may pass: the network
// to it, its disk, a timeout. A released world that fails to load on one is
// tried again; anything else stops the host.
type storeReadError struct{ err error }

func (e storeReadError) Error() string { return e.err.Error() }
func (e storeReadError) Unwrap() error { return e.err }

// readFailure marks err, a store's read failing, as one that may pass,
// unless it says the save itself is wrong (it does not fit the game, its
// bytes or layout are damaged) or the store is no longer this host's (taken
// by another, closed, in use): those stay so however often it is read.
func readFailure(err error) error {
	for _, lasting := range []error{save.ErrMismatch, save.ErrUnsaved, store.ErrCorrupt, store.ErrFormat, store.ErrFenced, store.ErrInvalid, store.ErrClosed, store.ErrLocked} {
		if errors.Is(err, lasting) {
			return err
		}
	}
	return storeReadError{err}
}

// load builds the world and, with a store, restores the newest save into
// it; then tracking starts.
func (h *Host[I]) load() error {
	start := time.Now()
	restoring := false
	if h.saves != nil {
		ctx, cancel := context.WithTimeout(context.Background(), h.cfg.SaveTimeout)
		found, err := hasSave(ctx, h.saves.st)
		cancel()
		if err != nil {
			return fmt.Errorf("tandem: read the save: %w", readFailure(err))
		}
		restoring = found
	}
	if err := h.build(restoring); err != nil {
		return err
	}
	if h.saves == nil {
		return nil
	}
	if !restoring {
		// A new world: the first step saves all of it.
		h.saves.tracker.Start()
		h.saves.want = true
		h.saves.last = h.clk.Now()
		h.saves.restored = RestoreReport{Took: time.Since(start)}
		h.tellRestore(h.saves.restored)
		return nil
	}
	rp := restoredPeople{players: map[ecs.PeerID]*player{}, floors: map[ecs.PeerID]uint64{}, receipts: map[ecs.PeerID][]command.Entry{}}
	restored := h.g.Restored
	if restored == nil {
		restored = h.g.Arrived
	}
	w := h.w
	a := w.ECS.Arche()
	var entities []arche.Entity
	ctx, cancel := context.WithTimeout(context.Background(), h.cfg.SaveTimeout)
	res, err := h.saves.tracker.Load(ctx, h.saves.st, rp.record, func(e arche.Entity) { entities = append(entities, e) })
	cancel()
	if err != nil {
		return fmt.Errorf("tandem: restore the save: %w", readFailure(err))
	}
	if err := h.adopt(&rp); err != nil {
		return fmt.Errorf("tandem: restore the save: %w", err)
	}
	// The restored HostMoved marks are taken off while the hooks run, which
	// may add them (Arrived, as the README shows, or a Restored that did
	// before the marks were saved: arche panics on a component added
	// twice), and put back after on those the hooks left unmarked.
	var marked []arche.Entity
	for _, e := range entities {
		if a.Has(e, w.ECS.IDs.HostMoved) {
			marked = append(marked, e)
			a.Remove(e, w.ECS.IDs.HostMoved)
		}
	}
	for _, e := range entities {
		if a.Has(e, w.ECS.IDs.Interpolated) && a.Has(e, w.ECS.IDs.Transform) {
			ip := (*ecs.Interpolated)(a.Get(e, w.ECS.IDs.Interpolated))
			ip.Prev = *(*ecs.Transform)(a.Get(e, w.ECS.IDs.Transform))
		}
		if restored != nil {
			restored(w, e)
		}
	}
	for _, e := range marked {
		if a.Alive(e) && !a.Has(e, w.ECS.IDs.HostMoved) {
			a.Add(e, w.ECS.IDs.HostMoved)
		}
	}
	h.saves.tracker.Start()
	h.saves.lastFrame = res.Frame
	h.saves.last = h.clk.Now()
	rep := RestoreReport{Seq: res.Seq, Frame: res.Frame, Entities: res.Entities, Players: len(rp.players), Missing: res.Missing, Retired: res.Retired}
	if n, first := h.reg.CheckCodecs(); n > 0 {
		rep.Lossy, rep.LossyFirst = n, first.Error()
	}
	rep.Took = time.Since(start)
	if _, ok := rp.players[ecs.HostPeer]; ok {
		rep.Players-- // the host's own: not one of the players
	}
	for _, r := range rp.receipts {
		rep.Receipts += len(r)
	}
	h.saves.restored = rep
	h.tellRestore(rep)
	return nil
}

// tellRestore passes a restore's report to HostConfig.OnRestore.
func (h *Host[I]) tellRestore(rep RestoreReport) {
	if h.cfg.OnRestore != nil {
		h.mu.enter() // the game's code: a Save there cannot run
		defer h.mu.exit()
		h.cfg.OnRestore(rep)
	}
}

// tellSaveError passes a save's (or a reload's) failure to
// HostConfig.OnSaveError.
func (h *Host[I]) tellSaveError(err error) {
	if h.saves.onError != nil {
		h.mu.enter()
		defer h.mu.exit()
		h.saves.onError(err)
	}
}

// pollSave takes the outcome of the save under way, if it is in: at the
// start of a step, so the receipts it frees leave with the step's sends.
func (h *Host[I]) pollSave() {
	if r, ok := h.saves.committer.Poll(); ok {
		h.saved(r)
	}
}

// saved takes one save's outcome: a durable save frees the receipts it
// held; a fenced store stops the host; any other failure queues what the
// save held for the next one, which is tried after a growing pause.
func (h *Host[I]) saved(r save.Result) {
	s := h.saves
	if r.Check {
		// A check of the lease between saves: only a taken one matters
		// (any other failure, the next save meets and reports).
		if errors.Is(r.Err, store.ErrFenced) {
			h.life.fail(fmt.Errorf("tandem: the world was taken over by another host, and this one stopped: %w", r.Err))
		}
		return
	}
	s.stats.Last = r.Took
	s.stats.Max = max(s.stats.Max, r.Took)
	if r.Err == nil {
		s.durable = max(s.durable, r.Gen)
		s.tracker.Committed()
		s.stats.Commits++
		s.stats.LastErr = nil
		s.backoff = 0
		if s.onSave != nil {
			rep := s.inFlight
			rep.Seq, rep.Took = r.Seq, r.Took
			h.mu.call(func() { s.onSave(rep) })
		}
		h.releaseReceipts(s.durable)
		return
	}
	s.tracker.Failed()
	if errors.Is(r.Err, store.ErrFenced) {
		h.life.fail(fmt.Errorf("tandem: the world was taken over by another host, and this one stopped: %w", r.Err))
		return
	}
	s.stats.Failures++
	s.stats.LastErr = r.Err
	h.retryLater()
	h.tellSaveError(r.Err)
}

// retryLater makes the next save due after a pause that doubles with each
// failure in a row, from 100 ms to at most 5 s.
func (h *Host[I]) retryLater() {
	s := h.saves
	s.backoff = min(max(2*s.backoff, 100*time.Millisecond), 5*time.Second)
	s.retryAt = h.clk.Now().Add(s.backoff)
	s.retry = true
}

// leaseCheckEvery is how often a host checks its world's lease between
// saves: a host whose world another took stops within about this, not at
// its next save (SaveEvery), so its players do not play on in a world whose
// progress no save will keep.
const leaseCheckEvery = time.Second

// saveStep is the last system of a step: it hands the committer a save when
// one is due and none runs. A save is due when answers wait for it
// (commands ran this step: they share one save), or every SaveEvery while
// anything (even the frame) changed; after a failed one the next is due
// once its pause (retryLater) is over, whatever SaveEvery says. The cost
// here is what changed.
func (h *Host[I]) saveStep() {
	s := h.saves
	if s.committer.Busy() {
		h.pollSave()
		if s.committer.Busy() {
			return
		}
	}
	if h.life.stopping() {
		return
	}
	now := h.clk.Now()
	soon := s.soon.Load()
	due := s.want || s.retry || soon || now.Sub(s.last) >= s.every
	if !due || now.Before(s.retryAt) {
		if now.Sub(s.checked) >= leaseCheckEvery && now.Sub(s.last) >= leaseCheckEvery {
			s.checked = now
			s.committer.CheckLease()
		}
		return
	}
	if s.tracker.Backlog() > saveSliceFrom && s.slices < maxSaveSlices {
		// A save of the whole world (a new world's first, the first after
		// the game's saved components changed) takes a slice a step, the
		// Fill the rest: no step pays for the whole world.
		s.slices++
		s.stats.Slices++
		if _, err := s.tracker.Prefill(&s.batch, saveSlice); err != nil {
			s.slices = 0
			_ = h.unsaved(err)
		}
		return
	}
	s.soon.Store(false)
	h.putFocus()
	h.putTokens()
	fs, err := s.tracker.Fill(&s.batch)
	if err != nil {
		s.slices = 0
		_ = h.unsaved(err)
		return
	}
	if fs.Empty() && !s.want && !s.retry && !soon && h.w.ECS.Frame() == s.lastFrame {
		s.last = now
		return
	}
	h.submit(fs)
}

// A save of the whole world with more than saveSliceFrom entities to write
// (save.Tracker.Backlog) writes them saveSlice a step (Prefill), for at most
// maxSaveSlices steps, before it fills the rest and is handed over: at some
// 0.5 µs an entity on the simulation goroutine, the first save of a
// 100,000-entity world cost its step 50–70 ms at once, some 2 ms a step so.
// Other saves hold what changed since the last, at once.
const (
	saveSlice     = 4096
	saveSliceFrom = 2 * saveSlice
	maxSaveSlices = 64
)

// unsaved takes a save that could not be filled (an entity holds a component
// nothing saves): the game must change; the host says so and tries again
// after the pause, withholding the receipts meanwhile. It returns the error
// as it was said.
func (h *Host[I]) unsaved(err error) error {
	var ue *save.UnsavedError
	if errors.As(err, &ue) {
		err = unsavedError{ue}
	} else {
		err = fmt.Errorf("tandem: save: %w", err)
	}
	s := h.saves
	s.stats.Unsaved++
	s.stats.LastErr = err
	h.retryLater()
	h.tellSaveError(err)
	return err
}

// unsavedError is a save.UnsavedError said in a Game's terms.
type unsavedError struct{ *save.UnsavedError }

func (e unsavedError) Error() string {
	return fmt.Sprintf("tandem: the host cannot save: entity %d has component %s, which the save neither holds nor rebuilds; replicate it (Game.Components, with its exact encoding: tandem.Exact), list it in Game.Saved (tandem.SaveComponent), or say it is rebuilt (tandem.Rebuilt in Game.Saved, added again in Game.Restored)", e.Entity, e.Component)
}

func (e unsavedError) Unwrap() error { return e.UnsavedError }

// submit hands the filled batch to the committer as the next generation.
func (h *Host[I]) submit(fs save.FillStats) {
	s := h.saves
	s.stats.Entities += uint64(fs.Entities)
	s.stats.Bytes += uint64(fs.Bytes)
	s.want, s.retry = false, false
	s.slices = 0
	s.last = h.clk.Now()
	s.lastFrame = h.w.ECS.Frame()
	s.inFlight = SavedReport{Frame: s.lastFrame, Players: len(h.people.players)}
	gen := s.next
	s.next++
	s.committer.Submit(&s.batch, gen)
}

// saveNow saves everything that changed and waits until it is durable or
// failed, on the simulation goroutine (the world locked, no step under way).
func (h *Host[I]) saveNow(ctx context.Context) error {
	s := h.saves
	if s.committer.Busy() {
		r, ok := s.committer.Wait(ctx)
		if !ok {
			return fmt.Errorf("tandem: save: %w", ctx.Err())
		}
		h.saved(r)
	}
	if err := h.life.failed(); err != nil {
		return err
	}
	// What changed since the last step (in Do, at a Close's leaves) is in
	// the world's journal until the next step's tracker reads it: read it
	// now, or this save would miss it. The step reading it again writes
	// those entities once more (a write since, to the same component,
	// is not journaled again); deletes are queued once.
	h.w.ECS.FlushRemovals() // a removal asked for under a query is saved as made
	s.tracker.UpdateBetweenSteps(h.w.ECS)
	// A save asked for before this one (SaveSoon, a player's join) is this
	// one: what changed up to now is in it. One asked for from now on is
	// made after it.
	s.soon.Store(false)
	h.putFocus()
	h.putTokens()
	fs, err := s.tracker.Fill(&s.batch)
	if err != nil {
		return h.unsaved(err)
	}
	gen := s.next
	h.submit(fs)
	r, ok := s.committer.Wait(ctx)
	if !ok {
		return fmt.Errorf("tandem: save: %w", ctx.Err())
	}
	h.saved(r)
	if r.Err != nil {
		if err := h.life.failed(); err != nil {
			return err
		}
		return fmt.Errorf("tandem: save %d: %w", gen, r.Err)
	}
	return nil
}

// Save saves what changed now and waits until it is durable (receipts it
// holds go out), or failed. It waits for the step under way. A host without
// a store has nothing to save: nil. After a Close whose final save failed,
// Save tries again, and a Save that lands finishes the Close; after one
// that saved it returns ErrClosed, and on a host that stopped on its own
// why (Err). Safe from any goroutine, except from inside a View or Do
// callback, a system, a hook or an observer (there it returns ErrWorldHeld
// after two seconds: use SaveSoon).
func (h *Host[I]) Save(ctx context.Context) error {
	if err := h.mu.outside("Host.Save", "ask with Host.SaveSoon there, or save after it returns"); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	defer h.publishStatus()
	if h.saves == nil {
		return nil
	}
	if err := h.life.failed(); err != nil {
		return err // it stopped on its own
	}
	if h.life.abandoned {
		return fmt.Errorf("tandem: save: the host was abandoned after its final save failed: nothing more is saved: %w", ErrClosed)
	}
	if h.life.finished {
		return fmt.Errorf("tandem: save: the host closed, its world saved as it closed: %w", ErrClosed)
	}
	if h.w == nil {
		return nil // released: saved as it was let go
	}
	err := h.saveNow(ctx)
	if err == nil && h.life.closed {
		h.finishClose()
	}
	return err
}

// SaveSoon asks for a save of what changed, made at the end of the next step
// (of the step under way, when called inside one), and returns at once: for
// the places Save may not be called, such as a system, a command, a hook or
// an observer, and for a goroutine that need not wait. The save is made even
// if nothing changed; after a failed save it waits for the pause before the
// next try, as every save does. Its end reaches HostConfig.OnSave (or
// OnSaveError) and SaveStats; one asked for while a save is under way is
// made after it, and a Save that begins before the step's end is it (what
// changed up to then is in that Save). A host without a store does nothing. Safe from any
// goroutine, inside callbacks, hooks, systems and observers too.
func (h *Host[I]) SaveSoon() {
	if h.saves != nil {
		h.saves.soon.Store(true)
	}
}

// SaveStats returns the figures of the host's saves (zero without a store)
// as the host last published them, as Stats does. Safe from any goroutine,
// inside callbacks, hooks and observers too.
func (h *Host[I]) SaveStats() SaveStats {
	h.status.mu.Lock()
	defer h.status.mu.Unlock()
	return h.status.saves
}

// Restored returns what the host restored when its world was last loaded,
// as the host last published it, as Stats does. Safe from any goroutine,
// inside callbacks, hooks and observers too.
func (h *Host[I]) Restored() RestoreReport {
	h.status.mu.Lock()
	defer h.status.mu.Unlock()
	return h.status.restored
}

// Store returns the store world the host saves to, nil without one: its Meta
// records keep what else a restarted host needs (its identity, see
// quicnet.LoadIdentity).
func (h *Host[I]) Store() store.World {
	if h.saves == nil {
		return nil
	}
	return h.saves.st
}
