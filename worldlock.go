package tandem

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// ErrWorldHeld is the error of a method that must not be called with the
// world held (Save, Close, CloseForRestart, a Client's or a Local's Close,
// RunAlone) when it waited for the world over two seconds while one step,
// View or Do held it all that time. Most often the method was called from
// inside that step, View or Do: from a callback, a system, a hook or an
// observer, which run with the world held. The world's lock is not
// reentrant, so the call could never have it; it returns this error, and
// does nothing, instead of waiting forever. Call it after the callback
// returns (for a save, Host.SaveSoon is safe there). Otherwise a step or
// callback on another goroutine is far too slow: the simulation stood
// still meanwhile.
var ErrWorldHeld = errors.New("tandem: the world stayed held by one step, View or Do while this call waited for it")

// worldHeldLimit is how long one step, View or Do may hold the world while
// a method that ErrWorldHeld names waits for it.
const worldHeldLimit = 2 * time.Second

// worldLock is the mutex of a loop's world. It is a channel so that a
// goroutine waiting for it counts as blocked under testing/synctest, which
// lets tests hold the world for a while on a fake clock; uncontended it
// costs about what a sync.Mutex does, once per batch of steps or View.
type worldLock struct {
	ch chan struct{}
	// running counts the starts and ends of the holds that run the game's
	// code (steps, View, Do, the work between steps): odd while one is
	// under way, and then its value names that hold.
	running atomic.Uint64
}

// Lock takes the world.
func (l *worldLock) Lock() {
	if l.ch == nil {
		panic("tandem: use NewLocal, NewHost or NewClient")
	}
	l.ch <- struct{}{}
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

// lockRunning takes the world for a hold that runs the game's code.
func (l *worldLock) lockRunning() {
	l.Lock()
	l.running.Add(1)
}

// unlockRunning ends a hold that lockRunning began.
func (l *worldLock) unlockRunning() {
	l.running.Add(1)
	l.Unlock()
}

// outside waits until the world is free and returns at once, not holding
// it: the call is not inside a hold of the world on this goroutine. When
// one hold that runs the game's code keeps the world over worldHeldLimit
// meanwhile, it gives up with ErrWorldHeld, saying what the call (what)
// should do instead. A goroutine that had the world free is outside every
// callback, so what it does next waits only for others' holds.
func (l *worldLock) outside(what, instead string) error {
	if l.TryLock() {
		l.Unlock()
		return nil
	}
	if l.ch == nil {
		panic("tandem: use NewLocal, NewHost or NewClient")
	}
	tick := time.NewTicker(worldHeldLimit / 8)
	defer tick.Stop()
	seen, since := l.running.Load(), time.Now()
	for {
		select {
		case l.ch <- struct{}{}:
			l.Unlock()
			return nil
		case now := <-tick.C:
			hold := l.running.Load()
			if hold != seen || hold%2 == 0 {
				seen, since = hold, now
				continue
			}
			if held := now.Sub(since); held >= worldHeldLimit {
				return fmt.Errorf("%w: %s waited %v; if it was called from inside a callback, system, hook or observer, %s", ErrWorldHeld, what, held.Round(time.Millisecond), instead)
			}
		}
	}
}
