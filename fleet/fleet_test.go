package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/agones"
	"github.com/tandem-go/tandem/agones/agonestest"
	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/fleet"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/store"
)

// The test game: each player gets a marker entity; a host-side counter
// (saved) counts the steps; a stall switch holds the tick loop.
type move struct{ X int8 }

var moveCodec = tandem.InputCodec[move]{
	Append:  func(dst []byte, in *move) []byte { return append(dst, byte(in.X)) },
	Read:    func(r *wire.Reader, in *move) { in.X = int8(r.U8()) },
	MaxSize: 1,
}

// steps is the game's saved state: how many steps the world took.
type steps struct{ N uint64 }

// stall holds the tick loop while it is on: a system waits for it.
type stall struct {
	mu  sync.Mutex
	on  bool
	off chan struct{}
}

func (s *stall) hold() {
	s.mu.Lock()
	s.on, s.off = true, make(chan struct{})
	s.mu.Unlock()
}

func (s *stall) release() {
	s.mu.Lock()
	if s.on {
		s.on = false
		close(s.off)
	}
	s.mu.Unlock()
}

func (s *stall) wait() {
	s.mu.Lock()
	on, off := s.on, s.off
	s.mu.Unlock()
	if on {
		<-off
	}
}

func testGame(st *stall) *tandem.Game[move] {
	return &tandem.Game[move]{
		Components: []tandem.Component{tandem.Replicate(replicate.TransformCodec(), tandem.HostValue)},
		Saved:      []tandem.Saved{tandem.SaveState(tandem.Plain[steps]())},
		Input:      moveCodec,
		Setup: func(w *tandem.World) {
			ecs.AddResource(w.ECS, &steps{})
			w.Schedule.Add("count", ecs.SystemFunc(func(ew *ecs.World) {
				ecs.Resource[steps](ew).N++
				st.wait()
			}))
		},
		Join: func(w *tandem.World, p tandem.Peer) error {
			m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.ECS.Arche())
			m.NewWith(&ecs.Transform{}, &ecs.NetworkIdentity{Owner: p.ID})
			return nil
		},
	}
}

// bed is one fleet test: a fake sidecar, an in-memory network, the game,
// and what Open was asked for.
type bed struct {
	t      *testing.T
	side   *agonestest.Sidecar
	sdk    *agones.Client
	net    *mem.Network
	stall  stall
	dir    string
	mu     sync.Mutex
	opened []string // the worlds Open was called for, in order
	hosts  []*tandem.Host[move]
	errs   []error            // what Run reported to OnError
	open   func(string) error // if set, called first by Open
	cfg    tandem.HostConfig
}

func newBed(t *testing.T) *bed {
	b := &bed{t: t, side: agonestest.New(), dir: t.TempDir()}
	b.side.SetList("players", 8)
	t.Cleanup(b.side.Close)
	var err error
	b.sdk, err = agones.New(agones.Options{HTTPClient: b.side.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	b.net, err = mem.NewNetwork(clock.Real{}, mem.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// config is Run's configuration: Open builds a host of the test game saving
// world W to W.db in the test's directory ("" in memory only).
func (b *bed) config() fleet.Config {
	l, err := b.net.Listen("host")
	if err != nil {
		b.t.Fatal(err)
	}
	return fleet.Config{
		SDK: b.sdk, Listener: l, Pin: "ab12",
		Open: func(ctx context.Context, world string) (fleet.Host, error) {
			b.mu.Lock()
			b.opened = append(b.opened, world)
			hook := b.open
			b.mu.Unlock()
			if hook != nil {
				if err := hook(world); err != nil {
					return nil, err
				}
			}
			hc := b.cfg
			hc.MaxPeers = 8
			switch {
			case world == "":
				hc.Store = nil // the unnamed world: in memory only
			case hc.Store == nil:
				hc.SaveTo = filepath.Join(b.dir, world+".db")
			}
			h, err := tandem.NewHost(testGame(&b.stall), hc)
			if err != nil {
				return nil, err
			}
			b.mu.Lock()
			b.hosts = append(b.hosts, h)
			b.mu.Unlock()
			return h, nil
		},
		OnError: func(err error) {
			b.mu.Lock()
			b.errs = append(b.errs, err)
			b.mu.Unlock()
		},
	}
}

// run starts Run; stop cancels it (SIGTERM) and returns what it returned.
func (b *bed) run(cfg fleet.Config) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fleet.Run(ctx, cfg) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			err = <-done
			b.side.Close()
		})
		return err
	}
	b.t.Cleanup(func() { stop() }) // a test that failed half-way
	return stop
}

