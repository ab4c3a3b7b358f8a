package tandem

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/store"
)

// A host's life: it steps its world until Close, or until it stops on its
// own (its store fenced by another host taking the world, a released world
// whose save no longer loads). While nobody plays it may release its world
// and load it again when someone comes (HostConfig.IdleUnload); a store that
// cannot be read just then is tried again after a growing pause.
type lifecycle struct {
	closeOnce sync.Once
	closing   bool                  // Close began: no more steps, no more commands
	shut      atomic.Bool           // closing or err set: for SendOwn without the world
	closed    bool                  // Close ran
	closeErr  error                 // what Close returned
	closeRan  atomic.Bool           // Close returned: closeErr is set
	err       error                 // why the host stopped on its own
	seen      atomic.Pointer[error] // err, for Err to read without the lock
	halted    bool                  // the stop on err was carried out
	finished  bool                  // the store is closed
	abandoned bool                  // by Abandon, after a failed final save
	done      chan struct{}
	doneOnce  sync.Once
	idleSince time.Time
	// retryAt is when a released world whose store could not be read is
	// tried again (zero: at once), after a pause of retryWait.
	retryAt   time.Time
	retryWait time.Duration
}

// The pauses between tries to load a released world again from a store that
// could not be read: doubled from the first at each failure, up to the last.
const (
	firstReloadWait = 100 * time.Millisecond
	lastReloadWait  = 5 * time.Second
)

func (l *lifecycle) init() { l.done = make(chan struct{}) }

// fail records why the host stops; the stop is carried out between steps.
func (l *lifecycle) fail(err error) {
	if l.err == nil {
		l.err = err
		l.seen.Store(&err)
		l.shut.Store(true)
	}
}

func (l *lifecycle) failed() error { return l.err }

// stopping reports whether the host is closing or stopped.
func (l *lifecycle) stopping() bool { return l.closing || l.err != nil }

func (l *lifecycle) finish() { l.doneOnce.Do(func() { close(l.done) }) }

// readyWorld is the loop's gate: whether there is a world to step (not after
// Close or a stop) or to look at (still after them), loading a released one
// again when a connection waits for it or someone wants to see it.
func (h *Host[I]) readyWorld(look bool) bool {
	if h.life.err != nil {
		h.halt()
	}
	if look {
		h.life.idleSince = time.Time{} // someone looks: not idle
	}
	stopped := h.life.closing || h.life.err != nil
	if h.w != nil {
		return look || !stopped
	}
	if stopped || (!look && !h.accept.pending()) {
		return false
	}
	if !h.life.retryAt.IsZero() && h.clk.Now().Before(h.life.retryAt) {
		return false
	}
	if err := h.reload(); err != nil {
		if !errors.As(err, new(storeReadError)) {
			if h.w != nil {
				h.release() // what was built of it is no world to look at
			}
			h.life.fail(err)
			h.halt()
			return false
		}
		h.reloadFailed(err)
		return false
	}
	h.life.retryAt, h.life.retryWait = time.Time{}, 0
	h.saves.stats.ReloadErr = nil
	return true
}

// reloadFailed takes a failure to read the store while loading the released
// world again: what was built of it is let go, and the next try waits for
// a pause that doubles at each failure. The connections waiting for the
// world wait on (their clients give up on their own join timeout).
func (h *Host[I]) reloadFailed(err error) {
	if h.w != nil {
		h.release()
	}
	h.life.retryWait = min(max(2*h.life.retryWait, firstReloadWait), lastReloadWait)
	h.life.retryAt = h.clk.Now().Add(h.life.retryWait)
	h.saves.stats.ReloadFailures++
	h.saves.stats.ReloadErr = err
	h.tellSaveError(fmt.Errorf("tandem: load the released world again: %w; trying again in %v", err, h.life.retryWait))
}

// handshake answers the connections whose handshake is under way between
// steps (session.Host.Handshake), while a world is up and the host runs.
// It reports whether a handshake is still under way.
func (h *Host[I]) handshake() bool {
	if h.w != nil && h.session != nil && !h.life.closing && h.life.err == nil {
		return h.session.Handshake()
	}
	return false
}

