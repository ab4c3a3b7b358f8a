package tandem

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/store/storetest"
)

// A method that must not run inside a callback gives up there with
// ErrWorldHeld after worldHeldLimit, doing nothing, instead of waiting for
// itself forever; the host, the client and the game alone go on as before.
func TestWorldHeldInsideCallback(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		defer watchdog(time.Minute).Stop()
		r := newRig(t, HostConfig{SaveTo: savePath(t)})
		c := r.join("ann", ClientConfig[push]{})
		start := time.Now()
		var saveErr, closeErr, leaveErr error
		r.host.Do(func(*World) {
			saveErr = r.host.Save(context.Background())
			closeErr = r.host.Close()
		})
		c.Do(func(*World) { leaveErr = c.Close() })
		if waited := time.Since(start); waited < 3*worldHeldLimit || waited > 3*worldHeldLimit+time.Second {
			t.Errorf("three calls gave up after %v in all, want about %v each", waited, worldHeldLimit)
		}
		for what, err := range map[string]error{"Host.Save": saveErr, "Host.Close": closeErr, "Client.Close": leaveErr} {
			if !errors.Is(err, ErrWorldHeld) || !strings.Contains(err.Error(), what) {
				t.Errorf("%s inside Do: %v, want ErrWorldHeld naming it", what, err)
			}
		}
		if !strings.Contains(saveErr.Error(), "SaveSoon") {
			t.Errorf("the save's error does not point to SaveSoon: %v", saveErr)
		}
		// Nothing was done: the client still plays, the host still steps,
		// and both close as they would have.
		r.step(3)
		if c.State() != session.Playing || r.host.Stats().Players != 1 {
			t.Fatalf("after the refused calls: client %v, host %+v", c.State(), r.host.Stats())
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := r.host.Save(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := r.host.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// A game alone: RunAlone inside Do gives up with ErrWorldHeld (the command
// would run at once, with the world held); Close works anywhere.
func TestWorldHeldAlone(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		l, err := NewLocal(ledgerGame(), LocalConfig{})
		if err != nil {
			t.Fatal(err)
		}
		var runErr, closeErr error
		l.Do(func(*World) {
			runErr = RunAlone(l, addCommand, 7)
			closeErr = l.Close()
		})
		if !errors.Is(runErr, ErrWorldHeld) {
			t.Fatalf("RunAlone inside Do: %v, want ErrWorldHeld", runErr)
		}
		var sum uint64
		l.Do(func(w *World) { sum = ecsLedger(w).Sum })
		if closeErr != nil || sum != 0 {
			t.Fatalf("Close inside Do: %v; the ledger sums %d, want nothing run", closeErr, sum)
		}
		if err := RunAlone(l, addCommand, 7); !errors.Is(err, ErrClosed) {
			t.Fatalf("RunAlone after a Close made inside Do: %v, want ErrClosed", err)
		}
	})
}

// Called from another goroutine, Save waits for a slow callback (the world
// held a second) and saves; it gives up only when one callback holds the
// world past the limit, and says so.
func TestWorldHeldFromOutside(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newRig(t, HostConfig{SaveTo: savePath(t)})
		r.step(2)
		for _, hold := range []time.Duration{worldHeldLimit / 2, 2 * worldHeldLimit} {
			saved := make(chan error, 1)
			r.host.Do(func(*World) {
				go func() { saved <- r.host.Save(context.Background()) }()
				synctest.Wait() // the save waits for the world
				time.Sleep(hold)
			})
			err := <-saved
			switch {
			case hold < worldHeldLimit && err != nil:
				t.Fatalf("a save waiting %v for a callback: %v", hold, err)
			case hold > worldHeldLimit && !errors.Is(err, ErrWorldHeld):
				t.Fatalf("a save waiting %v for a callback: %v, want ErrWorldHeld", hold, err)
			}
		}
	})
}

// World.SaveSoon asks for a save from where Save may not run, a system, and
// Host.SaveSoon from any goroutine; the save is made at the end of that
// step even with nothing changed, and once.
func TestSaveSoon(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newRig(t, HostConfig{SaveTo: savePath(t), SaveEvery: time.Hour})
		ask := false
		r.host.Do(func(w *World) {
			w.Schedule.Add("ask", ecs.SystemFunc(func(*ecs.World) {
				if ask {
					w.SaveSoon()
					ask = false
				}
			}))
		})
		r.step(5)
		before := r.host.SaveStats().Commits
		r.step(5)
		if got := r.host.SaveStats().Commits; got != before {
			t.Fatalf("%d saves with none due and none asked for", got-before)
		}
		ask = true
		r.step(1)
		if got := r.host.SaveStats().Commits; got != before+1 {
			t.Fatalf("%d saves after SaveSoon in a system, want 1", got-before)
		}
		r.step(5)
		r.host.SaveSoon() // from outside the steps
		r.step(1)
		if got := r.host.SaveStats().Commits; got != before+2 {
			t.Fatalf("%d saves after a second SaveSoon, want 2 in all", got-before)
		}
	})
}