func (b *bed) worlds() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.opened)
}

func (b *bed) host() *tandem.Host[move] {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.hosts[len(b.hosts)-1]
}

// join connects a client to the host and waits until it plays.
func (b *bed) join(name string, cfg tandem.ClientConfig[move]) (*tandem.Client[move], context.CancelFunc) {
	b.t.Helper()
	tc, err := b.net.Dial(context.Background(), "host")
	if err != nil {
		b.t.Fatal(err)
	}
	cfg.Name = name
	c, err := tandem.NewClient(testGame(&stall{}), tc, cfg)
	if err != nil {
		b.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go c.Run(ctx)
	for i := 0; c.State() != session.Playing; i++ {
		if i > 100 {
			b.t.Fatalf("%s never played: %v", name, c.Err())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return c, func() { cancel(); c.Close() }
}

func paths(calls []agonestest.Call) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.String())
	}
	return out
}

// TestReadyAfterBindAndLoad: Ready comes after the world is loaded (an Open
// that takes 3 s holds it back) and after the pin is published; the server
// takes players when Ready is said; an Open that fails means no Ready.
func TestReadyAfterBindAndLoad(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		b := newBed(t)
		start := time.Now()
		b.open = func(string) error {
			if n := b.side.Count("/ready"); n != 0 {
				t.Errorf("Ready said before the world was opened (%d calls)", n)
			}
			time.Sleep(3 * time.Second) // a slow restore
			return nil
		}
		joined := make(chan error, 1)
		b.side.OnCall(func(c agonestest.Call) {
			if c.Path != "/ready" {
				return
			}
			// The listener is served when Ready is said: a player
			// connecting now is taken.
			go func() {
				tc, err := b.net.Dial(context.Background(), "host")
				if err != nil {
					joined <- err
					return
				}
				cl, err := tandem.NewClient(testGame(&stall{}), tc, tandem.ClientConfig[move]{Name: "early"})
				if err != nil {
					joined <- err
					return
				}
				defer cl.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				go cl.Run(ctx)
				for cl.State() != session.Playing && ctx.Err() == nil {
					time.Sleep(50 * time.Millisecond)
				}
				joined <- ctx.Err()
			}()
		})
		stop := b.run(b.config())
		if err := b.side.WaitCount(t.Context(), "/ready", 1); err != nil {
			t.Fatal(err)
		}
		var ready, pin time.Time
		order := paths(b.side.Calls())
		for _, c := range b.side.Calls() {
			switch c.Path {
			case "/ready":
				ready = c.At
			case "/metadata/annotation":
				pin = c.At
			}
		}
		if d := ready.Sub(start); d < 3*time.Second {
			t.Errorf("Ready %v after the start, before the world's 3 s load ended", d)
		}
		ia, ir := slices.Index(order, "PUT /metadata/annotation"), slices.Index(order, "POST /ready")
		if ia < 0 || ia > ir || pin.After(ready) {
			t.Errorf("calls %v: want the pin annotation before Ready", order)
		}
		gs := b.side.GameServer()
		if got := gs.ObjectMeta.Annotations[agones.SDKPrefix+fleet.PinAnnotation]; got != "ab12" {
			t.Errorf("the pin annotation is %q", got)
		}
		if err := <-joined; err != nil {
			t.Errorf("a player connecting at Ready: %v", err)
		}
		if err := stop(); err != nil {
			t.Fatal(err)
		}

		// An Open that fails: no Ready, and Run says why.
		b = newBed(t)
		b.open = func(string) error { return errors.New("the store is down") }
		err := fleet.Run(t.Context(), b.config())
		if err == nil || !strings.Contains(err.Error(), "the store is down") {
			t.Errorf("Run with a failing Open: %v", err)
		}
		if n := b.side.Count("/ready"); n != 0 {
			t.Errorf("Ready said %d times without a world", n)
		}
	})
}

