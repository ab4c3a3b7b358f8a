package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tandem-go/tandem"
)

// Options are what a game adds to the match its flags open (Open). The
// zero value opens the flags' match with the engine's settings.
type Options[I comparable] struct {
	// World names the game's world in the save (Flags.OpenSave). Default
	// "main". A game that renames it starts a new world in the same save.
	World string
	// Headless says nobody plays at this machine's keyboard: a host's own
	// player takes no place (Flags.HostConfig(false)), so every place of
	// -max-players is a peer's. A client and a game alone are made as
	// without it (whether a game alone spawns a player of its own is the
	// Game's Setup).
	Headless bool
	// Host, if set, adds the game's settings to the host's (the flags'
	// Flags.HostConfig) before the host is made: its spectators, an Admit
	// of its own, hooks. The save's (Save.Configure) come after it and
	// call the hooks it set too.
	Host func(hc *tandem.HostConfig)
	// Client, if set, adds the game's settings to a client's (the flags'
	// name, -spectate, -ticket and the dialer) before the client is made:
	// a computer player's Input, prediction settings.
	Client func(cfg *tandem.ClientConfig[I])
	// Local, if set, adds the game's settings to a game played alone (the
	// flags' name) before it is made.
	Local func(cfg *tandem.LocalConfig)
	// NewWorld names the game's own flags that shape a new world only
	// (its size, its decor: "props"), without the dash. A host that
	// restores its world from the save does not apply them: given such a
	// flag, Open says so on Stderr, with how to start a new world (-save ''
	// or another -save FILE).
	NewWorld []string
	// Stdout takes the lines a player reads: the host's join lines
	// (Flags.Listen) and what the restart signal does. Default os.Stdout.
	Stdout io.Writer
	// Stderr takes the log: where the world is saved, the save's restores
	// and failures, a host's events (LogHost), a client's joins, breaks
	// and resumes (LogClient), the QUIC transport's notices, and the
	// engine's (Log) unless the game's Host, Client or Local sets a
	// Logger; each line written whole, under one lock. Default os.Stderr.
	Stderr io.Writer
}

// Match is a game played alone, hosted or joined, as a game's flags say
// (Open): the session, and around it what the flags opened for it (a
// host's save, listener and join lines, the logs, the restart signal)
// with the figures a game's loop and its end need. It is a tandem.Session
// (SetInput, Advance, View, Do, tandem.Give...): Close and Err are the
// match's own, the rest the session's. Its methods are safe from any
// goroutine, so a window may draw on one while Play steps on another;
// like the session's, Close and those that look at the world (Played)
// must not be called from inside a View or Do callback, a system, a hook
// or an observer.
type Match[I comparable] struct {
	// Session is the Local, Host or Client the match plays: set by Open,
	// not to be replaced. Close the Match, not its Session: the match's
	// Close closes the save and honours the restart signal too.
	tandem.Session[I]

	app      string
	stdout   io.Writer
	host     *tandem.Host[I]
	client   *tandem.Client[I]
	hosting  *Hosting
	save     *Save
	first    int // the frame the match began at here (a host restored from a save: the save's)
	receipts Receipts

	mu      sync.Mutex
	restart *Restart // RunHeadless's watch of RestartSignal, held until Close
	asked   bool     // an earlier RunHeadless's signal asked for a restart

	closeOnce sync.Once
	closeErr  error
}