// stopped is Run's end: ErrClosed after Close, the error the host stopped
// on, or nil while it runs.
func (h *Host[I]) stopped() error {
	switch {
	case h.life.err != nil:
		return h.life.err
	case h.life.closing:
		return ErrClosed
	}
	return nil
}

// afterSteps runs between steps: it carries out a stop, or releases the
// world when it has been idle long enough.
func (h *Host[I]) afterSteps() {
	if h.life.err != nil {
		h.halt()
		return
	}
	h.watchBudgets()
	if h.cfg.IdleUnload <= 0 || h.saves == nil || h.w == nil || h.life.closing {
		return
	}
	now := h.clk.Now()
	if !h.people.empty() || h.session.Connections() > 0 {
		h.life.idleSince = time.Time{}
		return
	}
	if h.life.idleSince.IsZero() {
		h.life.idleSince = now
		return
	}
	if now.Sub(h.life.idleSince) >= h.cfg.IdleUnload {
		h.unload()
	}
}

// halt carries out a stop on h.life.err: no more connections, every peer
// told the host is shutting down (or, when another host took the world, to
// come back: a client whose Dial asks where the world is now resumes
// there, where the world's save holds its place), the store closed.
func (h *Host[I]) halt() {
	if h.life.halted {
		return
	}
	h.life.halted = true
	h.life.closing = true
	why := "the host stopped before running it"
	if h.life.err != nil {
		why += ": " + h.life.err.Error()
	}
	h.dropOwn(why)
	fenced := errors.Is(h.life.err, store.ErrFenced)
	h.accept.close(fenced)
	h.accept.decide(fenced)
	if h.session != nil {
		if fenced {
			h.session.CloseRestarting()
		} else {
			h.session.Close()
		}
	}
	h.finishClose()
	h.publishStatus() // before Done
	h.life.finish()
}

// unload saves the world and releases it, if no connection arrives
// meanwhile; a failed save keeps it.
func (h *Host[I]) unload() {
	if !h.accept.hold(func() bool { return h.session.Connections() == 0 }) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*h.cfg.SaveTimeout)
	err := h.saveNow(ctx)
	cancel()
	h.life.idleSince = time.Time{}
	if err != nil {
		h.accept.open(h.session.Accept)
		return
	}
	h.release()
	h.saves.stats.Unloads++
}

// release lets the world go, with its session: nothing is connected to it.
func (h *Host[I]) release() {
	h.stats.Unreported += int(h.session.Replicator().Unreported()) // what its replicator found stays counted
	h.stats.Lossy += int(h.session.Replicator().Lossy())
	h.session.Close()
	h.w, h.ip, h.tracks = nil, nil, nil
	h.session, h.inputs, h.reg, h.roster = nil, nil, nil, nil
	h.saves.schema, h.saves.tracker = nil, nil
	clear(h.names)
	clear(h.follows)
}

// reload loads a released world again from its save.
func (h *Host[I]) reload() error {
	if err := h.open(); err != nil {
		return err
	}
	h.saves.stats.Reloads++
	h.accept.open(h.session.Accept)
	return nil
}

// Close ends the host: it stops taking connections, fences the world (no
// step, no command from now on; those taken before are in the world), saves
// it and waits until the save is durable, sends the receipts that save
// frees and waits (at most two seconds) until they can have reached their
// clients, tells every peer the host is shutting down, and lets every player
// and spectator go, those away included: each leaves as after its own
// leave (Game.Leave, PeerLeft with session.ErrHostShutDown, its entities
// removed but those Game.Keep keeps), and that is saved too, so a host
// started on the save holds no place for anyone told the game ended
// (CloseForRestart keeps them). Their Game.Keep, Game.Leave and the
// PeerLeft observers run on the goroutine that called Close, the world held
// (an observer must not wait for that goroutine). Both saves share one
// deadline, twice HostConfig.SaveTimeout. Then it returns;
// the world stays in memory as Close left it, without its players. A failed
// final save is returned, the store left open so that Save may try again (a
// Save that lands finishes the Close, the players' leaving with it); the
// players are told all the same, and what they sent that the failed save
// held is answered ReceiptUnknown by their clients (the receipts a Save
// that lands later frees have no one to go to). A host that stopped on its
// own (Err) lets no one go. A second Close returns what
// the first did. Safe from any goroutine, except from inside a View or Do
// callback, a system, a hook or an observer (there it returns ErrWorldHeld
// after two seconds and does nothing).
func (h *Host[I]) Close() error { return h.close(false) }