// The game's code that a Save or a Close runs with the world held (Leave
// and the PeerLeft observers at a Close, OnSave at a Save, a client's
// observers at its Close) gets ErrWorldHeld from Save and Close too, and
// the outer call ends as it would have.
func TestWorldHeldInsideCloseAndSave(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		defer watchdog(time.Minute).Stop()
		var r *rig
		armed := false
		var onSaveErr, leaveErr, observerErr, clientErr error
		r = newRig(t, HostConfig{SaveTo: savePath(t), OnSave: func(SavedReport) {
			if armed {
				armed = false
				onSaveErr = r.host.Save(context.Background())
			}
		}})
		r.g.Leave = func(*World, Peer) {
			if err := r.host.Close(); leaveErr == nil {
				leaveErr = err // the first Leave's, at a step
			} else if !errors.Is(err, ErrWorldHeld) {
				leaveErr = err // the second's, at the Close
			}
		}
		r.host.OnEvent(func(e Event) {
			if e.Kind == PeerLeft {
				observerErr = r.host.Save(context.Background())
			}
		})
		r.join("ann", ClientConfig[push]{})
		bob := r.join("bob", ClientConfig[push]{})
		bob.OnEvent(func(e Event) {
			if e.Kind == PeerLeft {
				clientErr = bob.Close()
			}
		})
		armed = true
		if err := r.host.Save(context.Background()); err != nil {
			t.Fatalf("the outer Save: %v", err)
		}
		if err := bob.Close(); err != nil {
			t.Fatalf("the client's outer Close: %v", err)
		}
		r.step(3)
		if err := r.host.Close(); err != nil {
			t.Fatalf("the host's outer Close: %v", err)
		}
		for what, err := range map[string]error{"Save in OnSave": onSaveErr, "Close in Leave": leaveErr, "Save in a PeerLeft observer": observerErr, "a client's Close in its observer": clientErr} {
			if !errors.Is(err, ErrWorldHeld) {
				t.Errorf("%s: %v, want ErrWorldHeld", what, err)
			}
		}
		if st := r.host.Stats(); st.Players != 0 || st.Left != 2 {
			t.Fatalf("after the host's Close: %+v, want ann and bob gone", st)
		}
	})
}

// watchdog ends the test binary, saying why, if a call inside a callback
// has not given up within d of the bubble's time: where the game's code is
// not marked, the call waits forever (the time of a bubble whose every
// goroutine waits runs on), and the test would wait for go test's timeout.
func watchdog(d time.Duration) *time.Timer {
	return time.AfterFunc(d, func() {
		panic("a call inside the game's code waited for the world, held there, and did not give up with ErrWorldHeld: is a call of the game's code not marked (worldLock.call, enter)?")
	})
}

// The engine's own long holds are waited for, not taken for the game's code:
// a Close from another goroutine while the host's step releases an idle
// world to a store that answers after three seconds closes the host.
func TestWorldHeldNotByTheEngine(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		_, st := openStore(t, savePath(t))
		faulty := storetest.NewFaulty(st)
		r := newRig(t, HostConfig{Store: faulty, IdleUnload: 2 * time.Second, SaveEvery: time.Hour})
		r.step(5)
		r.async = true
		release := faulty.Block()
		stepped := make(chan struct{})
		go func() { // the loop: it releases the world at about 2 s of steps
			defer close(stepped)
			r.step(4 * 60)
		}()
		if err := faulty.WaitBlocked(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(3*time.Second, release)
		start := time.Now()
		if err := r.host.Close(); err != nil {
			t.Fatalf("Close while the engine released the world: %v", err)
		}
		if waited := time.Since(start); waited < 3*time.Second {
			t.Fatalf("Close returned after %v, before the store answered", waited)
		}
		<-stepped
	})
}

// Calls of the game's code that each hold the world less than the limit do
// not add up: a Close whose Leave hooks take 1.5 s each, for two players,
// does not make a second Close, waiting on another goroutine, give up.
func TestWorldHeldEachCall(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newRig(t, HostConfig{SaveTo: savePath(t)})
		r.join("ann", ClientConfig[push]{})
		r.join("bob", ClientConfig[push]{})
		left := make(chan struct{}, 2)
		r.g.Leave = func(*World, Peer) {
			left <- struct{}{}
			time.Sleep(worldHeldLimit * 3 / 4)
		}
		closed := make(chan error, 1)
		go func() { closed <- r.host.Close() }()
		<-left // the Close holds the world
		if err := r.host.Close(); err != nil {
			t.Fatalf("a Close waiting for a Close whose hooks took %v each: %v", worldHeldLimit*3/4, err)
		}
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		if err := r.host.Save(context.Background()); !errors.Is(err, ErrClosed) {
			t.Fatalf("Save after a Close that saved: %v, want ErrClosed", err)
		}
		if len(left) != 1 {
			t.Fatalf("%d Leave hooks after the first, want 1", len(left))
		}
	})
}

