package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// runHeadless runs the match without a window. Alone with -ticks it steps the
// simulation as fast as it can (a test or a benchmark of the rules).
// Otherwise it keeps real time at the fixed step until -ticks is reached, the
// match ends (a client whose host left) or it is interrupted.
func runHeadless(m match, o options, stdout io.Writer) error {
	g := m.Game()
	if !o.networked() && o.ticks > 0 {
		for g.World.Frame() < ecs.Frame(o.ticks) {
			g.Schedule.Step()
		}
		return nil
	}
	if !o.networked() {
		fmt.Fprintf(stdout, "tandem-demo: headless, %d bots, %d crates, %v steps; Ctrl-C to stop\n",
			o.bots, o.crates, g.Schedule.StepDuration())
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(stop)
	tick := time.NewTicker(g.Schedule.StepDuration())
	defer tick.Stop()
	m.Advance() // starts the schedule's clock
	for {
		select {
		case <-stop:
			return nil
		case <-tick.C:
			m.Advance()
		}
		if o.ticks > 0 && m.Ticks() >= o.ticks {
			return nil
		}
		if m.Ended() {
			return m.Err()
		}
	}
}
