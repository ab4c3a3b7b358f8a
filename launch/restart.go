package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/tandem-go/tandem"
)

// RestartSignal is the signal WatchRestart takes for a restart: SIGHUP. (A
// terminal's hangup is this signal too: run a host that must not take it
// for a restart under nohup or a service manager.)
var RestartSignal os.Signal = syscall.SIGHUP

// Restartable is what WatchRestart asks of a host: tandem.Host has it.
type Restartable interface {
	// Restartable reports whether the host's players can come back to a
	// host started again: it has a save and a grace window. (The address
	// and certificate they come back to are the transport's: Flags.Listen
	// presents the one the save keeps, given Save.Identity.)
	Restartable() bool
}

// Restart is a watch for RestartSignal (WatchRestart).
type Restart struct {
	asked  atomic.Bool
	cancel context.CancelFunc
	done   chan struct{}
	sig    chan os.Signal
}

// WatchRestart returns ctx ended also by RestartSignal, and the watch. When
// the signal comes and h is restartable, the watch's Asked turns true and
// the host should close with Host.CloseForRestart: it saves and tells its
// players to come back, and they resume into the world the next host
// started on the same save and address restores, within the grace window.
// A host that is not restartable shuts down as at SIGINT. It says which on
// out. The signal stays caught until Release: a second one during the
// final save does not kill the process. Stop the watch before reading
// Asked for the last time, and Release it once the host has closed.
func WatchRestart(ctx context.Context, h Restartable, app string, out io.Writer) (context.Context, *Restart) {
	ctx, cancel := context.WithCancel(ctx)
	sig := make(chan os.Signal, 1)
	r := &Restart{cancel: cancel, done: make(chan struct{}), sig: sig}
	signal.Notify(sig, RestartSignal)
	go func() {
		defer close(r.done)
		select {
		case <-sig:
			if h.Restartable() {
				r.asked.Store(true)
				fmt.Fprintf(out, "%s: closing for a restart: the players resume when a host starts again on this save and address (within -grace)\n", app)
			} else {
				fmt.Fprintf(out, "%s: no save or no -grace to come back to: shutting down\n", app)
			}
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, r
}

// Asked reports whether the signal asked for a restart of a restartable
// host.
func (r *Restart) Asked() bool { return r.asked.Load() }

// Stop ends the watch, and returns once it has ended: Asked is final then.
// The signal stays caught.
func (r *Restart) Stop() { r.cancel(); <-r.done }

// Release stops the watch (Stop) and stops catching RestartSignal for it:
// call it once the host has closed, so that a program that goes on (a
// game back at its menu) takes a hangup as it did before.
func (r *Restart) Release() {
	r.Stop()
	signal.Stop(r.sig)
}

// Runner is what RunHost runs: tandem.Host has it.
type Runner interface {
	Restartable
	// Run steps the world until ctx is done (nil) or the host stops.
	Run(ctx context.Context) error
	// Close and CloseForRestart close the host, saving last.
	Close() error
	CloseForRestart() error
}

// RunHost runs h on the calling goroutine until ctx ends, h stops on its
// own (another host took its world), or RestartSignal comes (WatchRestart),
// then closes it: for a restart when the signal asked and h can restart,
// else with Close. It returns why h stopped on its own, else what closing
// it returned (its final save's error); nil for an orderly end. A headless
// host's main is then: open, Serve, RunHost. A Close lets every player go,
// and what they own in the world with them: a service manager that sends
// SIGTERM for a restart (systemd, Docker, Kubernetes) ends the game; send
// the restart signal (SIGHUP) for a restart that keeps the players.
func RunHost(ctx context.Context, h Runner, app string, out io.Writer) error {
	ctx, restart := WatchRestart(ctx, h, app, out)
	runErr := h.Run(ctx)
	restart.Stop()
	var err error
	if restart.Asked() {
		err = h.CloseForRestart()
	} else {
		err = h.Close()
	}
	restart.Release() // closed: a hangup is the process's again
	if runErr != nil && !errors.Is(runErr, tandem.ErrClosed) {
		return runErr
	}
	if errors.Is(err, tandem.ErrClosed) {
		return nil // it had stopped already
	}
	return err
}
