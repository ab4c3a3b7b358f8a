package tandemtest_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/store"
	"github.com/tandem-go/tandem/tandemtest"
)

// A command whose receipt is slow to come (a slow link, a slow save) while
// the player keeps clicking has its receipt lost with the connection, and
// the resumed client sends it again. The host's book keeps the 64 highest
// ids that ran, so it must still hold that receipt: the client sends no
// command 64 ids past one it holds without a receipt (Send says
// ErrTooManyCommands). Before that bound a player who kept clicking had 64
// newer commands run, the book let the old one go, and its resend was
// answered "expired", which says it did not run, though it had.
func TestAnOldCommandThatRanIsAnsweredDone(t *testing.T) {
	for _, tc := range []struct {
		name    string
		latency time.Duration
		slow    bool // a store whose commits wait while the test holds them
	}{
		{"slow link", 700 * time.Millisecond, false},
		{"slow save", 50 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bubble.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				ran := map[uint32]int{} // runs of each mark, by the test's index
				runs := func(i uint32) int { mu.Lock(); defer mu.Unlock(); return ran[i] }
				above := func(i uint32) (n int) {
					mu.Lock()
					defer mu.Unlock()
					for k := range ran {
						if k > i {
							n++
						}
					}
					return n
				}
				mark := tandem.NewCommand("mark", u32Codec, func(w *tandem.World, p tandem.Peer, i uint32) error {
					mu.Lock()
					ran[i]++
					mu.Unlock()
					return nil
				})
				cfg := tandem.HostConfig{} // 30 commands a second, 64 receipts
				var g *gatedWorld
				if tc.slow {
					g = newGatedWorld(t)
					cfg.Store = g
				}
				link := condition.Config{Latency: tc.latency}
				r := tandemtest.New(t, walkersWith(mark), cfg, tandemtest.Config{Bubble: true, Link: mem.Config{ToHost: link, ToClient: link}})
				if g != nil {
					t.Cleanup(g.open) // before the rig's close
				}
				ann := r.Join("ann", tandem.ClientConfig[Walk]{})
				heard := map[uint64]tandem.Receipt{}
				ann.OnReceipt(func(rc tandem.Receipt) { heard[rc.Op] = rc })
				var next uint32
				ops := map[uint32]uint64{}
				refused := false
				send := func(n int) {
					t.Helper()
					for range n {
						op, err := tandem.Send(ann, mark, next)
						if errors.Is(err, tandem.ErrTooManyCommands) {
							refused = true
							return
						}
						if err != nil {
							t.Fatalf("send mark %d: %v", next, err)
						}
						ops[next] = op
						next++
					}
				}
				// X goes first, and its receipt does not come back before
				// the player, clicking one a step (twice the rate: the rest
				// wait their turn), has sent 64 newer: Send refuses her.
				const x = 0
				if g != nil {
					g.hold() // the disk slows down: receipts wait
				}
				send(1)
				if !r.StepUntil(60*60, func() bool {
					if runs(x) == 1 && (refused || above(x) >= 64) {
						return true
					}
					if !refused {
						send(1)
					}
					return false
				}) {
					t.Fatalf("setup: X ran %d times, %d newer", runs(x), above(x))
				}
				if _, ok := heard[ops[x]]; ok {
					t.Fatalf("setup: X's receipt came before the cut: %v", heard[ops[x]])
				}
				r.Cut(ann)
				r.Step(1)
				if g != nil {
					g.open()
				}
				if !r.StepUntil(60*60, func() bool { return ann.State() == tandem.Playing && ann.PendingCommands() == 0 }) {
					t.Fatalf("after the cut: %v, %d commands without a receipt", ann.State(), ann.PendingCommands())
				}
				for i := range next {
					if rc := heard[ops[i]]; rc.Status != tandem.ReceiptDone || runs(i) != 1 {
						t.Errorf("mark %d ran %d times and is answered %v, want once and done", i, runs(i), rc)
					}
				}
				if !refused {
					t.Errorf("Send never said ErrTooManyCommands: %d newer than X ran while X was without a receipt", above(x))
				}
			})
		})
	}
}

