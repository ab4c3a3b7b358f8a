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
	"github.com/tandem-go/tandem/launch"
)

// runHeadless runs the match without a window. Alone with -ticks it steps the
// simulation as fast as it can (a test or a benchmark of the rules).
// Otherwise it keeps real time at the fixed step until -ticks is reached, the
// match ends (a client whose host left) or it is interrupted.
func runHeadless(m match, o options, stdout io.Writer) error {
	if !o.Networked() && o.ticks > 0 {
		for m.Played() < o.ticks {
			m.Do(func(w *tandem.World) { w.Schedule.Step() })
		}
		return nil
	}
	if !o.Networked() {
		fmt.Fprintf(stdout, appName+": headless, %d bots, %d crates; Ctrl-C to stop\n", o.bots, o.crates)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if lm, ok := m.(*localMatch); ok && lm.host != nil {
		// SIGHUP closes the host for a restart (launch.RestartSignal): it
		// saves and tells its players to come back.
		ctx, lm.restart = launch.WatchRestart(ctx, lm.host, appName, stdout)
		defer lm.restart.Stop()
	}
	return simulate(ctx, m, o)
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
	if !o.Networked() && o.ticks > 0 {
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