// TestHealthOnlyWhileTicking: Health goes out every half period (2.5 s of
// the GameServer's 5 s) while the host's loop turns; when a system stalls
// the loop, the pings stop within a period of the pinger (well within two
// of the GameServer's), and come back when it goes on.
func TestHealthOnlyWhileTicking(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		b := newBed(t)
		stop := b.run(b.config())
		if err := b.side.WaitCount(t.Context(), "/ready", 1); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		time.Sleep(20*time.Second + time.Second)
		b.stall.hold()
		stalled := time.Now()
		time.Sleep(30 * time.Second)
		synctest.Wait()
		var before, after int
		for _, c := range b.side.Calls() {
			if c.Path != "/health" || c.At.Before(start) {
				continue
			}
			if c.At.Before(stalled) {
				before++
				continue
			}
			after++
			if d := c.At.Sub(stalled); d > 2500*time.Millisecond {
				t.Errorf("a Health ping %v after the stall; want none later than 2.5 s (the GameServer's period is 5 s)", d)
			}
		}
		if before < 7 || before > 9 || after > 1 {
			t.Errorf("%d pings in the 21 s of ticking (want 8 at 2.5 s), %d after the stall (want at most 1)", before, after)
		}
		n := b.side.Count("/health")
		b.stall.release()
		time.Sleep(10*time.Second + time.Second)
		synctest.Wait()
		if got := b.side.Count("/health") - n; got < 3 || got > 5 {
			t.Errorf("%d pings in the 11 s after the loop went on, want 4", got)
		}
		if err := stop(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestAllocatedWorldIsOpenedAgain: an allocated world whose Open fails
// (a store restarting) is tried again with backoff while the unnamed world
// serves on; once it opens, the unnamed world gives way. One that never
// opens within OpenTimeout ends Run with Open's error.
func TestAllocatedWorldIsOpenedAgain(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		b := newBed(t)
		fails := 2
		b.open = func(world string) error {
			if world != "" && fails > 0 {
				fails--
				return errors.New("connection refused")
			}
			return nil
		}
		stop := b.run(b.config())
		if err := b.side.WaitState(t.Context(), agones.StateReady); err != nil {
			t.Fatal(err)
		}
		warm := b.host()
		b.side.Allocate(nil, map[string]string{fleet.WorldKey: "arena-7"})
		time.Sleep(100 * time.Millisecond)
		select {
		case <-warm.Done():
			t.Fatal("the unnamed world closed before the allocated one opened")
		default:
		}
		time.Sleep(2 * time.Second)
		if got := b.worlds(); !slices.Equal(got, []string{"", "arena-7", "arena-7", "arena-7"}) {
			t.Fatalf("Open was called for %q, want the unnamed world, then arena-7 until it opened", got)
		}
		select {
		case <-warm.Done():
		default:
			t.Error("the unnamed world was not closed once the allocated one opened")
		}
		if err := stop(); err != nil {
			t.Fatalf("Run: %v", err)
		}
		if n := b.side.Count("/shutdown"); n != 1 {
			t.Errorf("shutdown said %d times", n)
		}

		b = newBed(t)
		b.open = func(world string) error {
			if world != "" {
				return errors.New("the store is down")
			}
			return nil
		}
		cfg := b.config()
		cfg.OpenTimeout = 3 * time.Second
		done := make(chan error, 1)
		go func() { done <- fleet.Run(t.Context(), cfg) }()
		if err := b.side.WaitState(t.Context(), agones.StateReady); err != nil {
			t.Fatal(err)
		}
		b.side.Allocate(nil, map[string]string{fleet.WorldKey: "arena-7"})
		if err := <-done; err == nil || !strings.Contains(err.Error(), "the store is down") {
			t.Fatalf("Run with an allocated world that never opens: %v", err)
		}
	})
}

