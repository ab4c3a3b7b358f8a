package storetest

import (
	"context"
	"sync"

	"github.com/tandem-go/tandem/store"
)

// Faulty is a store.World whose commits can be made to fail or to block, and
// whose loads to fail, for tests of what a host does while its store is
// broken or slow. The other methods pass through. Safe for concurrent use.
type Faulty struct {
	store.World

	mu      sync.Mutex
	fail    error
	failLd  error
	loads   int
	gate    chan struct{} // non-nil: commits wait for it to close
	calls   int
	waiting int
	changed chan struct{} // closed and replaced whenever calls or waiting change
}

// NewFaulty wraps w.
func NewFaulty(w store.World) *Faulty {
	return &Faulty{World: w, changed: make(chan struct{})}
}

// Fail makes every Commit from now on return err without committing (nil:
// commit again).
func (f *Faulty) Fail(err error) {
	f.mu.Lock()
	f.fail = err
	f.mu.Unlock()
}

// FailLoad makes every Load from now on fail as a read whose connection
// breaks at its end: the records are handed to fn as the store holds them,
// then Load returns err (unless fn stopped it with an error of its own,
// which it returns as usual). nil: loads succeed again.
func (f *Faulty) FailLoad(err error) {
	f.mu.Lock()
	f.failLd = err
	f.mu.Unlock()
}

// Loads returns how many Loads were called, failed or not.
func (f *Faulty) Loads() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.loads
}

// Load reads, then fails at the end if told to.
func (f *Faulty) Load(ctx context.Context, fn func(key, value []byte) error) (uint64, error) {
	f.mu.Lock()
	f.loads++
	fail := f.failLd
	f.mu.Unlock()
	seq, err := f.World.Load(ctx, fn)
	if err == nil && fail != nil {
		return 0, fail
	}
	return seq, err
}

// Block makes every Commit from now on wait, before committing, until the
// returned release is called (or its context ends).
func (f *Faulty) Block() (release func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	gate := make(chan struct{})
	f.gate = gate
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			if f.gate == gate {
				f.gate = nil
			}
			f.mu.Unlock()
			close(gate)
		})
	}
}

// Calls returns how many Commits were called, and how many are blocked now.
func (f *Faulty) Calls() (calls, blocked int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls, f.waiting
}

// WaitBlocked waits until n Commits are blocked or ctx ends.
func (f *Faulty) WaitBlocked(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		ok, ch := f.waiting >= n, f.changed
		f.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (f *Faulty) notify() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// Commit waits while blocked, then fails if told to, else commits.
func (f *Faulty) Commit(ctx context.Context, b *store.Batch) (uint64, error) {
	f.mu.Lock()
	f.calls++
	gate := f.gate
	if gate != nil {
		f.waiting++
	}
	f.notify()
	f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
		}
		f.mu.Lock()
		f.waiting--
		f.notify()
		f.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	}
	f.mu.Lock()
	err := f.fail
	f.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return f.World.Commit(ctx, b)
}
