package fleet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/agones"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/store"
)

// Names Run uses on the GameServer.
const (
	// WorldKey is the label or annotation that names the world a server
	// loads: set it in the Fleet's template (one world per fleet: one
	// replica, since each server of the template opens the world as it
	// starts and takes it from the one before) or in a
	// GameServerAllocation's metadata (the world of this allocation). A
	// label wins over an annotation.
	WorldKey = "tandem.dev/world"
	// PinAnnotation is the key Run publishes the certificate's fingerprint
	// under with SetAnnotation; the GameServer shows it as
	// agones.SDKPrefix+PinAnnotation ("agones.dev/sdk-pin").
	PinAnnotation = "pin"
	// PlayersList is the default List the players are kept in.
	PlayersList = "players"
)

// Host is what Run needs of a host; *tandem.Host[I] has it, for any input
// type I.
type Host interface {
	// Run steps the world until ctx ends or the host stops.
	Run(ctx context.Context) error
	// Serve takes connections from l until the host closes (and closes l).
	Serve(l transport.Listener)
	// OnEvent adds an observer of the host's events, and returns the
	// function that removes it.
	OnEvent(fn func(tandem.Event)) (remove func())
	// Do runs fn with the world locked between steps.
	Do(fn func(w *tandem.World))
	// Plays and AppendPlayers say who holds a player's place, on the
	// simulation goroutine.
	Plays(peer ecs.PeerID) bool
	AppendPlayers(dst []ecs.PeerID) []ecs.PeerID
	// Ticks counts the loop's turns, from any goroutine.
	Ticks() uint64
	// Close fences, drains and saves the world; Save tries a failed final
	// save again. CloseForRestart does the same, keeping the players'
	// places in the save and telling them to come back
	// (Config.RestartOnTerm).
	Close() error
	CloseForRestart() error
	Save(ctx context.Context) error
	// Done is closed when the host stopped; Err says why it stopped on its
	// own.
	Done() <-chan struct{}
	Err() error
}

// Config is what Run ties together.
type Config struct {
	// SDK is the client of the pod's SDK server (agones.New).
	SDK *agones.Client
	// Listener is the host's listener, already bound (Ready is said only
	// after it is). Run serves it with each host it opens, and closes it at
	// the end.
	Listener transport.Listener
	// Pin is the fingerprint of the certificate the listener presents (hex
	// SHA-256, quicnet.Transport.Fingerprint), published before Ready. Empty:
	// nothing is published.
	Pin string
	// Open builds the host of world (its name on the GameServer, "" when
	// none is named yet): it restores the world from the game's store and
	// takes its lease. Run steps and serves the host it returns, and closes
	// it. Called on Run's goroutine. The unnamed world of a warm server is
	// kept in memory only: opened from a store, "" is the store's default
	// world (tandem.HostConfig.World), the same for every warm server, and
	// each would take its lease from the one before and stop it. Run
	// refuses a host for "" that holds a stored world, but only once Open
	// built it, so after its lease was taken (the server that held the
	// world is fenced by then): the refusal makes the mistake loud, it
	// does not undo it. Build "" without HostConfig.SaveTo or Store.
	Open func(ctx context.Context, world string) (Host, error)
	// WorldKey is the label or annotation naming the world. Default
	// WorldKey.
	WorldKey string
	// Players is the List the players are kept in. Default PlayersList.
	Players string
	// HealthPeriod is how often Health is considered. Default half the
	// GameServer's health period (Spec.Health.PeriodSeconds; 2.5 s with
	// Agones' default of 5 s).
	HealthPeriod time.Duration
	// CallTimeout bounds each SDK call. Default 5 s.
	CallTimeout time.Duration
	// FinalSave bounds how long Run tries to land the final save when the
	// first attempt fails, before it shuts down anyway (the receipts of
	// what was not saved were never sent). Default 20 s, within Kubernetes'
	// default termination grace of 30 s.
	FinalSave time.Duration
	// OpenTimeout bounds how long Run tries to open the world an allocation
	// names: Open is called again with backoff while it fails (a store
	// restarting, a lease call timing out), and the world served so far
	// stays until the allocated one is open. Past it Run ends (Shutdown)
	// with Open's error. Default 30 s.
	OpenTimeout time.Duration
	// OnError hears of what Run survives: an SDK call that failed and is
	// retried, a broken watch stream, an allocation naming a second world.
	// Called on Run's goroutines. Default: ignore.
	OnError func(error)
	// OnWorld, if set, hears of each world Run opened, with its name.
	OnWorld func(world string)
	// RestartOnTerm makes the end of Run (SIGTERM: a deploy, a node
	// drained) close the host with CloseForRestart rather than Close: the
	// final save keeps the players' places, and their clients are told to
	// come back rather than that the game ended. A client whose
	// ClientConfig.Dial asks the matchmaker for the server its world is
	// allocated to now resumes there, as the same player, within the grace
	// window (tandem.HostConfig.Grace). For a persistent world; without it
	// the players are let go, and what they keep across servers is the
	// game's state.
	RestartOnTerm bool
	// EmptyFor, if positive, ends Run once the world an allocation named
	// has had no player for this long (none playing, none away within its
	// grace window; spectators do not count), from when it opened: the
	// final save, then Shutdown, and Run returns nil. Agones then replaces
	// the pod with a warm one, so an allocated server nobody came to, or
	// everyone left, is not held until an operator ends it; a stored world
	// is allocated again when players come back. The unnamed world of a
	// warm server never ends so. Zero: Run ends only with ctx or its host.
	EmptyFor time.Duration
}