// CloseForRestart ends the host as Close does, but keeps its players in the
// save and tells every peer that it will be back: their clients (those with
// ClientConfig.Dial) reconnect as after a broken connection and resume
// their players into the world the next host restores from this save
// within the grace window (HostConfig.Grace), at the same address and with
// the same identity (tandem.OpenSave keeps the certificate in the save;
// with HostConfig.SaveTo alone, keep the transport's identity yourself:
// quicnet.LoadIdentity). A host without a save or a grace window, or whose
// final save failed, closes as Close does instead, telling them it shuts
// down and letting them go: no world would take them back; one whose store
// another host took tells them so and lets no one go. For a deploy, or a
// host moved to another machine that reads the same store. Safe from any
// goroutine, except from inside a View or Do callback, a system, a hook or an
// observer (there it returns ErrWorldHeld after two seconds and does
// nothing).
func (h *Host[I]) CloseForRestart() error { return h.close(true) }

// Restartable reports whether CloseForRestart, called now, would tell the
// players to come back: the host saves, keeps a grace window
// (HostConfig.Grace), has not failed (Err: its store taken by another host,
// say) and no Close has begun. Its final save may still fail;
// CloseForRestart then shuts down instead and returns that error. For saying
// which a restart will be before it begins. Safe from any goroutine, inside
// callbacks, hooks and observers too.
//
// It does not say that the players will be let back in: over QUIC their
// clients take only a host at the same address with the certificate they
// pinned, which the host does not see (its transport is the game's: Serve,
// Accept), so Restartable reports true with HostConfig.SaveTo alone. Keep
// the transport's identity for the next host: OpenSave keeps it in the save
// (SaveFile.Identity, for quicnet's Identity.Apply); with SaveTo alone, keep
// it yourself (quicnet.Config's Certificate and StatelessResetKey). A host
// started with a new certificate restores the players' places, and their
// clients refuse it (transport.ErrUntrusted) and end.
func (h *Host[I]) Restartable() bool {
	return !h.life.shut.Load() && h.saves != nil && h.cfg.Grace > 0
}

// restartable is Restartable, with the lock held, for a final save that
// ended with err.
func (h *Host[I]) restartable(err error) bool {
	return err == nil && h.life.err == nil && h.saves != nil && h.cfg.Grace > 0
}

// close is Close, and CloseForRestart when restart is set.
func (h *Host[I]) close(restart bool) error {
	name := "Host.Close"
	if restart {
		name = "Host.CloseForRestart"
	}
	if h.life.closeRan.Load() {
		return h.life.closeErr // a second Close, wherever it is called
	}
	if err := h.mu.outside(name, "close after it returns (a system may cancel the context of Run, and close after Run returns)"); err != nil {
		return err
	}
	h.life.closeOnce.Do(func() {
		h.life.shut.Store(true)
		h.accept.close(restart)
		// A panic out of the final save (a game's codec) leaves no
		// restart to wait for: the connections held for its outcome are
		// refused as for a shutdown, not left open.
		defer h.accept.decide(false)
		h.mu.Lock()
		defer h.mu.Unlock()
		h.life.closing = true
		h.dropOwn("the host closed before running it")
		// The final save, and the one after letting the players go, share
		// one deadline: Close is bounded as a single save is.
		ctx, cancel := context.WithTimeout(context.Background(), 2*h.cfg.SaveTimeout)
		defer cancel()
		err := h.life.err
		if err == nil && h.saves != nil && h.w != nil {
			err = h.saveNow(ctx)
		}
		restarting := restart && h.restartable(err)
		h.accept.decide(restarting) // after a halt, decided there
		if h.session != nil {
			h.drain()
			if restarting {
				h.session.CloseRestarting()
			} else {
				h.session.Close()
				err = h.dismiss(ctx, err)
			}
		}
		h.life.closed = true
		h.life.closeErr = err
		h.life.closeRan.Store(true)
		if err == nil || h.life.err != nil {
			h.finishClose()
		}
		h.publishStatus() // before Done: who waits for it reads the final figures
		h.life.finish()
	})
	return h.life.closeErr
}

