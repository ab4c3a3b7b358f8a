package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tandem-go/tandem"
)

// runHeadless runs the match without a window. Alone with -ticks it steps the
// simulation as fast as it can (a test or a benchmark of the rules).
// Otherwise it keeps real time at the fixed step until -ticks is reached, the
// match ends (a client whose host left) or it is interrupted.
func runHeadless(m match, o options, stdout io.Writer) error {
	if !o.networked() && o.ticks > 0 {
		for m.Played() < o.ticks {
			m.Do(func(w *tandem.World) { w.Schedule.Step() })
		}
		return nil
	}
	if !o.networked() {
		fmt.Fprintf(stdout, appName+": headless, %d bots, %d crates; Ctrl-C to stop\n", o.bots, o.crates)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if lm, ok := m.(*localMatch); ok && lm.host != nil {
		var unwatch func()
		ctx, unwatch = onRestartSignal(ctx, lm, stdout)
		defer unwatch()
	}
	return simulate(ctx, m, o)
}

// restartSignal ends a headless host for a restart: it saves and tells its
// players to come back (Host.CloseForRestart), and they resume into the
// world the next host started on the same save and address restores,
// within -grace. A host without a save or a grace window shuts down as at
// SIGINT. (A terminal's hangup is this signal too: run a host that must not
// take it for a restart under nohup or a service manager.)
var restartSignal os.Signal = syscall.SIGHUP

// onRestartSignal returns ctx ended also by restartSignal, which marks m to
// close for a restart, and the function that stops watching for it (it
// returns once the watch has ended, so m's Close sees the mark). The signal
// stays caught for the rest of the process: a second one during the final
// save does not kill it.
func onRestartSignal(ctx context.Context, m *localMatch, out io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, restartSignal)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-sig:
			if m.host != nil && m.host.Restartable() {
				m.restart.Store(true)
				fmt.Fprintln(out, appName+": closing for a restart: the players resume when a host starts again on this save and address (within -grace)")
			} else {
				fmt.Fprintln(out, appName+": no save or no -grace to come back to: shutting down")
			}
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(); <-done }
}

// simulate steps the match at its fixed rate until ctx is done, -ticks is
// reached or the match ends, whatever else this process does: a window draws
// on another goroutine meanwhile. A networked match runs on the engine's Run
// (a client applies a join's pages between steps, as fast as they come; a
// host answers handshakes as they arrive), watched once a step for the
// demo's ends, so it may run a step past -ticks; alone with -ticks it stops
// on the exact frame, never catching up past it.
func simulate(ctx context.Context, m match, o options) error {
	var step time.Duration
	m.Do(func(w *tandem.World) { step = w.Schedule.StepDuration() })
	tick := time.NewTicker(step)
	defer tick.Stop()
	if !o.networked() && o.ticks > 0 {
		return stepTo(ctx, m, o, tick)
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
				return nil // this side ended the match meanwhile
			case merr != nil:
				return merr
			case errors.Is(err, tandem.ErrClosed):
				return nil
			default:
				return err
			}
		case <-tick.C:
		}
		// An end of the match counts before -ticks: a session that failed
		// on the step that reached -ticks failed.
		if m.Ended() {
			return end(m.Err())
		}
		if o.ticks > 0 && m.Played() >= o.ticks {
			return end(nil)
		}
	}
}

// stepTo steps a match played alone at its fixed rate until frame -ticks.
func stepTo(ctx context.Context, m match, o options, tick *time.Ticker) error {
	m.Advance() // starts the schedule's clock
	for m.Played() < o.ticks {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		m.Do(func(w *tandem.World) {
			w.Schedule.MaxCatchUp = min(8, max(0, o.ticks-int(w.ECS.Frame())))
		})
		m.Advance()
	}
	return nil
}
