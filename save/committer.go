package save

import (
	"context"
	"errors"
	"time"

	"github.com/tandem-go/tandem/store"
)

// Committer commits batches to a store on a goroutine of its own, one at a
// time, so that the simulation never waits for a disk: the simulation fills a
// batch (Tracker.Fill), hands it over with Submit, goes on stepping, and
// learns the outcome from Poll at a later step. While a commit runs the
// simulation leaves the batch alone and keeps tracking; the next save holds
// everything since the last one handed over (group commit).
//
// Every method belongs to one goroutine, the simulation's: the committing
// goroutine is the Committer's own.
type Committer struct {
	st      store.World
	timeout time.Duration
	jobs    chan job
	results chan Result
	done    chan struct{}
	busy    bool
	closed  bool
}

// job is one batch to commit, or with none, a check of the lease.
type job struct {
	b   *store.Batch
	gen uint64
}

// leaseProbe is the meta record CheckLease reads: reading any checks the
// lease, and this one is never written.
const leaseProbe = "tandem.lease-probe"

// Result is the outcome of one commit.
type Result struct {
	// Gen is the number Submit was given with the batch.
	Gen uint64
	// Seq is the store's sequence number of the commit, when it landed.
	Seq uint64
	// Err is nil when the batch is durable. A fenced world's error matches
	// store.ErrFenced: stop the world, its saves will all be refused.
	// After any other error the batch may or may not have landed.
	Err error
	// Took is how long the commit took, from Submit to the store's answer
	// (wall time).
	Took time.Duration
	// Check marks the result of CheckLease: no batch was committed; Err
	// matches store.ErrFenced when the lease was taken.
	Check bool
}

// NewCommitter starts the committing goroutine for st. Each commit is given
// at most timeout (0: no limit) before its context ends.
func NewCommitter(st store.World, timeout time.Duration) *Committer {
	c := &Committer{
		st:      st,
		timeout: timeout,
		jobs:    make(chan job, 1),
		results: make(chan Result, 1),
		done:    make(chan struct{}),
	}
	go c.run()
	return c
}

func (c *Committer) run() {
	defer close(c.done)
	for j := range c.jobs {
		start := time.Now()
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if c.timeout > 0 {
			ctx, cancel = context.WithTimeout(ctx, c.timeout)
		}
		if j.b == nil {
			_, _, err := c.st.Meta(ctx, leaseProbe)
			cancel()
			c.results <- Result{Gen: j.gen, Err: err, Took: time.Since(start), Check: true}
			continue
		}
		seq, err := c.st.Commit(ctx, j.b)
		cancel()
		c.results <- Result{Gen: j.gen, Seq: seq, Err: err, Took: time.Since(start)}
	}
}

// ErrCommitterClosed is the result of a Submit after Close.
var ErrCommitterClosed = errors.New("save: the committer was closed")

// Submit hands b to the committing goroutine, tagged gen. b must not be
// touched until its Result came back. It panics while a commit runs (check
// Busy).
func (c *Committer) Submit(b *store.Batch, gen uint64) {
	if b == nil {
		panic("save: Submit of a nil batch; CheckLease checks the lease alone")
	}
	if c.busy {
		panic("save: Submit while a commit runs; wait for its Result (Poll, Wait) first")
	}
	if c.closed {
		c.busy = true
		c.results <- Result{Gen: gen, Err: ErrCommitterClosed}
		return
	}
	c.busy = true
	c.jobs <- job{b, gen}
}

// CheckLease has the committing goroutine check, by a read, that the world's
// lease is still this store's: between saves a host learns of another host
// that took its world without waiting for its next save. Its Result (Check
// set) comes as a commit's does, and it panics while one runs, as Submit.
func (c *Committer) CheckLease() {
	if c.busy {
		panic("save: CheckLease while a commit runs; wait for its Result (Poll, Wait) first")
	}
	c.busy = true
	if c.closed {
		c.results <- Result{Err: ErrCommitterClosed, Check: true}
		return
	}
	c.jobs <- job{}
}

// Busy reports whether a commit runs (its Result has not been taken).
func (c *Committer) Busy() bool { return c.busy }

// Poll returns the Result of the commit that ran, if it has finished; it
// never waits.
func (c *Committer) Poll() (Result, bool) { return c.take(closedChan) }

// Wait waits for the Result of the commit that runs, or for ctx; ok is false
// when no commit runs or ctx ended first.
func (c *Committer) Wait(ctx context.Context) (r Result, ok bool) { return c.take(ctx.Done()) }

// closedChan is a channel closed from the start: Poll's "do not wait".
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// take returns the Result of the commit that runs, once it is in or until
// done is closed; a Result already in is taken even when done is.
func (c *Committer) take(done <-chan struct{}) (Result, bool) {
	if !c.busy {
		return Result{}, false
	}
	var r Result
	select {
	case r = <-c.results:
	default:
		select {
		case r = <-c.results:
		case <-done:
			return Result{}, false
		}
	}
	c.busy = false
	return r, true
}

// Close stops the committing goroutine once the commit under way, if any,
// has finished; its Result can still be taken. Later Submits fail with
// ErrCommitterClosed. Call it from the goroutine that submits.
func (c *Committer) Close() {
	if c.closed {
		return
	}
	c.closed = true
	close(c.jobs)
	<-c.done
}