// Open opens the match f says: a client of the host -join names (dialed
// now, and again after a break: Flags.Dialer; its joins, breaks and resumes
// logged: LogClient), a host with -host (the save -save names, with the
// host's identity: Flags.OpenSave and Save.Configure; the QUIC listener on
// -addr and the join lines printed: Flags.Listen; its events logged:
// LogHost), else g played alone. f must have been checked (Flags.Check);
// Open keeps a copy. o adds the game's settings, and says where the lines
// go.
//
// The match is not stepped yet: drive it with Play beside a window, or
// RunHeadless, or the session's own Run and Advance; then Close it. A
// client's first connection is made before Open returns (up to the
// client's JoinTimeout when the host does not answer). A save of another
// version of the game is an error that says what to do (Save.Explain).
// -agones is not a match: it serves many, with Flags.ServeFleet.
func Open[I comparable](f Flags, g *tandem.Game[I], o Options[I]) (*Match[I], error) {
	if f.App == "" {
		return nil, errors.New("launch: Flags.App is empty: set it to the game's name before Register and check the flags (Flags.Check) before Open")
	}
	if f.Agones {
		return nil, errors.New("launch: -agones serves the worlds of a fleet, not one match: run Flags.ServeFleet instead of Open")
	}
	if o.World == "" {
		o.World = "main"
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	o.Stderr = lockWriter(o.Stderr) // one lock for every line, the transport's too
	f.log = Log(f.App, o.Stderr)    // f is Open's own copy
	m := &Match[I]{app: f.App, stdout: o.Stdout}
	switch {
	case f.Join != "":
		if err := m.join(&f, g, o); err != nil {
			return nil, err
		}
	case f.Host:
		if err := m.hostMatch(&f, g, o); err != nil {
			return nil, err
		}
	default:
		cfg := tandem.LocalConfig{Name: f.Name}
		if o.Local != nil {
			o.Local(&cfg)
		}
		if cfg.Logger == nil {
			cfg.Logger = f.log
		}
		l, err := tandem.NewLocal(g, cfg)
		if err != nil {
			return nil, err
		}
		m.Session = l
	}
	m.OnReceipt(m.receipts.Add)
	return m, nil
}

// join opens a client's match.
func (m *Match[I]) join(f *Flags, g *tandem.Game[I], o Options[I]) error {
	dial, err := f.Dialer()
	if err != nil {
		return err
	}
	cfg := tandem.ClientConfig[I]{Name: f.Name, Spectator: f.Spectate, Dial: dial, TicketFile: f.Ticket}
	if o.Client != nil {
		o.Client(&cfg)
	}
	if cfg.Logger == nil {
		cfg.Logger = f.log
	}
	c, err := tandem.NewClient(g, nil, cfg) // it dials first, with Dial
	if err != nil {
		return err
	}
	LogClient(c, f.App, f.Join, o.Stderr)
	m.Session, m.client = c, c
	return nil
}

// tellNotApplied says on w which of the flags named (Options.NewWorld) were
// given to a host whose world of entities networked entities came from its
// save, and so were not applied.
func (f *Flags) tellNotApplied(names []string, entities int, w io.Writer) {
	var given []string
	for _, n := range names {
		if f.Given(n) {
			given = append(given, "-"+n)
		}
	}
	if len(given) == 0 {
		return
	}
	fmt.Fprintf(w, "%s: %s not applied: the world was restored from the save (%d networked entities), as it was; for a new world give -save '' (in memory) or another -save FILE\n",
		f.App, strings.Join(given, ", "), entities)
}

// hostMatch opens a host's match: its save, the host, its listener.
func (m *Match[I]) hostMatch(f *Flags, g *tandem.Game[I], o Options[I]) error {
	sv, err := f.OpenSave(o.World, o.Stderr)
	if err != nil {
		return err
	}
	hc := f.HostConfig(!o.Headless)
	if o.Host != nil {
		o.Host(&hc)
	}
	if hc.Logger == nil {
		hc.Logger = f.log
	}
	sv.Configure(&hc, o.Stderr)
	restored := false
	if told := hc.OnRestore; told != nil {
		hc.OnRestore = func(r tandem.RestoreReport) {
			restored = restored || r.Seq != 0 // not a store with no save yet
			told(r)
		}
	}
	h, err := tandem.NewHost(g, hc)
	if err != nil {
		err = sv.Explain(err) // a save of another version of the game
		sv.Close()
		return err
	}
	entities := 0
	h.Do(func(w *tandem.World) { entities, m.first = w.ECS.Networked(), int(w.ECS.Frame()) })
	if restored {
		f.tellNotApplied(o.NewWorld, entities, o.Stderr)
	}
	hosting, err := f.Listen(o.Stdout, sv.Identity(), entities)
	if err != nil {
		h.Close()
		sv.Close()
		return err
	}
	LogHost(h, f.App, o.Stderr)
	h.Serve(hosting.Listener)
	m.Session, m.host, m.hosting, m.save = h, h, hosting, sv
	return nil
}

// Host returns the host of a hosted match, for what only a host does
// (Stats, AppendPeerStats, Focus...); nil alone or joined.
func (m *Match[I]) Host() *tandem.Host[I] { return m.host }

// Client returns the client of a joined match, for what only a client
// does (Stats, State, Local, Joined...); nil alone or hosting.
func (m *Match[I]) Client() *tandem.Client[I] { return m.client }

// Hosting returns a hosted match's join lines (and its listener, which the
// host owns: Host.Serve closes it with the host); nil alone or joined.
func (m *Match[I]) Hosting() *Hosting { return m.hosting }

// Receipts returns the receipts of the commands given at this machine
// (tandem.Give on the match), kept for a HUD until it takes them.
func (m *Match[I]) Receipts() *Receipts { return &m.receipts }

// Played returns the frames that count towards a game's -ticks: those this
// program simulated alone or hosting (a host restored from a save counts
// from the save's frame), those played since the join finished on a client
// (Client.Frames). It takes the world between two steps.
func (m *Match[I]) Played() int {
	n := 0
	m.Do(func(w *tandem.World) {
		if m.client != nil {
			n = m.client.Frames()
		} else {
			n = int(w.ECS.Frame()) - m.first
		}
	})
	return n
}

// Ended reports whether the match ended by itself: a client's session
// closed (its host left or shut down, the player could not come back, or
// the first join did not finish: ClientConfig.JoinTimeout), or a host
// stopped on its own (another host took its world: Host.Err). Err says
// why; a game played alone never ends by itself. One atomic look, without
// the world.
func (m *Match[I]) Ended() bool {
	switch {
	case m.client != nil:
		return m.client.State() == tandem.Closed
	case m.host != nil:
		return m.host.Err() != nil
	}
	return false
}

// Err says why the match ended by itself, nil while it runs and after an
// orderly end (Close; on a client, the host shutting down after the join).
// A client's says which it was, to show as it is: "could not join: …" when
// the session closed before the first join finished (the host refused the
// player, with its reason; the join timed out; the connection was lost
// before the host answered), "the session ended: …" when it failed after
// (the player could not come back after a break). A host's is Host.Err.
func (m *Match[I]) Err() error {
	if m.client == nil {
		return m.Session.Err()
	}
	if m.client.State() != tandem.Closed {
		return nil
	}
	return clientErr(m.client.Joined(), m.client.Err())
}

// clientErr is a closed client's Err: err, the session's own, said as a
// failed join or a failed session.
func clientErr(joined bool, err error) error {
	switch {
	case !joined && err == nil:
		return errors.New("could not join: the connection closed") // this side left, most likely
	case !joined:
		return fmt.Errorf("could not join: %w", err)
	case err != nil:
		return fmt.Errorf("the session ended: %w", err)
	}
	return nil
}

// Close ends the match and returns what closing it returned: a client
// leaves the game (the host lets its player go at once); a host closes
// (its final save, its players let go and told), or closes for a restart
// when RestartSignal asked for one during RunHeadless (Host.CloseForRestart:
// its players come back to the host started next on the same save), then
// its save's store is closed and the signal let go; a game alone stops.
// A second Close returns what the first did. A client's error is its
// connection's, which a game may ignore; a host's is its final save's,
// which lost what the save had not kept. Call it once the loop that
// drives the match has returned (Play, RunHeadless, Run), or to end that
// loop (Run returns when the session is closed).
func (m *Match[I]) Close() error {
	m.closeOnce.Do(func() { m.closeErr = m.close() })
	return m.closeErr
}

// close is Close's work, done once.
func (m *Match[I]) close() error {
	if m.host == nil {
		return m.Session.Close()
	}
	m.mu.Lock()
	r, asked := m.restart, m.asked
	m.mu.Unlock()
	if r != nil {
		r.Stop()
		asked = asked || r.Asked()
	}
	var err error
	if asked {
		err = m.host.CloseForRestart()
	} else {
		err = m.host.Close()
	}
	if cerr := m.save.Close(); err == nil {
		err = cerr
	}
	if r != nil {
		r.Release() // closed: a hangup is the process's again
	}
	return err
}

// Play steps the match at its fixed rate on the calling goroutine until
// ctx is done, the match has played ticks frames (Played; 0: no bound) or
// it ends by itself (Ended), whatever else the program does: a window
// draws on another goroutine meanwhile (View). It returns why the match
// ended by itself (Err), or why the session's Run stopped, else nil; ctx
// ending is no error. It does not close the match.
//
// A networked match runs on the session's Run (a client applies a join's
// pages between steps as fast as they come; a host answers handshakes as
// they arrive), looked at once a step for its end and its ticks, so it may
// run a step past ticks. A game alone with ticks stops on the exact frame,
// stepping in real time and never catching up past it.
func (m *Match[I]) Play(ctx context.Context, ticks int) error {
	var step time.Duration
	m.Do(func(w *tandem.World) { step = w.Schedule.StepDuration() })
	tick := time.NewTicker(step)
	defer tick.Stop()
	if m.alone() && ticks > 0 {
		return m.stepTo(ctx, ticks, tick)
	}
	run, stop := context.WithCancel(ctx)
	defer stop()
	ran := make(chan error, 1)
	go func() { ran <- m.Run(run) }()
	end := func(err error) error {
		stop()
		<-ran
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return end(nil)
		case err := <-ran:
			// Run ended by itself: a client's session ended, or a host
			// stopped on an error (its store fenced, say).
			switch merr := m.Err(); {
			case ctx.Err() != nil:
				return nil // the caller ended the match meanwhile
			case merr != nil:
				return merr
			case errors.Is(err, tandem.ErrClosed):
				return nil
			default:
				return err
			}
		case <-tick.C:
		}
		// An end of the match counts before ticks: a session that failed
		// on the step that reached ticks failed.
		if m.Ended() {
			return end(m.Err())
		}
		if ticks > 0 && m.Played() >= ticks {
			return end(nil)
		}
	}
}

