package tandem

import (
	"context"
	"time"
)

// Session is what a game's loop and window drive, whichever way the game is
// played: a Local (alone), a Host, or a Client. A program that plays all
// three picks one at start and keeps the interface; its loop and drawing
// are written once. Each method is documented on the three types; all are
// safe from any goroutine, as there.
type Session[I comparable] interface {
	// SetInput sets the input of the player at this machine.
	SetInput(in I)
	// Advance runs the steps that the time elapsed holds.
	Advance() int
	// Step runs one step now, whatever the clock says.
	Step()
	// Run steps at the fixed rate until ctx is done or the session ends.
	Run(ctx context.Context) error
	// View lets drawing look at the world between steps.
	View(now time.Time, draw func(v *View))
	// Do runs fn with the world between steps.
	Do(fn func(w *World))
	// Ticks counts the loop's turns (a health check watches it).
	Ticks() uint64
	// World returns the world, for use between steps only.
	World() *World
	// Err says why the session stopped by itself, nil otherwise.
	Err() error
	// Close ends the session: leaves the game, or closes the host.
	Close() error
}

// The three ways to play are each a Session.
var (
	_ Session[struct{}] = (*Local[struct{}])(nil)
	_ Session[struct{}] = (*Host[struct{}])(nil)
	_ Session[struct{}] = (*Client[struct{}])(nil)
)

// Err returns nil: a game played alone does not stop by itself. (A Host's
// Err says why the host stopped.) It makes Local a Session.
func (l *Local[I]) Err() error { return nil }

// Close returns nil: a game played alone holds nothing to release; stop
// its Run by ending its context. (A Host's Close closes the host.) It makes
// Local a Session.
func (l *Local[I]) Close() error { return nil }
