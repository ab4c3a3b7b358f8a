package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// runHeadless runs the match without a window until -ticks, the match's
// end (a client whose host left) or Ctrl-C (package launch's
// Match.RunHeadless: alone with -ticks as fast as it can, in real time
// otherwise; SIGHUP closes a host for a restart).
func runHeadless(m *match, o options, stdout io.Writer) error {
	if !o.Networked() && o.ticks == 0 {
		fmt.Fprintf(stdout, appName+": headless, %d bots, %d crates; Ctrl-C to stop\n", o.bots, o.crates)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return m.RunHeadless(ctx, o.ticks)
}