// The methods that report or add an observer never wait for the world: each
// works inside a Do callback and inside an observer, where the world is
// held (waiting there would be waiting for itself), and an observer added by
// an observer hears the events that come after.
func TestStatusInsideCallbacks(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		defer watchdog(time.Minute).Stop()
		r := newRig(t, HostConfig{SaveTo: savePath(t), Grace: 5 * time.Second})
		var late []string // what the observer added by an observer heard
		restartable := false
		r.host.OnEvent(func(e Event) {
			if e.Kind != PeerJoined || e.Name != "ann" {
				return
			}
			r.host.LockStats()
			restartable = r.host.Restartable()
			r.host.OnEvent(func(e Event) {
				if e.Kind == PeerJoined {
					late = append(late, e.Name)
				}
			})
		})
		ann := r.join("ann", ClientConfig[push]{})
		r.join("bob", ClientConfig[push]{})
		if !restartable || len(late) != 1 || late[0] != "bob" {
			t.Fatalf("inside ann's join: Restartable %v, later joins heard %v; want true, [bob]", restartable, late)
		}

		var inside NetStats
		var clientHeard []EventKind
		ann.Do(func(*World) {
			inside = ann.NetStats()
			ann.LockStats()
			ann.OnEvent(func(e Event) { clientHeard = append(clientHeard, e.Kind) })
		})
		if inside.State != Playing || inside.Entities == 0 || inside.Frames == 0 {
			t.Fatalf("NetStats inside Do: %+v, want a playing client's figures", inside)
		}
		r.step(3)
		if got := ann.NetStats(); got.Frames <= inside.Frames || got.Frame <= inside.Frame {
			t.Fatalf("NetStats three steps after Do: frame %d, %d played; inside Do: frame %d, %d played", got.Frame, got.Frames, inside.Frame, inside.Frames)
		}
		var held bool
		r.host.Do(func(*World) { held = r.host.Restartable() })
		if !held {
			t.Fatal("Restartable inside Do: false for a host that saves with a grace window")
		}
		if n := testing.AllocsPerRun(50, func() { ann.Do(func(*World) {}) }); n != 0 {
			t.Fatalf("a client's Do (publishing its figures) allocates %.1f times", n)
		}
		if n := testing.AllocsPerRun(50, func() { ann.View(time.Now(), func(*View) {}) }); n != 0 {
			t.Fatalf("a client's View (publishing its figures) allocates %.1f times", n)
		}

		if err := ann.Close(); err != nil {
			t.Fatal(err)
		}
		if st := ann.NetStats(); st.State != Closed {
			t.Fatalf("NetStats after Close: state %v", st.State)
		}
		if len(clientHeard) == 0 || clientHeard[len(clientHeard)-1] != PeerLeft {
			t.Fatalf("the observer ann added inside Do heard %v, want its leave last", clientHeard)
		}
		// Close lets bob go (and ann, whose leave the host has not
		// stepped since to hear): its observers hear them leave on
		// Close's goroutine, the world held, and no restart is to come.
		var closing []bool
		r.host.OnEvent(func(e Event) {
			if e.Kind == PeerLeft {
				closing = append(closing, r.host.Restartable())
			}
		})
		if err := r.host.Close(); err != nil {
			t.Fatal(err)
		}
		if len(closing) == 0 || slices.Contains(closing, true) {
			t.Fatalf("Restartable in the observers of the players Close let go: %v, want false for each", closing)
		}
		if r.host.Restartable() {
			t.Fatal("Restartable after Close: true")
		}
	})
}

// A Do (or View, Step, Advance) that waits while one call of the game's
// code holds the world for worldHeldLimit, as one called from inside that
// code does forever, says so once through slog's default logger, naming
// itself and what to do instead, and goes on waiting: it takes the world
// when the call returns. Calls that each hold the world briefly, however
// many in a row, are not reported.
func TestLockForSaysItWaitsForItself(t *testing.T) {
	logged := captureDefaultLog(t)
	bubble.Test(t, func(t *testing.T) {
		l := &worldLock{ch: make(chan struct{}, 1)}
		got := make(chan struct{})
		// Brief holds, one after another, for three times the limit.
		l.Lock()
		go func() {
			l.lockFor("Do")
			close(got)
		}()
		for range 30 {
			l.enter()
			time.Sleep(worldHeldLimit / 10)
			l.exit()
		}
		if logged.Len() != 0 {
			t.Fatalf("brief holds reported: %s", logged.String())
		}
		// One call that holds on.
		l.enter()
		time.Sleep(3 * worldHeldLimit)
		select {
		case <-got:
			t.Fatal("lockFor took a held world")
		default:
		}
		out := logged.String()
		if strings.Count(out, "level=WARN") != 1 || !strings.Contains(out, "Do has waited") || !strings.Contains(out, "waits for itself") {
			t.Fatalf("logged %q, want one warning naming Do and saying it waits for itself", out)
		}
		l.exit()
		l.Unlock()
		<-got // it takes the world once the call returns
		l.Unlock()
	})
}

// captureDefaultLog makes slog's default logger write text to the
// returned log until the test ends.
func captureDefaultLog(t *testing.T) *lockedText {
	logged := &lockedText{}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(logged, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return logged
}

// lockedText is a log's text, written and read from any goroutine.
type lockedText struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedText) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedText) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *lockedText) Len() int { return len(l.String()) }
