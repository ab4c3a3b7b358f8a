// Package clock is the source of time for every layer of Tandem.
//
// Simulation, replication and connection code never call time.Now: they are
// given a Clock. Production code passes Real; tests pass a *Fake and advance it
// by hand, so ten minutes of play run in seconds and every run is repeatable.
// Code that must sleep or wait on timers (goroutines that move bytes) uses the
// time package directly and is tested under testing/synctest instead,
// through [github.com/tandem-go/tandem/clock/bubble.Test].
package clock

import (
	"sync"
	"time"
)

// Clock tells the current time. Implementations are safe for concurrent use.
type Clock interface {
	// Now returns the current time. Only differences between two readings
	// matter; the monotonic reading is used where present.
	Now() time.Time
}

// Real is the wall clock (time.Now).
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Fake is a manually driven clock for tests. Its zero value is not usable:
// create it with NewFake. Safe for concurrent use.
type Fake struct {
	mu  sync.Mutex
	now time.Time
}

// NewFake returns a fake clock reading start.
func NewFake(start time.Time) *Fake { return &Fake{now: start} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Advance moves the fake time forward by d (d < 0 panics: time never runs back).
func (f *Fake) Advance(d time.Duration) {
	if d < 0 {
		panic("clock: Fake.Advance with a negative duration; time only moves forward")
	}
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}
