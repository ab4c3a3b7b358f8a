package agones_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandem-go/tandem/agones"
	"github.com/tandem-go/tandem/agones/agonestest"
	"github.com/tandem-go/tandem/clock/bubble"
)

// TestHealthStopsOnStall runs a tick loop at 60 Hz that stalls after 10 s:
// health pings go out once a period while it ticks, and none later than one
// period after the stall, however long it lasts; they resume when it does.
func TestHealthStopsOnStall(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		side := agonestest.New()
		defer side.Close()
		c, _ := agones.New(agones.Options{HTTPClient: side.HTTPClient()})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var frames atomic.Uint64
		var stalled atomic.Bool
		loopDone := make(chan struct{})
		go func() {
			defer close(loopDone)
			for ctx.Err() == nil {
				time.Sleep(time.Second / 60)
				if !stalled.Load() {
					frames.Add(1)
				}
			}
		}()
		const period = time.Second
		start := time.Now()
		pinger := &agones.HealthPinger{Client: c, Period: period, Progress: frames.Load}
		done := make(chan error, 1)
		go func() { done <- pinger.Run(ctx) }()

		time.Sleep(10*time.Second + period/2)
		stall := time.Now()
		stalled.Store(true)
		time.Sleep(30 * time.Second)
		synctest.Wait()
		var pings []time.Duration
		for _, call := range side.Calls() {
			if call.Path == "/health" {
				pings = append(pings, call.At.Sub(start))
			}
		}
		before := 0
		for _, p := range pings {
			if start.Add(p).Before(stall) {
				before++
			} else if d := start.Add(p).Sub(stall); d > period {
				t.Errorf("a ping %v after the stall, want none later than one period (%v)", d, period)
			}
		}
		if before != 10 || len(pings) > 11 {
			t.Errorf("pings at %v: %d in 10.5 s of ticking at a 1 s period, want 10, and at most one after the stall", pings, before)
		}

		stalled.Store(false)
		time.Sleep(3*time.Second + period/4)
		synctest.Wait()
		if n := side.Count("/health"); n != len(pings)+3 {
			t.Errorf("%d pings 3 s after the loop resumed, want %d", n, len(pings)+3)
		}
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("Run after cancel: %v", err)
		}
		<-loopDone
	})
}

// A failed Health call is reported and the next tick tries again.
func TestHealthReportsFailures(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		side := agonestest.New()
		defer side.Close()
		side.Fail("/health", agonestest.Fault{Status: 500, Message: "boom"}, 2)
		var failures atomic.Int32
		c, _ := agones.New(agones.Options{HTTPClient: side.HTTPClient(), OnError: func(error) { failures.Add(1) }})
		ctx, cancel := context.WithCancel(t.Context())
		var frames atomic.Uint64
		p := &agones.HealthPinger{Client: c, Period: time.Second, Progress: func() uint64 { return frames.Add(1) }}
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()
		time.Sleep(4*time.Second + time.Millisecond)
		synctest.Wait()
		if n, f := side.Count("/health"), failures.Load(); n != 4 || f != 2 {
			t.Errorf("%d health calls with %d failures reported, want 4 and 2", n, f)
		}
		cancel()
		<-done
	})
}
