package agones_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandem-go/tandem/agones"
	"github.com/tandem-go/tandem/agones/agonestest"
	"github.com/tandem-go/tandem/clock/bubble"
)

// watcher runs WatchGameServer in the background and collects its events.
type watcher struct {
	mu     sync.Mutex
	events []agones.GameServer
	errs   []error
	done   chan error
}

func (w *watcher) got() ([]agones.GameServer, []error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]agones.GameServer(nil), w.events...), append([]error(nil), w.errs...)
}

func startWatch(ctx context.Context, side *agonestest.Sidecar) (*agones.Client, *watcher) {
	w := &watcher{done: make(chan error, 1)}
	c, _ := agones.New(agones.Options{HTTPClient: side.HTTPClient(), OnError: func(err error) {
		w.mu.Lock()
		w.errs = append(w.errs, err)
		w.mu.Unlock()
	}})
	go func() {
		w.done <- c.WatchGameServer(ctx, func(gs *agones.GameServer) {
			w.mu.Lock()
			w.events = append(w.events, *gs)
			w.mu.Unlock()
		})
	}()
	return c, w
}

func TestWatchAllocation(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		side := agonestest.New()
		defer side.Close()
		ctx, cancel := context.WithCancel(t.Context())
		_, w := startWatch(ctx, side)
		synctest.Wait()
		side.Allocate(map[string]string{"tandem.dev/world": "arena-7"}, nil)
		synctest.Wait()
		events, _ := w.got()
		if len(events) != 2 || events[0].Status.State != agones.StateScheduled {
			t.Fatalf("events %+v, want the current GameServer, then the allocation", events)
		}
		if a := events[1]; a.Status.State != agones.StateAllocated || a.ObjectMeta.Labels["tandem.dev/world"] != "arena-7" {
			t.Errorf("allocation event: state %q labels %v", a.Status.State, a.ObjectMeta.Labels)
		}
		cancel()
		if err := <-w.done; !errors.Is(err, context.Canceled) {
			t.Errorf("WatchGameServer after cancel: %v, want context.Canceled", err)
		}
	})
}

// TestWatchReconnect breaks the stream, fails the next two reconnects, and
// checks the client comes back with doubling backoff and is told the state.
func TestWatchReconnect(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		side := agonestest.New()
		defer side.Close()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		_, w := startWatch(ctx, side)
		synctest.Wait()
		side.Fail("/watch/gameserver", agonestest.Fault{Status: 503, Message: "restarting"}, 2)
		broke, seen := time.Now(), len(side.Calls())
		side.BreakWatches()
		side.Allocate(map[string]string{"world": "w1"}, nil) // while no stream is open
		time.Sleep(time.Second)
		synctest.Wait()
		var at []time.Duration
		for _, c := range side.Calls()[seen:] {
			if c.Path == "/watch/gameserver" {
				at = append(at, c.At.Sub(broke))
			}
		}
		want := []time.Duration{100 * time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond}
		if len(at) != len(want) {
			t.Fatalf("reconnects at %v after the break, want %v", at, want)
		}
		for i := range want {
			if at[i] != want[i] {
				t.Errorf("reconnect %d at %v, want %v (backoff 100 ms doubling)", i, at[i], want[i])
			}
		}
		events, errs := w.got()
		if len(errs) != 3 {
			t.Errorf("OnError told %d times (%v), want 3: the break and two refused reconnects", len(errs), errs)
		}
		last := events[len(events)-1]
		if last.Status.State != agones.StateAllocated || last.ObjectMeta.Labels["world"] != "w1" {
			t.Errorf("after reconnecting the client has state %q labels %v, want the allocation made while it was away", last.Status.State, last.ObjectMeta.Labels)
		}
		// After an event the backoff starts over.
		broke, seen = time.Now(), len(side.Calls())
		side.BreakWatches()
		time.Sleep(time.Second)
		synctest.Wait()
		n := 0
		for _, c := range side.Calls()[seen:] {
			if c.Path == "/watch/gameserver" {
				n++
				if d := c.At.Sub(broke); d != 100*time.Millisecond {
					t.Errorf("reconnect after a good stream at %v, want 100ms", d)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d reconnects after the second break, want 1", n)
		}
	})
}
