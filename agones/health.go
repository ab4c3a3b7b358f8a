package agones

import (
	"context"
	"time"
)

// HealthPinger sends Health on its period while the game makes progress: at
// each tick of Period it reads Progress (a counter the game's tick loop
// advances, e.g. the frame number) and calls Health only if the counter moved
// since the last tick. A stalled tick loop therefore stops the pings within
// one period (the last ping goes out at most one Period after the stall
// began), and Agones marks the server Unhealthy after its failure threshold.
type HealthPinger struct {
	Client *Client
	// Period between ticks; keep it under the GameServer's health period
	// (Spec.Health.PeriodSeconds, 5 s by default). Default 2 s.
	Period time.Duration
	// Progress returns a counter that advances while the game is healthy.
	// Called on the pinger's goroutine: it must be safe to call there (an
	// atomic load).
	Progress func() uint64
}

// Run pings until ctx ends, then returns ctx's error. A failed Health call
// is reported to the client's Options.OnError and tried again next tick.
func (p *HealthPinger) Run(ctx context.Context) error {
	period := p.Period
	if period <= 0 {
		period = 2 * time.Second
	}
	last := p.Progress()
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		now := p.Progress()
		if now == last {
			continue
		}
		last = now
		cctx, cancel := context.WithTimeout(ctx, period)
		err := p.Client.Health(cctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			p.Client.onError(err)
		}
	}
}
