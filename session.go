package tandem

import (
	"context"
	"time"
)

// Session is what a game's loop and window drive, whichever way the game is
// played: a Local (alone), a Host, or a Client. A program that plays all
// three picks one at start and keeps the interface; its loop, its drawing
// and its commands (Give) are written once. A game's own type may embed a
// Session to add to it. Each method is documented on the three types. All
// but World are safe from any goroutine; SetInput, Ticks, Err and OnReceipt
// from inside a View or Do callback, a hook or an observer too, and Give on
// a Client or a Host; the others not there (callbacks and observers run with
// the world locked, and the lock is not reentrant: they would wait for
// themselves); World is for use between steps only, as there.
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
	// Close ends the session: leaves the game, closes the host, or ends a
	// game alone; Run then returns.
	Close() error
	// OnReceipt adds an observer of the receipts of the commands given
	// with Give (Send on a Client, SendOwn on a Host), and returns the
	// function that removes it.
	OnReceipt(fn func(Receipt)) (remove func())

	// give is Give's work. Unexported: a Session is a Local, a Host or a
	// Client, or a value that embeds one.
	give(k Command, payload []byte) (uint64, error)
}

// The three ways to play are each a Session.
var (
	_ Session[struct{}] = (*Local[struct{}])(nil)
	_ Session[struct{}] = (*Host[struct{}])(nil)
	_ Session[struct{}] = (*Client[struct{}])(nil)
)