// dismiss ends every player and spectator after a Close that told them the
// host shut down (their OnLeave, Game.Leave, their entities removed or
// kept), and saves that within ctx, so that the world the save holds has no
// one in it who will not come back: a host restoring it holds no slot for
// them. err is the final save's: a failed one is not tried again here (the
// next Save saves both). With nobody to let go there is nothing more to
// save. A host that stopped on its own (Err: its world taken by another
// host) lets no one go: the world is no longer its own to change.
func (h *Host[I]) dismiss(ctx context.Context, err error) error {
	if h.life.err != nil || h.session.Dismiss() == 0 || err != nil || h.saves == nil {
		return err
	}
	return h.saveNow(ctx)
}

// drain waits a little (at most drainWait) for what was sent on the
// commands lane to reach the players: the receipts the final save freed,
// and those sent before that the transport may still be sending again
// (over QUIC, until it would have delivered them through two losses:
// quicnet.Conn.InFlight). Closing the connections drops what is left.
func (h *Host[I]) drain() {
	drainLoop(h.clk, func() (left int) {
		for _, p := range h.session.Peers() {
			left += h.session.Unsettled(p, transport.LaneCommands)
		}
		return left
	}, time.Sleep)
}

// drainLoop looks every drainPoll (sleep) at what is left (left) until
// nothing is, drainWait passed on clk, clk stood still for drainStill looks
// in a row (a test's clock that nobody moves while Close runs), or it
// looked drainLooks times (a clock that runs slower than the sleeps); it
// returns how many looks it took.
func drainLoop(clk clock.Clock, left func() int, sleep func(time.Duration)) int {
	moved := clk.Now()
	deadline := moved.Add(drainWait)
	still := 0
	for look := 1; ; look++ {
		n := left()
		now := clk.Now()
		if now.After(moved) {
			moved, still = now, 0
		} else {
			still++
		}
		if n == 0 || !now.Before(deadline) || still >= drainStill || look >= drainLooks {
			return look
		}
		sleep(drainPoll)
	}
}

// drainWait bounds how long Close waits for receipts to reach the players,
// whatever they do. A receipt that does not make it is lost with the
// connection: after Close its client answers ReceiptUnknown (after
// CloseForRestart it asks the next host again, which answers from the
// save).
const drainWait = 2 * time.Second

// drainPoll is how often Close looks whether the receipts arrived;
// drainStill how many looks in a row at a clock that does not move end the
// wait, and drainLooks how many in all.
const (
	drainPoll  = 2 * time.Millisecond
	drainStill = 125
	drainLooks = int(drainWait / drainPoll)
)

// Abandon gives up a host whose Close (or CloseForRestart) returned a
// failed final save: it closes the store without saving again, and what
// that save would have held is lost. For a process or a test that ends
// there (a host that may still save keeps its store open for Save to try
// again); a Save after it fails. It returns what closing the store
// returned. It does nothing before a Close, after one that saved, or twice.
// Safe from any goroutine, except from inside a View or Do callback, a
// system, a hook or an observer (there it returns ErrWorldHeld after two
// seconds and does nothing).
func (h *Host[I]) Abandon() error {
	if err := h.mu.outside("Host.Abandon", "abandon after Close returns"); err != nil {
		return err
	}
	if !h.life.closeRan.Load() {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.saves == nil || h.life.finished {
		return nil
	}
	h.life.abandoned = true
	return h.finishClose()
}

// finishClose closes the store once nothing more will be saved, and
// returns what closing it returned.
func (h *Host[I]) finishClose() error {
	if h.saves == nil || h.life.finished {
		return nil
	}
	h.life.finished = true
	return h.saves.close()
}

// Done is closed when the host has stopped: Close returned, or the host
// stopped on its own (Err).
func (h *Host[I]) Done() <-chan struct{} { return h.life.done }

// Err returns why the host stopped on its own, or nil: an error matching
// store.ErrFenced when another host took the world over (this one stopped
// stepping and closed every connection; its saves would all be refused), or
// the error of a released world whose save no longer loads (it does not fit
// the game, or its data is damaged; a store that cannot be read just then is
// tried again: SaveStats.ReloadErr). Safe from any
// goroutine, inside callbacks, hooks and observers too: one atomic load.
func (h *Host[I]) Err() error {
	if p := h.life.seen.Load(); p != nil {
		return *p
	}
	return nil
}