// newGatedWorld opens a world in a bbolt file of the test's, its commits
// open until held. Call it before the rig: the store closes after the rig's
// close, which saves a last time; open the gate before that close.
func newGatedWorld(t *testing.T) *gatedWorld {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w, err := db.OpenWorld(context.Background(), "world")
	if err != nil {
		t.Fatal(err)
	}
	return &gatedWorld{World: w}
}

// gatedWorld is a store.World whose commits wait while held: a slow disk.
type gatedWorld struct {
	store.World
	mu   sync.Mutex
	gate chan struct{} // nil: open
}

func (g *gatedWorld) Commit(ctx context.Context, b *store.Batch) (uint64, error) {
	g.mu.Lock()
	gate := g.gate
	g.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	return g.World.Commit(ctx, b)
}

func (g *gatedWorld) hold() {
	g.mu.Lock()
	g.gate = make(chan struct{})
	g.mu.Unlock()
}

func (g *gatedWorld) open() {
	g.mu.Lock()
	if g.gate != nil {
		close(g.gate)
		g.gate = nil
	}
	g.mu.Unlock()
}

// Commands sent again while their answers wait for a slow save take no
// place of MaxWithheld: the first answer goes with the save. Each copy was
// held as a second answer and counted against it, crowding out commands not
// yet run (in a trial's slow save, 26 of 60 were dropped, their players
// waiting for the resend's doubled timer, beside 30 copies).
func TestCopiesWaitingForASaveTakeNoPlace(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		g := newGatedWorld(t)
		link := condition.Config{Latency: 20 * time.Millisecond}
		r := tandemtest.New(t, walkersWith(step), tandem.HostConfig{Store: g, CommandRate: 1000},
			tandemtest.Config{Bubble: true, Link: mem.Config{ToHost: link, ToClient: link}})
		t.Cleanup(g.open) // before the rig's close
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		got := map[uint64]tandem.ReceiptStatus{}
		ann.OnReceipt(func(rc tandem.Receipt) { got[rc.Op] = rc.Status })
		g.hold() // the disk slows down
		var ops []uint64
		for range 60 {
			op, err := tandem.Send(ann, step, struct{}{})
			if err != nil {
				t.Fatal(err)
			}
			ops = append(ops, op)
		}
		// Past two resends of each (2 s, then 4 s more).
		r.StepUntil(60*7, func() bool { return false })
		// (Copies past MaxWithheld are dropped unread: their first answers
		// wait, and go with the save.)
		if st := r.Host.Stats(); st.Commands != 60 || r.Host.Withheld() != 60 {
			t.Fatalf("while the save waits: %d commands run (%d dropped), %d answers withheld; want 60 and 60", st.Commands, st.Dropped, r.Host.Withheld())
		}
		// Four more fill MaxWithheld (64) with commands that run.
		for range 4 {
			op, err := tandem.Send(ann, step, struct{}{})
			if err != nil {
				t.Fatal(err)
			}
			ops = append(ops, op)
		}
		r.StepUntil(30, func() bool { return false })
		if st := r.Host.Stats(); st.Commands != 64 {
			t.Fatalf("%d of 64 commands run while the save waits (%d answers withheld)", st.Commands, r.Host.Withheld())
		}
		g.open()
		if !r.StepUntil(60*5, func() bool { return ann.PendingCommands() == 0 }) {
			t.Fatalf("%d commands without a receipt after the save", ann.PendingCommands())
		}
		for _, op := range ops {
			if got[op] != tandem.ReceiptDone {
				t.Errorf("op %d: %v, want done", op, got[op])
			}
		}
		if x := hostX(t, r, ann.Peer()); x != 64 {
			t.Errorf("the host has ann's figure at %.0f, want 64: each step once", x)
		}
	})
}
