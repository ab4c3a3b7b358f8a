package tandem

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// ErrWorldHeld is the error of a method that must not be called with the
// world held (Save, Close, CloseForRestart, a Client's Close, a game alone's
// Give and RunAlone) when it waited for the world while the game's code —
// a batch of steps, a View or Do callback, a hook, an observer, OnSave —
// held it for over two seconds without a break. Most often the method was
// called from inside that code, which runs with the world held: the
// world's lock is not reentrant, so the call could never have it; it
// returns this error, and does nothing, instead of waiting forever. Call it
// after the callback returns (for a save, Host.SaveSoon or World.SaveSoon
// is safe there). Otherwise the game's code on another goroutine held the
// world far too long: the simulation stood still meanwhile. The engine's
// own holds (a save, a world released to its store or loaded again, a
// Close) are waited for however long they take.
var ErrWorldHeld = errors.New("tandem: the game's code held the world while this call waited for it")

// worldHeldLimit is how long one call of the game's code may hold the world
// while a method that ErrWorldHeld names waits for it.
const worldHeldLimit = 2 * time.Second

// worldLock is the mutex of a loop's world. It is a channel so that a
// goroutine waiting for it counts as blocked under testing/synctest, which
// lets tests hold the world for a while on a fake clock; uncontended it
// costs about what a sync.Mutex does, once per batch of steps or View.
type worldLock struct {
	ch chan struct{}
	// running counts the calls of the game's code under way with the world
	// held (a batch of steps, a View or Do callback, the work between
	// steps, a hook, an observer), nested ones included; calls changes at
	// each start and end of one, so that while running is positive it
	// names the innermost. The engine's own work under the lock (a save,
	// a world released or loaded) is not marked.
	running atomic.Int32
	calls   atomic.Uint64
	// timers are lockFor's, reused: a View that waits for a batch of
	// steps, every frame, allocates nothing. They are the lock's own, made
	// where it lives (a timer made in a testing/synctest bubble serves only
	// there).
	timers sync.Pool
	// log hears lockFor's warning; nil: slog.Default().
	log *slog.Logger
}

// logger returns the logger the lock's warning goes to.
func (l *worldLock) logger() *slog.Logger { return loggerOr(l.log) }

// loggerOr returns l, or slog.Default() when l is nil.
func loggerOr(l *slog.Logger) *slog.Logger {
	if l != nil {
		return l
	}
	return slog.Default()
}

// Lock takes the world.
func (l *worldLock) Lock() {
	if l.ch == nil {
		panic("tandem: use NewLocal, NewHost or NewClient")
	}
	l.ch <- struct{}{}
}

// lockFor takes the world for a method (what: "Do", "View", "Step",
// "Advance") that waits for it however long it is held. When one call of
// the game's code keeps the world over worldHeldLimit meanwhile, most often
// because the method was called from inside it, where it waits for itself
// forever, it says so once through the game's logger (its config's Logger,
// or slog's default), naming the method, and goes on waiting as a plain
// lock does (a test's bubble sees a wait that never ends as a deadlock): a
// method called from another goroutine while the game's code stalled gets
// the world when that code returns.
func (l *worldLock) lockFor(what string) {
	if l.take() != 0 {
		l.logger().Warn("tandem: " + what + " has waited " + worldHeldLimit.String() +
			" for the world, held all along by one call of the game's code (a system, a View or Do callback, a hook or an observer): if " +
			what + " was called from inside that code, it waits for itself and the game stands still; the world is held there already: read and change it directly (World, Host.World, the World a hook is given), and ask for work after it with World.SaveSoon or Host.SaveSoon")
		l.Lock()
	}
}

// take takes the world and returns 0, or returns how long one call of the
// game's code held it, without taking it, once that reached worldHeldLimit
// while take waited.
func (l *worldLock) take() time.Duration {
	if l.TryLock() {
		return 0
	}
	if l.ch == nil {
		panic("tandem: use NewLocal, NewHost or NewClient")
	}
	t, _ := l.timers.Get().(*time.Timer)
	if t == nil {
		t = time.NewTimer(worldHeldLimit / 8)
	} else {
		t.Reset(worldHeldLimit / 8)
	}
	defer func() {
		t.Stop()
		l.timers.Put(t)
	}()
	seen, since := l.calls.Load(), time.Now()
	for {
		select {
		case l.ch <- struct{}{}:
			return 0
		case now := <-t.C:
			t.Reset(worldHeldLimit / 8)
			calls := l.calls.Load()
			if calls != seen || l.running.Load() == 0 {
				seen, since = calls, now
				continue
			}
			if held := now.Sub(since); held >= worldHeldLimit {
				return held
			}
		}
	}
}

// Unlock gives the world back.
func (l *worldLock) Unlock() { <-l.ch }

// TryLock takes the world if nobody holds it, and reports whether it did.
func (l *worldLock) TryLock() bool {
	select {
	case l.ch <- struct{}{}:
		return true
	default:
		return false
	}
}

// call runs fn, the game's code (a batch of steps, a View or Do callback,
// a hook, an observer), marked as such for outside.
func (l *worldLock) call(fn func()) {
	l.enter()
	defer l.exit()
	fn()
}

// enter marks the start of a call of the game's code with the world held
// (a hook, an observer), which exit ends.
func (l *worldLock) enter() {
	l.running.Add(1)
	l.calls.Add(1)
}

// exit marks the end of what enter began.
func (l *worldLock) exit() {
	l.calls.Add(1)
	l.running.Add(-1)
}

// outside waits until the world is free and returns at once, not holding
// it: the call is not inside a hold of the world on this goroutine. When
// one call of the game's code keeps the world over
// worldHeldLimit meanwhile, it gives up with ErrWorldHeld, saying what the
// call (what) should do instead. A goroutine that had the world free is
// outside every callback, so what it does next waits only for others'
// holds.
func (l *worldLock) outside(what, instead string) error {
	if held := l.take(); held != 0 {
		return fmt.Errorf("%w: %s waited %v; if it was called from inside a callback, system, hook or observer, %s", ErrWorldHeld, what, held.Round(time.Millisecond), instead)
	}
	l.Unlock()
	return nil
}
