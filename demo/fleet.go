package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/demo/netplay"
	"github.com/tandem-go/tandem/fleet"
)

// runAgones runs the host as a game server of an Agones fleet (-host
// -agones), headless, until SIGTERM: package launch listens, speaks to the
// SDK server beside the pod and loads the world an allocation names from
// -save (launch.Flags.ServeFleet); the demo makes each world's host.
func runAgones(o options, stdout, stderr io.Writer) error {
	o.headless = true // nobody plays at a game server
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return o.ServeFleet(ctx, fleet.Config{}, func(hc tandem.HostConfig) (fleet.Host, error) {
		roomForSpectators(&hc) // as a match's host (openMatch)
		return tandem.NewHost(netplay.New(config(o)), hc)
	}, stdout, stderr)
}