// TestAllocationLoadsTheWorldOnce: a warm server ticks the unnamed world;
// the allocation naming a world closes it and opens that world, once,
// however often the allocation is reported (again, or on a new watch
// stream); a second world named later is reported and not opened. A world
// named at start is opened at once.
func TestAllocationLoadsTheWorldOnce(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		b := newBed(t)
		stop := b.run(b.config())
		if err := b.side.WaitState(t.Context(), agones.StateReady); err != nil {
			t.Fatal(err)
		}
		warm := b.host()
		b.side.Allocate(nil, map[string]string{fleet.WorldKey: "arena-7"})
		time.Sleep(time.Second)
		b.side.Allocate(nil, map[string]string{fleet.WorldKey: "arena-7"})
		b.side.Update(func(gs *agones.GameServer) { gs.ObjectMeta.Labels["other"] = "x" })
		b.side.BreakWatches()
		time.Sleep(5 * time.Second)
		if err := b.side.WaitWatchers(t.Context(), 1); err != nil {
			t.Fatal(err)
		}
		b.side.Allocate(nil, map[string]string{fleet.WorldKey: "arena-7"})
		time.Sleep(time.Second)
		if got := b.worlds(); !slices.Equal(got, []string{"", "arena-7"}) {
			t.Fatalf("Open was called for %q, want the unnamed world then arena-7 once", got)
		}
		select {
		case <-warm.Done():
		default:
			t.Error("the unnamed world was not closed for the allocated one")
		}
		c, leave := b.join("ann", tandem.ClientConfig[move]{})
		if c.Peer() != 1 {
			t.Errorf("ann is peer %d of the allocated world", c.Peer())
		}
		leave()
		b.side.Allocate(nil, map[string]string{fleet.WorldKey: "arena-9"})
		time.Sleep(time.Second)
		b.side.Allocate(nil, map[string]string{fleet.WorldKey: "arena-9"})
		time.Sleep(time.Second)
		if got := b.worlds(); len(got) != 2 {
			t.Errorf("a second allocated world was opened: %q", got)
		}
		b.mu.Lock()
		var told int
		for _, err := range b.errs {
			if strings.Contains(err.Error(), `"arena-9"`) {
				told++
			}
		}
		b.mu.Unlock()
		if told != 1 {
			t.Errorf("the allocation for a second world was reported %d times, want once", told)
		}
		if err := stop(); err != nil {
			t.Fatal(err)
		}

		// A world named in the Fleet's template: opened at once.
		b = newBed(t)
		b.side.Update(func(gs *agones.GameServer) { gs.ObjectMeta.Labels[fleet.WorldKey] = "arena-1" })
		stop = b.run(b.config())
		if err := b.side.WaitCount(t.Context(), "/ready", 1); err != nil {
			t.Fatal(err)
		}
		b.side.Allocate(nil, nil)
		time.Sleep(time.Second)
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if got := b.worlds(); !slices.Equal(got, []string{"arena-1"}) {
			t.Errorf("Open was called for %q, want arena-1 alone", got)
		}
	})
}

// listCalls counts the adds and removes of value made to the players list.
func listCalls(side *agonestest.Sidecar, value string) (adds, removes int) {
	for _, c := range side.Calls() {
		if !strings.Contains(c.Body, `"`+value+`"`) {
			continue
		}
		switch c.Path {
		case "/v1beta1/lists/players:addValue":
			adds++
		case "/v1beta1/lists/players:removeValue":
			removes++
		}
	}
	return adds, removes
}

func listValues(side *agonestest.Sidecar) []string {
	return side.GameServer().Status.Lists["players"].Values
}

// TestPlayersList: a player that joins is added once and removed once when
// it leaves; a spectator is never listed; values a former process left in
// the list are removed, and a player already listed is not an error.
func TestPlayersList(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		b := newBed(t)
		b.cfg.Spectators = 2
		b.side.SetList("players", 8, "1", "5") // left by a process before
		stop := b.run(b.config())
		if err := b.side.WaitCount(t.Context(), "/ready", 1); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		if got := listValues(b.side); len(got) != 0 {
			t.Fatalf("the list holds %q before anyone joined; want the former values removed", got)
		}
		b.side.Update(func(gs *agones.GameServer) { // listed again, as if by a race
			gs.Status.Lists["players"] = agones.ListStatus{Capacity: 8, Values: []string{"1"}}
		})
		_, leaveAnn := b.join("ann", tandem.ClientConfig[move]{})
		_, leaveBob := b.join("bob", tandem.ClientConfig[move]{})
		_, leaveSpec := b.join("sue", tandem.ClientConfig[move]{Spectator: true})
		time.Sleep(time.Second)
		if got := listValues(b.side); !slices.Equal(got, []string{"1", "2"}) {
			t.Fatalf("the list holds %q with ann and bob playing and sue watching", got)
		}
		b.mu.Lock()
		for _, err := range b.errs {
			if strings.Contains(err.Error(), "list") {
				t.Errorf("a list error: %v", err)
			}
		}
		b.mu.Unlock()
		leaveBob()
		leaveSpec()
		time.Sleep(2 * time.Second)
		if got := listValues(b.side); !slices.Equal(got, []string{"1"}) {
			t.Fatalf("the list holds %q after bob left", got)
		}
		if a, r := listCalls(b.side, "2"); a != 1 || r != 1 {
			t.Errorf("bob was added %d and removed %d times, want once each", a, r)
		}
		if a, r := listCalls(b.side, "3"); a != 0 || r != 0 {
			t.Errorf("the spectator was added %d and removed %d times", a, r)
		}
		if a, _ := listCalls(b.side, "1"); a != 1 {
			t.Errorf("ann was added %d times, want once (the duplicate answer taken as done)", a)
		}
		leaveAnn()
		if err := stop(); err != nil {
			t.Fatal(err)
		}
	})
}