func (c *Config) defaults() error {
	switch {
	case c.SDK == nil:
		return errors.New("fleet: Config.SDK is nil; make one with agones.New")
	case c.Listener == nil:
		return errors.New("fleet: Config.Listener is nil; bind the host's listener first")
	case c.Open == nil:
		return errors.New("fleet: Config.Open is nil; give the function that builds a world's host")
	}
	if c.WorldKey == "" {
		c.WorldKey = WorldKey
	}
	if c.Players == "" {
		c.Players = PlayersList
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = 5 * time.Second
	}
	if c.FinalSave <= 0 {
		c.FinalSave = 20 * time.Second
	}
	if c.OpenTimeout <= 0 {
		c.OpenTimeout = 30 * time.Second
	}
	if c.OnError == nil {
		c.OnError = func(error) {}
	}
	return nil
}

// WorldOf returns the world gs names under key (a label, else an
// annotation), "" if none.
func WorldOf(gs *agones.GameServer, key string) string {
	if w := gs.ObjectMeta.Labels[key]; w != "" {
		return w
	}
	return gs.ObjectMeta.Annotations[key]
}

// Run runs a host as a game server of an Agones fleet until ctx ends (then
// it returns the final Close's error, nil when the world was saved), or the
// host stops on its own (its error). See the package documentation for the
// order of things. It returns an error without calling Ready when the first
// world does not open or the SDK server cannot be reached before ctx ends.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Listener != nil {
		defer cfg.Listener.Close() // on every way out, a refused Config's too
	}
	if err := cfg.defaults(); err != nil {
		return err
	}
	r := &runner{cfg: cfg}
	// The watch lives until Shutdown is said, past ctx's end.
	wctx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	updates := make(chan *agones.GameServer, 1)
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		cfg.SDK.WatchGameServer(wctx, func(gs *agones.GameServer) {
			select { // keep only the newest
			case <-updates:
			default:
			}
			updates <- gs
		})
	}()
	defer func() { stopWatch(); <-watchDone }()

	var gs *agones.GameServer
	select {
	case gs = <-updates:
	case <-ctx.Done():
		return fmt.Errorf("fleet: no GameServer from the SDK server before the end: %w", ctx.Err())
	}
	r.players = newPlayers(cfg)
	pctx, stopPlayers := context.WithCancel(context.Background())
	playersDone := make(chan struct{})
	go func() { defer close(playersDone); r.players.run(pctx) }()
	defer func() { stopPlayers(); <-playersDone }()
	if err := r.open(ctx, WorldOf(gs, cfg.WorldKey)); err != nil {
		return err
	}

	hctx, stopHealth := context.WithCancel(context.Background())
	healthDone := make(chan struct{})
	period := cfg.HealthPeriod
	if period <= 0 {
		period = time.Duration(max(gs.Spec.Health.PeriodSeconds, 1)) * time.Second / 2
	}
	go func() {
		defer close(healthDone)
		(&agones.HealthPinger{Client: cfg.SDK, Period: period, Progress: r.progress}).Run(hctx)
	}()
	defer func() { stopHealth(); <-healthDone }()

	if cfg.Pin != "" {
		if err := r.call(ctx, func(c context.Context) error { return cfg.SDK.SetAnnotation(c, PinAnnotation, cfg.Pin) }); err != nil {
			return r.end(r.cause(ctx, err))
		}
	}
	if err := r.call(ctx, cfg.SDK.Ready); err != nil {
		return r.end(r.cause(ctx, err))
	}
	var emptyCheck <-chan time.Time
	if cfg.EmptyFor > 0 {
		t := time.NewTicker(min(max(cfg.EmptyFor/8, 100*time.Millisecond), time.Second))
		defer t.Stop()
		emptyCheck = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return r.end(nil)
		case now := <-emptyCheck:
			if r.emptyFor(now) >= cfg.EmptyFor {
				return r.end(nil)
			}
		case <-r.host.Done():
			// It stopped on its own: another host took its world.
			return r.end(r.host.Err())
		case gs := <-updates:
			if err := r.gameServer(ctx, gs); err != nil {
				return r.end(err)
			}
		}
	}
}

