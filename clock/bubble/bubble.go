// Package bubble runs a test in a synctest bubble (fake time, goroutines
// that block durably) the same way with and without the race detector.
//
// Code that waits on the time package's timers (sessions, transports, the
// fleet) is tested in a bubble, where ten minutes of timeouts pass at once.
// Every such test of Tandem goes through [Test] rather than calling
// [synctest.Test] itself, and a game's tests of its own sessions can too:
// with the race detector on, [synctest.Test] alone can crash the test binary
// (see [Test]).
//
// What waits on real processes or sockets is made outside the bubble and
// what holds timers inside it: start a PostgreSQL server
// (storetest.PostgresURL) before the bubble (inside, its start waits on fake
// time that never moves), and let the host open its store inside
// (HostConfig.SaveTo): a store.DB opened outside and used inside resets a
// bubble's timer from outside it, which the runtime refuses (fatal error).
package bubble

import (
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
)

// one serializes bubbles that pin the scheduler, so that two of them never
// restore each other's setting.
var one sync.Mutex

// Test runs f in a new bubble, as [synctest.Test] does, and returns once
// every goroutine of the bubble has exited.
//
// Under the race detector the bubble runs with GOMAXPROCS 1 (restored after).
// The Go 1.26 runtime runs a bubble's expired timers with one race context
// shared by the whole bubble: synctest's own loop runs them when every
// goroutine is blocked, and a goroutine it has just woken runs one itself
// when it reads an expired timer's channel or sets a timer in the past.
// With two threads the two can overlap, which corrupts the race detector's
// state: the test binary dies with SIGSEGV inside ThreadSanitizer (a
// fleet test did in about one run in eight). With one P only one thread
// runs the bubble's code at a time. Without the race detector nothing
// changes.
func Test(t *testing.T, f func(*testing.T)) {
	t.Helper()
	if raceEnabled {
		one.Lock()
		defer one.Unlock()
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	}
	synctest.Test(t, f)
}