// countingWorld counts a store world's commits.
type countingWorld struct {
	store.World
	commits atomic.Int64
}

func (w *countingWorld) Commit(ctx context.Context, b *store.Batch) (uint64, error) {
	seq, err := w.World.Commit(ctx, b)
	if err == nil {
		w.commits.Add(1)
	}
	return seq, err
}

// TestTermSavesThenShutsDown: when Run's context ends (SIGTERM), the host
// is closed with its final save, and Shutdown is said after it: a host
// restored from the save finds the world as it was at the end.
func TestTermSavesThenShutsDown(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		b := newBed(t)
		db, err := store.Open(context.Background(), filepath.Join(b.dir, "term.db"), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		st, err := db.OpenWorld(context.Background(), "term")
		if err != nil {
			t.Fatal(err)
		}
		cw := &countingWorld{World: st}
		b.cfg = tandem.HostConfig{Store: cw, SaveEvery: time.Hour}
		var atShutdown atomic.Int64
		atShutdown.Store(-1)
		b.side.OnCall(func(c agonestest.Call) {
			if c.Path == "/shutdown" {
				atShutdown.Store(cw.commits.Load())
			}
		})
		b.side.Update(func(gs *agones.GameServer) { gs.ObjectMeta.Annotations[fleet.WorldKey] = "term" })
		stop := b.run(b.config())
		if err := b.side.WaitCount(t.Context(), "/ready", 1); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Second)
		synctest.Wait()
		before := cw.commits.Load()
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if b.side.Count("/shutdown") != 1 {
			t.Fatalf("calls %v: want one Shutdown", paths(b.side.Calls()))
		}
		n := cw.commits.Load()
		if n != before+1 || atShutdown.Load() != n {
			t.Fatalf("commits: %d before the end, %d at Shutdown, %d after; want the final save before Shutdown", before, atShutdown.Load(), n)
		}
		var final uint64
		b.host().Do(func(w *tandem.World) { final = ecs.Resource[steps](w.ECS).N })
		h, err := tandem.NewHost(testGame(&stall{}), tandem.HostConfig{Store: st})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		var got uint64
		h.Do(func(w *tandem.World) { got = ecs.Resource[steps](w.ECS).N })
		if got != final || final < 500 {
			t.Fatalf("the save holds %d steps; the host took %d", got, final)
		}
	})
}

// TestFencedHostShutsDown: a host whose world another host takes over stops
// on its own; Run says Shutdown and returns the fencing error.
func TestFencedHostShutsDown(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		b := newBed(t)
		db, err := store.Open(context.Background(), filepath.Join(b.dir, "fence.db"), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		st, err := db.OpenWorld(context.Background(), "fence")
		if err != nil {
			t.Fatal(err)
		}
		b.cfg = tandem.HostConfig{Store: st, SaveEvery: time.Second}
		b.side.Update(func(gs *agones.GameServer) { gs.ObjectMeta.Annotations[fleet.WorldKey] = "fence" })
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- fleet.Run(ctx, b.config()) }()
		if err := b.side.WaitCount(t.Context(), "/ready", 1); err != nil {
			t.Fatal(err)
		}
		if _, err := db.OpenWorld(context.Background(), "fence"); err != nil { // the other host
			t.Fatal(err)
		}
		err = <-done
		if !errors.Is(err, store.ErrFenced) {
			t.Fatalf("Run of a fenced host: %v", err)
		}
		if b.side.Count("/shutdown") != 1 {
			t.Fatalf("calls %v: want Shutdown", paths(b.side.Calls()))
		}
		b.side.Close()
	})
}

// redialer is a client's way back to the host: it dials the in-memory
// network again, unless blocked (the player is gone for good).
type redialer struct {
	net   *mem.Network
	mu    sync.Mutex
	conns []*mem.Conn
	block bool
}