// runner is one Run's state, on Run's goroutine but for what says otherwise.
type runner struct {
	cfg     Config
	host    Host
	world   string // the world's name, "" for the unnamed one
	named   bool   // a world named on the GameServer was opened
	refused string // the other world an allocation named, reported once
	stop    context.CancelFunc
	running chan struct{} // closed when the host's Run returned
	players *players

	emptySince time.Time    // when the named world was last seen with no player; zero: one plays
	held       []ecs.PeerID // room for the players of an emptiness check

	gen      atomic.Uint64 // the host's generation: events of an older one are stale
	cur      atomic.Pointer[hostRef]
	ticksSum atomic.Uint64 // the ticks of the hosts closed before
}

// hostRef holds the current host for the health pinger's goroutine.
type hostRef struct{ h Host }

// progress is the health pinger's counter: the loop turns of every host
// opened so far.
func (r *runner) progress() uint64 {
	n := r.ticksSum.Load()
	if ref := r.cur.Load(); ref != nil {
		n += ref.h.Ticks()
	}
	return n
}

// emptyFor returns how long, as of now, the named world has held no
// player (0 for the unnamed world, or while one holds a place).
func (r *runner) emptyFor(now time.Time) time.Duration {
	select {
	case <-r.host.Done():
		return 0 // stopped on its own: Run reports why, not an empty world
	default:
	}
	if !r.named {
		return 0
	}
	var held int
	r.host.Do(func(*tandem.World) {
		r.held = r.host.AppendPlayers(r.held[:0])
		held = len(r.held)
	})
	if held > 0 {
		r.emptySince = time.Time{}
		return 0
	}
	if r.emptySince.IsZero() {
		r.emptySince = now
	}
	return now.Sub(r.emptySince)
}

// open builds the host of world, starts its loop and serves it.
func (r *runner) open(ctx context.Context, world string) error {
	h, err := r.cfg.Open(ctx, world)
	if err != nil {
		if world == "" {
			return fmt.Errorf("fleet: open the host's world: %w", err)
		}
		return fmt.Errorf("fleet: open world %q: %w", world, err)
	}
	if err := unnamedHoldsNoLease(h, world); err != nil {
		h.Close()
		return err
	}
	r.start(h, world)
	return nil
}

// unnamedHoldsNoLease refuses a host Open gave for the unnamed world ("")
// that holds a stored world's lease: every warm server of the fleet would
// take that world from the others (and from the one serving it). Open
// builds the unnamed world in memory, without SaveTo or Store.
func unnamedHoldsNoLease(h Host, world string) error {
	st, ok := h.(interface{ Store() store.World })
	if world != "" || !ok || st.Store() == nil {
		return nil
	}
	return fmt.Errorf("fleet: Open(\"\") gave a host holding the lease of stored world %q: a warm server would take it from every other; build the unnamed world without HostConfig.SaveTo or Store", st.Store().Name())
}

// start steps and serves h, the host of world.
func (r *runner) start(h Host, world string) {
	gen := r.gen.Add(1)
	var ids []ecs.PeerID
	h.Do(func(*tandem.World) { ids = h.AppendPlayers(nil) })
	seed := make([]string, len(ids))
	for i, id := range ids {
		seed[i] = playerValue(id)
	}
	r.players.reset(gen, seed)
	h.OnEvent(func(e tandem.Event) { r.event(gen, h, e) })
	r.host, r.world, r.named = h, world, world != ""
	r.emptySince = time.Now() // its players have EmptyFor to come
	r.cur.Store(&hostRef{h})
	hctx, stop := context.WithCancel(context.Background())
	running := make(chan struct{})
	r.stop, r.running = stop, running
	go func() {
		defer close(running)
		h.Run(hctx)
	}()
	h.Serve(share(r.cfg.Listener))
	if r.cfg.OnWorld != nil {
		r.cfg.OnWorld(world)
	}
}

// event keeps the players list up to date from the host's events, on the
// simulation goroutine: it only records what the list should hold.
func (r *runner) event(gen uint64, h Host, e tandem.Event) {
	switch e.Kind {
	case session.PeerJoined, session.PeerResumed:
		if h.Plays(e.Peer) {
			r.players.want(gen, playerValue(e.Peer), true)
		}
	case session.PeerLeft:
		// A player in its grace window is disconnected, not gone: it
		// leaves when the window closes.
		r.players.want(gen, playerValue(e.Peer), false)
	}
}

