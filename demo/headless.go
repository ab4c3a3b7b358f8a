package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
)

// runHeadless runs the match without a window. With -ticks it steps the
// simulation as fast as it can (a test or a benchmark of the rules); without,
// it keeps real time at the fixed step until interrupted, then prints the
// summary line.
func runHeadless(g *game.Game, o options, stdout io.Writer) {
	if o.ticks > 0 {
		for g.World.Frame() < ecs.Frame(o.ticks) {
			g.Schedule.Step()
		}
		return
	}
	fmt.Fprintf(stdout, "tandem-demo: headless host, %d bots, %d crates, %v steps; Ctrl-C to stop\n",
		o.bots, o.crates, g.Schedule.StepDuration())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(stop)
	tick := time.NewTicker(g.Schedule.StepDuration())
	defer tick.Stop()
	g.Schedule.Advance() // starts the schedule's clock
	for {
		select {
		case <-stop:
			fmt.Fprintln(stdout, summary(g))
			return
		case <-tick.C:
			g.Schedule.Advance()
		}
	}
}
