package tandem

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/interp"
)

// Local is a game played on one machine, with no network: the same game as
// a host's, with nobody to join. It is also the part of a Host that
// simulates. Create it with NewLocal.
//
// Run (or Advance, from a loop of the game's own) steps the world at its fixed
// rate; SetInput gives the input of the player at this machine; View lets
// drawing look at the world between steps. Those three are safe from any
// goroutine; the world itself belongs to whichever holds it: a system, a
// hook, or a View or Do callback.
type Local[I comparable] struct {
	loop
	g      *Game[I]
	keys   heldInput[I]
	closed atomic.Bool // Close was called (a game alone)
	// A game alone's commands (Give): the last operation id given, those
	// given through the World waiting for the next step, and the receipts'
	// observers.
	ops      atomic.Uint64
	later    aloneMail
	receipts observers[Receipt]
}

// LocalConfig tunes a Local (and the simulating part of a Host). The zero
// value is a game on the real clock.
type LocalConfig struct {
	// Clock is the time source. Default clock.Real.
	Clock clock.Clock
	// Interp tunes how entities are drawn between steps; its Step is the
	// Game's.
	Interp interp.Config
	// Name is the name of the player at this machine in the roster
	// (Game.Roster) of a game played alone. Default "player".
	Name string
	// Logger hears what the engine has to say that no call returns: Run,
	// View, Do, Step or Advance waiting for the world while one call of the
	// game's code has held it for seconds (most often a call from inside
	// that code, which waits for itself). Nil: slog.Default().
	Logger *slog.Logger
}

// NewLocal builds g's world for play on this machine: the world, the
// schedule, the physics, g.Setup, and the input of the player here routed to
// the entities with Input that no peer owns.
func NewLocal[I comparable](g *Game[I], cfg LocalConfig) (*Local[I], error) {
	l, err := newLocal(g, Alone, cfg)
	if err != nil {
		return nil, err
	}
	if g.Roster {
		name := cfg.Name
		if name == "" {
			name = "player"
		}
		newRoster(l.w, nil).add(ecs.HostPeer, name)
	}
	return newLocalGame(l), nil
}

func newLocal[I comparable](g *Game[I], r Role, cfg LocalConfig) (*Local[I], error) {
	if err := g.check(r); err != nil {
		return nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	l := &Local[I]{g: g}
	l.clk = cfg.Clock
	l.mu.ch = make(chan struct{}, 1)
	l.mu.log = cfg.Logger
	l.w = g.newWorld(r, cfg.Clock, false)
	// An entity made between steps (a Join hook answering a handshake, a
	// Do) with its Prev unset is drawn where it was made, not at the
	// origin, until its first step.
	l.settle = func() {
		if w := l.w; w != nil && w.ECS != nil {
			w.drawn.atRest(w.ECS, w.ECS.Journal().Spawned(w.ECS), true)
		}
	}
	ic := cfg.Interp
	ic.Step = g.step()
	l.ip = interp.New(l.w.ECS, cfg.Clock, ic)
	return l, nil
}

// routeLocal adds the input routing of a machine that simulates everything,
// with source giving a peer's input for the frame.
func (l *Local[I]) routeLocal(source inputSource[I]) {
	l.w.Schedule.AddTo(ecs.StageInput, "tandem.inputs", ecs.Reporting(newInputRoute(source)))
}

// SetInput sets the input of the player at this machine: every entity with
// Input that the host owns (or that is not networked) takes it, from the next
// step on, until the next call. Safe from any goroutine, inside callbacks,
// hooks and observers too.
func (l *Local[I]) SetInput(in I) { l.keys.set(in) }

// World returns the world. Use it between steps only: from a system or hook,
// inside View or Do, or while nothing runs the loop.
func (l *Local[I]) World() *World { return l.w }

// Run steps the world at its fixed rate on the calling goroutine until ctx is
// done (it returns nil) or Close is called (ErrClosed). A window draws from
// another goroutine with View meanwhile.
func (l *Local[I]) Run(ctx context.Context) error { return l.run(ctx) }

// ErrClosed is returned by Run when the game alone, the host or the client
// was closed, and by what is given to a closed one.
var ErrClosed = errors.New("tandem: closed")

// newLocalGame is NewLocal with the input routing of a lone game, and its
// end at Close.
func newLocalGame[I comparable](l *Local[I]) *Local[I] {
	l.routeLocal(func(p ecs.PeerID) (routed[I], bool) {
		return routed[I]{value: l.keys.get(), live: true, view: float64(l.w.ECS.Frame())}, p == ecs.HostPeer
	})
	l.w.giver = l.giveNext
	l.w.Schedule.AddTo(ecs.StageInput, "tandem.commands", ecs.SystemFunc(l.runGiven))
	l.ready = func(look bool) bool { return look || !l.closed.Load() }
	l.done = func() error {
		if l.closed.Load() {
			return ErrClosed
		}
		return nil
	}
	return l
}

// Err returns nil: a game played alone does not stop by itself. (A Host's
// Err says why the host stopped.)
func (l *Local[I]) Err() error { return nil }

// Close ends a game played alone: its Run returns ErrClosed at its next
// turn, and Advance and Step run no step from then on; View and Do still
// look at the world as it was; Give and RunAlone fail with ErrClosed. It
// returns nil, and a second call does nothing. A Host has a Close of its
// own, which closes the host; its Local's (Host.Local) does nothing for it.
// Safe from any goroutine, inside callbacks, hooks, systems and observers
// too (the step under way finishes).
func (l *Local[I]) Close() error {
	l.closed.Store(true)
	return nil
}