// gameServer acts on a change of the GameServer: an allocation naming a
// world loads it, once.
func (r *runner) gameServer(ctx context.Context, gs *agones.GameServer) error {
	if gs.Status.State != agones.StateAllocated {
		return nil
	}
	world := WorldOf(gs, r.cfg.WorldKey)
	switch {
	case world == "" || world == r.world:
		return nil
	case r.named:
		if world != r.refused {
			r.refused = world
			r.cfg.OnError(fmt.Errorf("fleet: allocated for world %q while world %q is loaded; %q stays", world, r.world, r.world))
		}
		return nil
	}
	// The unnamed world gives way to the allocated one once that is open:
	// until then it serves on.
	h, err := r.openRetrying(ctx, world)
	if err != nil {
		return fmt.Errorf("fleet: open world %q: %w", world, err)
	}
	if err := r.closeHost(false); err != nil {
		r.cfg.OnError(fmt.Errorf("fleet: close the unnamed world for %q: %w", world, err))
	}
	r.start(h, world)
	return nil
}

// openRetrying calls Open for world until it succeeds, ctx ends or
// OpenTimeout passes, with backoff, and reports each failure to OnError.
func (r *runner) openRetrying(ctx context.Context, world string) (Host, error) {
	octx, cancel := context.WithTimeout(ctx, r.cfg.OpenTimeout)
	defer cancel()
	wait := 100 * time.Millisecond
	for {
		h, err := r.cfg.Open(octx, world)
		if err == nil {
			return h, nil
		}
		r.cfg.OnError(fmt.Errorf("fleet: open world %q: %w; trying again in %v", world, err, wait))
		t := time.NewTimer(wait)
		select {
		case <-octx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// closeHost closes the current host (for a restart: CloseForRestart) and
// waits for its loop to end.
func (r *runner) closeHost(restart bool) error {
	closeIt := r.host.Close
	if restart {
		closeIt = r.host.CloseForRestart
	}
	err := closeIt()
	r.stop()
	<-r.running
	if errors.Is(err, tandem.ErrWorldHeld) {
		// The game's code on the loop held the world too long for Close to
		// wait; the loop has stopped now.
		err = closeIt()
	}
	r.ticksSum.Add(r.host.Ticks())
	r.cur.Store(nil)
	return err
}

// end closes the host (a failed final save tried again until FinalSave
// passes) and says Shutdown; cause is why Run ends, nil for ctx's end.
func (r *runner) end(cause error) error {
	err := r.closeHost(cause == nil && r.cfg.RestartOnTerm && r.world != "")
	if err != nil && r.host.Err() == nil {
		deadline := time.Now().Add(r.cfg.FinalSave)
		wait := 100 * time.Millisecond
		for err != nil && time.Now().Before(deadline) {
			r.cfg.OnError(fmt.Errorf("fleet: the final save failed, trying again in %v: %w", wait, err))
			time.Sleep(wait)
			ctx, cancel := context.WithTimeout(context.Background(), r.cfg.CallTimeout+time.Until(deadline))
			err = r.host.Save(ctx)
			cancel()
			wait = min(2*wait, 2*time.Second)
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 3*r.cfg.CallTimeout)
	defer cancel()
	if serr := r.call(sctx, r.cfg.SDK.Shutdown); serr != nil && cause == nil {
		cause = serr
	}
	if cause != nil {
		return cause
	}
	if err != nil && !errors.Is(err, tandem.ErrClosed) {
		return fmt.Errorf("fleet: the final save: %w", err)
	}
	return nil
}

// cause is why Run ends after a call that failed: nothing to report when
// ctx ended meanwhile (a SIGTERM during the call), else the call's error.
func (r *runner) cause(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("fleet: %w", err)
}

// call makes one SDK call, trying again with backoff until it succeeds or
// ctx ends (then the last error).
func (r *runner) call(ctx context.Context, fn func(context.Context) error) error {
	wait := 100 * time.Millisecond
	for {
		cctx, cancel := context.WithTimeout(ctx, r.cfg.CallTimeout)
		err := fn(cctx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		r.cfg.OnError(fmt.Errorf("fleet: %w; trying again in %v", err, wait))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// shared is one host's view of the listener Run keeps: closing it stops
// that host's accepting, not the socket.
type shared struct {
	l      transport.Listener
	ctx    context.Context
	cancel context.CancelFunc
}

func share(l transport.Listener) *shared {
	s := &shared{l: l}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s
}

func (s *shared) Accept(ctx context.Context) (transport.Conn, error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	c, err := s.l.Accept(actx)
	if s.ctx.Err() != nil {
		if c != nil {
			c.Close(transport.CloseHostShutdown, "the host is changing worlds; join again")
		}
		return nil, transport.ErrListenerClosed
	}
	return c, err
}

func (s *shared) Addr() net.Addr { return s.l.Addr() }

func (s *shared) Close() error {
	s.cancel()
	return nil
}