func (r *redialer) dial(ctx context.Context) (transport.Conn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.block {
		return nil, errors.New("no route")
	}
	tc, err := r.net.Dial(ctx, "host")
	if err == nil {
		r.conns = append(r.conns, tc.(*mem.Conn))
	}
	return tc, err
}

// cut makes the newest connection go dark; block keeps the client from
// coming back.
func (r *redialer) cut(block bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.block = block
	r.conns[len(r.conns)-1].Cut()
}

// TestPlayersThroughTheGraceWindow: a player whose connection breaks stays
// in the list while it may resume; it resumes inside its grace window
// without being added again;
// when it breaks again and does not come back, it is removed once its grace
// window (10 s here) closes: one add, one remove in all.
func TestPlayersThroughTheGraceWindow(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		b := newBed(t)
		b.cfg.Grace = 10 * time.Second
		var mu sync.Mutex
		var events []string
		b.open = func(string) error { return nil }
		cfg := b.config()
		open := cfg.Open
		cfg.Open = func(ctx context.Context, world string) (fleet.Host, error) {
			h, err := open(ctx, world)
			if err == nil {
				h.OnEvent(func(e tandem.Event) {
					mu.Lock()
					events = append(events, e.Kind.String())
					mu.Unlock()
				})
			}
			return h, err
		}
		seen := func(kind string) int {
			mu.Lock()
			defer mu.Unlock()
			n := 0
			for _, k := range events {
				if k == kind {
					n++
				}
			}
			return n
		}
		until := func(what string, ok func() bool) {
			t.Helper()
			for i := 0; !ok(); i++ {
				if i > 600 {
					t.Fatalf("no %s after 60 s; events %q", what, events)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		stop := b.run(cfg)
		if err := b.side.WaitCount(t.Context(), "/ready", 1); err != nil {
			t.Fatal(err)
		}
		rd := &redialer{net: b.net}
		tc, err := rd.dial(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		c, err := tandem.NewClient(testGame(&stall{}), tc, tandem.ClientConfig[move]{Name: "ann", Dial: rd.dial})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go c.Run(ctx)
		until("join", func() bool { return c.State() == session.Playing })
		until("listing", func() bool { return slices.Equal(listValues(b.side), []string{"1"}) })

		// The link goes dark and the client cannot come back at first: the
		// host sees the break, and holds ann's place.
		rd.cut(true)
		until("disconnect", func() bool { return seen("disconnected") == 1 })
		time.Sleep(time.Second)
		if got := listValues(b.side); !slices.Equal(got, []string{"1"}) {
			t.Fatalf("the list holds %q in ann's grace window", got)
		}
		rd.mu.Lock()
		rd.block = false
		rd.mu.Unlock()
		until("resume", func() bool { return seen("resumed") == 1 })
		time.Sleep(time.Second)
		if got := listValues(b.side); !slices.Equal(got, []string{"1"}) {
			t.Fatalf("the list holds %q after ann resumed", got)
		}
		if a, r := listCalls(b.side, "1"); a != 1 || r != 0 {
			t.Fatalf("across a resume ann was added %d and removed %d times, want added once", a, r)
		}

		gone := seen("disconnected")
		rd.cut(true)
		until("disconnect", func() bool { return seen("disconnected") > gone })
		broke := time.Now()
		time.Sleep(5 * time.Second)
		if got := listValues(b.side); !slices.Equal(got, []string{"1"}) {
			t.Fatalf("the list holds %q 5 s into ann's grace window; want ann still listed", got)
		}
		until("leave", func() bool { return seen("left") == 1 })
		if d := time.Since(broke); d < 5*time.Second || d > 11*time.Second {
			t.Errorf("ann left %v after the host saw the break, want at the end of the 10 s window", d)
		}
		until("removal", func() bool { return len(listValues(b.side)) == 0 })
		if a, r := listCalls(b.side, "1"); a != 1 || r != 1 {
			t.Errorf("ann was added %d and removed %d times, want once each", a, r)
		}
		cancel()
		c.Close()
		if err := stop(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTermForARestartKeepsThePlayers: with RestartOnTerm the end of Run
// closes the host for a restart: the final save keeps the player's place
// (a host started on it restores her), where a plain end lets her go.
func TestTermForARestartKeepsThePlayers(t *testing.T) {
	for _, restart := range []bool{true, false} {
		b := newBed(t)
		b.cfg = tandem.HostConfig{Grace: 30 * time.Second}
		world := fmt.Sprintf("kept-%v", restart)
		b.side.Update(func(gs *agones.GameServer) { gs.ObjectMeta.Annotations[fleet.WorldKey] = world })
		cfg := b.config()
		cfg.RestartOnTerm = restart
		stop := b.run(cfg)
		if err := b.side.WaitCount(t.Context(), "/ready", 1); err != nil {
			t.Fatal(err)
		}
		_, leave := b.join("ann", tandem.ClientConfig[move]{})
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		leave()
		h, err := tandem.NewHost(testGame(&stall{}), tandem.HostConfig{SaveTo: filepath.Join(b.dir, world+".db")})
		if err != nil {
			t.Fatal(err)
		}
		got := h.Restored().Players
		h.Close()
		want := 0
		if restart {
			want = 1
		}
		if got != want {
			t.Fatalf("RestartOnTerm %v: the save holds %d players, want %d", restart, got, want)
		}
	}
}

// TestUnnamedWorldHoldsNoLease: an Open that gives the unnamed world a
// store (the store's default world, the same for every warm server) is
// refused: Run ends with an error saying so, before Ready.
func TestUnnamedWorldHoldsNoLease(t *testing.T) {
	b := newBed(t)
	cfg := b.config()
	open := cfg.Open
	cfg.Open = func(ctx context.Context, world string) (fleet.Host, error) {
		if world == "" {
			return tandem.NewHost(testGame(&stall{}), tandem.HostConfig{SaveTo: filepath.Join(b.dir, "default.db")})
		}
		return open(ctx, world)
	}
	err := fleet.Run(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), "lease") {
		t.Fatalf("Run with an unnamed world in a store: %v, want a refusal naming the lease", err)
	}
	if n := b.side.Count("/ready"); n != 0 {
		t.Fatalf("Ready said %d times for a refused world", n)
	}
}

// TestEmptyWorldShutsDown: with EmptyFor, an allocated world that nobody
// plays in for that long is saved and its server says Shutdown, Run
// returning nil; a player in it holds it open, and the unnamed world of a
// warm server is never ended so.
func TestEmptyWorldShutsDown(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		b := newBed(t)
		cfg := b.config()
		cfg.EmptyFor = 30 * time.Second
		done := make(chan error, 1)
		go func() { done <- fleet.Run(t.Context(), cfg) }()
		if err := b.side.WaitCount(t.Context(), "/ready", 1); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * cfg.EmptyFor)
		synctest.Wait()
		if n := b.side.Count("/shutdown"); n != 0 {
			t.Fatalf("the warm server's unnamed world said Shutdown %d times", n)
		}
		b.side.Allocate(nil, map[string]string{fleet.WorldKey: "quiet"})
		for len(b.worlds()) < 2 {
			time.Sleep(100 * time.Millisecond)
		}
		_, leave := b.join("ann", tandem.ClientConfig[move]{})
		time.Sleep(2 * cfg.EmptyFor)
		synctest.Wait()
		if n := b.side.Count("/shutdown"); n != 0 {
			t.Fatalf("Shutdown while ann plays (%d calls)", n)
		}
		leave()
		left := time.Now()
		var err error
		select {
		case err = <-done:
		case <-time.After(2 * cfg.EmptyFor):
			t.Fatal("the world was not ended a minute after ann left")
		}
		if waited := time.Since(left); err != nil || waited < cfg.EmptyFor || waited > cfg.EmptyFor+2*time.Second {
			t.Fatalf("Run ended %v after ann left with %v; want nil, EmptyFor (%v) later", waited, err, cfg.EmptyFor)
		}
		if n := b.side.Count("/shutdown"); n != 1 {
			t.Fatalf("%d Shutdown calls, want 1", n)
		}
		var final uint64
		b.host().Do(func(w *tandem.World) { final = ecs.Resource[steps](w.ECS).N })
		h, err := tandem.NewHost(testGame(&stall{}), tandem.HostConfig{SaveTo: filepath.Join(b.dir, "quiet.db")})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		var got uint64
		h.Do(func(w *tandem.World) { got = ecs.Resource[steps](w.ECS).N })
		if got != final || final < 60*60 {
			t.Fatalf("the save holds %d steps; the host took %d", got, final)
		}
	})
}
