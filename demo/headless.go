package main

import (
	"context"
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
		for m.Ticks() < o.ticks {
			m.Do(func(w *tandem.World) { w.Schedule.Step() })
		}
		return nil
	}
	if !o.networked() {
		fmt.Fprintf(stdout, "tandem-demo: headless, %d bots, %d crates; Ctrl-C to stop\n", o.bots, o.crates)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return simulate(ctx, m, o)
}

// simulate steps the match at its fixed rate until ctx is done, -ticks is
// reached or the match ends, whatever else this process does: a window draws
// on another goroutine meanwhile. It is the engine's Run with the demo's ends
// added; alone with -ticks it stops on the exact frame, never catching up past
// it.
func simulate(ctx context.Context, m match, o options) error {
	var step time.Duration
	m.Do(func(w *tandem.World) { step = w.Schedule.StepDuration() })
	tick := time.NewTicker(step)
	defer tick.Stop()
	m.Advance() // starts the schedule's clock
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if !o.networked() && o.ticks > 0 {
			m.Do(func(w *tandem.World) {
				w.Schedule.MaxCatchUp = min(8, max(0, o.ticks-int(w.ECS.Frame())))
			})
		}
		m.Advance()
		if o.ticks > 0 && m.Ticks() >= o.ticks {
			return nil
		}
		if m.Ended() {
			return m.Err()
		}
	}
}
