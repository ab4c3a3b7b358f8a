package launch

import (
	"cmp"
	"context"
	"fmt"
	"io"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/agones"
	"github.com/tandem-go/tandem/fleet"
	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/store"
)

// ServeFleet runs the host as a game server of an Agones fleet (-host
// -agones, registered with Flags.Fleet) until ctx ends: pass one that SIGTERM ends
// (signal.NotifyContext). It listens on -addr, speaks to the SDK server
// beside its pod (localhost:$AGONES_SDK_HTTP_PORT, 9358 by default), and
// lets package fleet do the rest: the pin published, Ready, Health, the
// world an allocation names loaded from -save (a postgres:// URL in a
// fleet: every pod shares it, and leases keep each world to one host), the
// players List, and at the end the final save, then Shutdown. Without
// -save, or before an allocation names a world, the world lives in memory
// only. The pod's certificate is its own (a new one each start); the
// matchmaker hands its fingerprint to players from the GameServer's
// annotation.
//
// newHost makes the host of each world from hc: the flags' settings
// (HostConfig, no player of the host's own) and the world's save. cfg holds
// the fleet's settings beyond the flags (RestartOnTerm, periods); ServeFleet
// sets its Listener, Pin and Open, its SDK when nil, EmptyFor when zero
// (-empty-for), and OnWorld and OnError, when nil, to lines on stdout and
// stderr. Each host's events are logged to stderr, and the engine's
// notices and the QUIC transport's too (Log), each line whole.
func (f *Flags) ServeFleet(ctx context.Context, cfg fleet.Config, newHost func(hc tandem.HostConfig) (fleet.Host, error), stdout, stderr io.Writer) error {
	stderr = lockWriter(stderr) // one lock for every line, the transport's too
	logErr := func(err error) { fmt.Fprintf(stderr, "%s: %v\n", f.App, err) }
	g := *f // the flags with the engine's notices on stderr
	g.log = Log(f.App, stderr)
	f = &g
	if cfg.SDK == nil {
		sdk, err := agones.New(agones.Options{OnError: logErr})
		if err != nil {
			return err
		}
		cfg.SDK = sdk
	}
	qc := f.QUIC()
	if f.ResetKey != "" {
		var err error
		if qc.StatelessResetKey, err = quicnet.LoadResetKey(f.ResetKey); err != nil {
			return err
		}
	}
	t, err := quicnet.New(qc)
	if err != nil {
		return err
	}
	l, err := t.Listen(f.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w; pick another address with -addr", f.Addr, err)
	}
	fmt.Fprintf(stdout, "%s: game server on %s, certificate %s\n", f.App, l.Addr(), t.Fingerprint())
	target := f.Save // the fleet's store: no default file
	cfg.Listener, cfg.Pin = l, t.Fingerprint()
	if cfg.EmptyFor == 0 {
		cfg.EmptyFor = f.EmptyFor
	}
	cfg.Open = func(ctx context.Context, world string) (fleet.Host, error) {
		h, err := newHost(f.fleetHostConfig(target, world, stderr))
		if err != nil {
			return nil, err
		}
		LogHost(h, f.App, stderr)
		return h, nil
	}
	if cfg.OnWorld == nil {
		key := cmp.Or(cfg.WorldKey, fleet.WorldKey)
		cfg.OnWorld = func(world string) {
			switch {
			case world == "":
				fmt.Fprintf(stdout, "%s: ticking a world in memory until an allocation names one (%s)\n", f.App, key)
			case target == "":
				fmt.Fprintf(stdout, "%s: world %s, in memory only (give -save postgres://… to keep it)\n", f.App, world)
			default:
				fmt.Fprintf(stdout, "%s: world %s, saved to %s\n", f.App, world, store.Describe(target))
			}
		}
	}
	if cfg.OnError == nil {
		cfg.OnError = logErr
	}
	return fleet.Run(ctx, cfg)
}

// fleetHostConfig is the settings of a fleet's host of world (none: a world
// in memory until an allocation names one), saved to target when both are
// given.
func (f *Flags) fleetHostConfig(target, world string, stderr io.Writer) tandem.HostConfig {
	hc := f.HostConfig(false)
	hc.Logger = Log(f.App, stderr) // stderr's lock, when ServeFleet's
	hc.Replication.OnUnreported = logUnreported(f.App, stderr)
	if world != "" && target != "" {
		hc.SaveTo, hc.World = target, world
		hc.OnRestore = func(r tandem.RestoreReport) { fmt.Fprintf(stderr, "%s: world %s: %v\n", f.App, world, r) }
		log := &saveLog{app: f.App, w: stderr}
		hc.OnSaveError, hc.OnSave = log.failed, log.saved
	}
	return hc
}