// alone reports whether the match is a game played alone.
func (m *Match[I]) alone() bool { return m.host == nil && m.client == nil }

// stepTo steps a game played alone at its fixed rate until it has played
// ticks frames.
func (m *Match[I]) stepTo(ctx context.Context, ticks int, tick *time.Ticker) error {
	m.Advance() // starts the schedule's clock
	for m.Played() < ticks {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		m.Do(func(w *tandem.World) {
			w.Schedule.MaxCatchUp = min(8, max(0, ticks+m.first-int(w.ECS.Frame())))
		})
		m.Advance()
	}
	return nil
}

// RunHeadless runs the match with no window on the calling goroutine until
// ctx ends (give it one that SIGINT and SIGTERM end:
// signal.NotifyContext), the match has played ticks frames (0: no bound)
// or it ends by itself, and returns as Play does. A game alone with ticks
// steps as fast as it can, to the exact frame: a test, or a benchmark of
// the game's rules. Otherwise it is Play, and on a host RestartSignal
// (SIGHUP) ends it too, asking for a restart when the host can restart
// (WatchRestart, whose line goes to Options.Stdout): Close then closes the
// host for a restart, and keeps the signal caught until then, so a second
// one during the final save does not kill the process. It does not close
// the match.
func (m *Match[I]) RunHeadless(ctx context.Context, ticks int) error {
	if m.alone() && ticks > 0 {
		for m.Played() < ticks && ctx.Err() == nil {
			m.Step()
		}
		return nil
	}
	if m.host != nil {
		var r *Restart
		ctx, r = WatchRestart(ctx, m.host, m.app, m.stdout)
		defer r.Stop()
		m.mu.Lock()
		old := m.restart
		m.restart = r
		m.mu.Unlock()
		if old != nil {
			// An earlier run's watch: its answer is kept, its signal let
			// go (this one catches it now).
			old.Release()
			m.mu.Lock()
			m.asked = m.asked || old.Asked()
			m.mu.Unlock()
		}
	}
	return m.Play(ctx, ticks)
}

