package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/agones"
	"github.com/tandem-go/tandem/demo/netplay"
	"github.com/tandem-go/tandem/fleet"
	"github.com/tandem-go/tandem/net/transport/quicnet"
)

// runAgones runs the host as a game server of an Agones fleet (-host
// -agones): it listens on -addr, speaks to the SDK server beside its pod
// (localhost:$AGONES_SDK_HTTP_PORT, 9358 by default), and lets package fleet
// do the rest: the pin published, Ready, Health, the world an allocation
// names loaded from -save (a postgres:// URL in a fleet: every pod shares
// it, and leases keep each world to one host), the players List, and on
// SIGTERM the final save, then Shutdown. Without -save, or before an
// allocation names a world, the world lives in memory only. The pod's
// certificate is its own (a new one each start); the matchmaker hands its
// fingerprint to players from the GameServer's annotation.
func runAgones(o options, stdout, stderr io.Writer) error {
	o.headless = true // nobody plays at a game server
	sdk, err := agones.New(agones.Options{OnError: func(err error) { fmt.Fprintln(stderr, appName+":", err) }})
	if err != nil {
		return err
	}
	cfg := quicConfig(o)
	if o.resetKey != "" {
		if cfg.StatelessResetKey, err = quicnet.LoadResetKey(o.resetKey); err != nil {
			return err
		}
	}
	t, err := quicnet.New(cfg)
	if err != nil {
		return err
	}
	l, err := t.Listen(o.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w; pick another address with -addr", o.addr, err)
	}
	fmt.Fprintf(stdout, appName+": game server on %s, certificate %s\n", l.Addr(), t.Fingerprint())
	target := ""
	if o.save.set {
		target = o.save.target
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return fleet.Run(ctx, fleet.Config{
		SDK: sdk, Listener: l, Pin: t.Fingerprint(),
		Open: func(ctx context.Context, world string) (fleet.Host, error) {
			h, err := tandem.NewHost(netplay.New(config(o)), fleetHostConfig(o, target, world, stderr))
			if err != nil {
				return nil, err
			}
			h.OnEvent(func(e tandem.Event) { fmt.Fprintln(stderr, appName+":", e) })
			return h, nil
		},
		OnWorld: func(world string) {
			switch {
			case world == "":
				fmt.Fprintln(stdout, appName+": ticking a world in memory until an allocation names one ("+fleet.WorldKey+")")
			case target == "":
				fmt.Fprintf(stdout, appName+": world %s, in memory only (give -save postgres://… to keep it)\n", world)
			default:
				fmt.Fprintf(stdout, appName+": world %s, saved to %s\n", world, target)
			}
		},
		OnError: func(err error) { fmt.Fprintln(stderr, appName+":", err) },
	})
}

// fleetHostConfig is the settings of a fleet's host of world (none: a world
// in memory until an allocation names one), saved to target when both are
// given: the flags' (hostConfig), and the world's store.
func fleetHostConfig(o options, target, world string, stderr io.Writer) tandem.HostConfig {
	hc := hostConfig(o)
	if world != "" && target != "" {
		hc.SaveTo, hc.World = target, world
		hc.OnRestore = func(r tandem.RestoreReport) { fmt.Fprintf(stderr, appName+": world %s: %v\n", world, r) }
		hc.OnSaveError = saveFailed(stderr)
	}
	return hc
}

// fleetWorldKey is the name -agones reads the world from, for its help.
const fleetWorldKey = fleet.WorldKey