// Receipts keeps the receipts of the commands given at this machine until
// a HUD takes them (Take): the newest 8 not yet taken, the older dropped.
// The zero value is ready; Open gives each Match one (Match.Receipts).
// Safe for concurrent use: the simulation adds them, the window takes
// them.
type Receipts struct {
	mu       sync.Mutex
	fresh    []tandem.Receipt
	newest   uint64 // the operation id of the newest receipt added
	answered bool   // a receipt was added
}

// receiptsKept is how many receipts not yet taken a Receipts keeps.
const receiptsKept = 8

// Add keeps rc: give it to a session as its receipt observer
// (Session.OnReceipt(r.Add)), which calls it on the goroutine that steps
// the session (a game alone, on Give's).
func (r *Receipts) Add(rc tandem.Receipt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.fresh) == receiptsKept {
		copy(r.fresh, r.fresh[1:])
		r.fresh = r.fresh[:receiptsKept-1]
	}
	r.fresh = append(r.fresh, rc)
	r.newest, r.answered = rc.Op, true
}

// Answered reports whether the newest receipt added answers operation op:
// called right after tandem.Give, whether the command was answered at once
// (a game alone runs it as it is given), so a HUD says "sent" only for one
// still on its way.
func (r *Receipts) Answered(op uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.answered && r.newest == op
}

// Take appends to dst the receipts added since the last Take, oldest
// first, forgets them, and returns the extended slice: a HUD calls it
// once a frame with a slice of its own (dst[:0]), allocating nothing
// once it is large enough.
func (r *Receipts) Take(dst []tandem.Receipt) []tandem.Receipt {
	r.mu.Lock()
	defer r.mu.Unlock()
	dst = append(dst, r.fresh...)
	clear(r.fresh) // the reasons' strings go
	r.fresh = r.fresh[:0]
	return dst
}
