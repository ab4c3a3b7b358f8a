package interp

import (
	"math"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

const (
	// window is how many recent host frames the timeline remembers as
	// received (a power of two).
	window = 1024
	// offsetGain and jitterGain weigh each arrival in the smoothed offset
	// and jitter: about the last 16 arrivals (half a second at 30 Hz) count.
	offsetGain = 1.0 / 16
	jitterGain = 1.0 / 16
	// settle is the time the render clock takes to make up an error, before
	// MaxDilation limits it.
	settle = 0.5
	// lateTarget is the chance of running out of states that the loss term
	// of the render delay aims for.
	lateTarget = 0.001
	// maxLossIntervals bounds how many consecutive lost sends the render
	// delay covers.
	maxLossIntervals = 3
)

// timeline maps local time to the host's frames. Each new newest host frame f
// that arrives at local time t gives a sample of the offset t − f·step; the
// smoothed offset says when a host frame is expected to arrive, and the mean
// absolute deviation of the samples is the arrival jitter. The render frame
// follows "expected newest frame now − render delay" at a rate near 1.
type timeline struct {
	step, interval float64 // seconds
	jitterFactor   float64
	minDelay       float64
	maxDelay       float64
	slew, maxDil   float64
	resync         float64

	have   bool      // a state has arrived
	origin time.Time // local time of the first arrival; seconds count from it
	newest ecs.Frame // newest host frame received
	offset float64   // smoothed arrival time − frame·step, seconds
	jitter float64   // mean absolute deviation of offset samples, seconds
	loss   float64   // fraction of host datagrams lost, from SetLoss

	started bool // the render clock runs
	last    time.Time
	render  float64 // render frame
	delay   float64 // current render delay, seconds
	rate    float64 // render clock speed against local time in the last advance
	resyncs uint64

	received [window / 64]uint64 // bit f%window: a state of frame f arrived
}

func newTimeline(c *Config) timeline {
	return timeline{
		step:         c.Step.Seconds(),
		interval:     c.SendInterval.Seconds(),
		jitterFactor: c.JitterFactor,
		minDelay:     c.MinDelay.Seconds(),
		maxDelay:     c.MaxDelay.Seconds(),
		slew:         c.DelaySlew,
		maxDil:       c.MaxDilation,
		resync:       c.Resync.Seconds(),
		rate:         1,
	}
}

// reset forgets every arrival and stops the render clock; the configuration
// and the loss given stay.
func (tl *timeline) reset() {
	loss := tl.loss
	c := *tl
	*tl = timeline{
		step: c.step, interval: c.interval, jitterFactor: c.jitterFactor,
		minDelay: c.minDelay, maxDelay: c.maxDelay, slew: c.slew, maxDil: c.maxDil,
		resync: c.resync, rate: 1, loss: loss, resyncs: c.resyncs,
	}
}

// isNew reports whether frame f would be a new newest frame.
func (tl *timeline) isNew(f ecs.Frame) bool { return !tl.have || f > tl.newest }

// arrive records that a state of host frame f arrived at local time t. Only a
// new newest frame is a timing sample: older ones were reordered or repeated.
func (tl *timeline) arrive(f ecs.Frame, t time.Time) {
	if !tl.have {
		tl.have = true
		tl.origin = t
		tl.newest = f
		tl.offset = -float64(f) * tl.step
		tl.jitter = tl.interval / 4
		tl.mark(f)
		return
	}
	if f <= tl.newest {
		tl.mark(f)
		return
	}
	if f-tl.newest >= window {
		clear(tl.received[:])
	} else {
		for g := tl.newest + 1; g != f; g++ {
			tl.received[(g%window)/64] &^= 1 << (g % 64)
		}
	}
	tl.newest = f
	tl.mark(f)
	o := t.Sub(tl.origin).Seconds() - float64(f)*tl.step
	dev := o - tl.offset
	lim := 4*tl.jitter + tl.step // one wild arrival moves the offset little
	tl.offset += clamp(dev, -lim, lim) * offsetGain
	tl.jitter += (min(math.Abs(dev), 1) - tl.jitter) * jitterGain
}

func (tl *timeline) mark(f ecs.Frame) {
	if tl.newest-f < window {
		tl.received[(f%window)/64] |= 1 << (f % 64)
	}
}

// receivedBetween returns the newest frame k with lo < k < hi of which some
// state arrived, within the remembered window.
func (tl *timeline) receivedBetween(lo, hi ecs.Frame) (ecs.Frame, bool) {
	floor := lo
	if tl.newest >= window && tl.newest-window+1 > floor {
		floor = tl.newest - window // frames at or below it are forgotten
	}
	for k := hi - 1; k > floor && k < hi; k-- {
		if k > tl.newest {
			continue
		}
		if tl.received[(k%window)/64]&(1<<(k%64)) != 0 {
			return k, true
		}
	}
	return 0, false
}

// targetDelay is the render delay the measurements ask for, in seconds: one
// send interval, plus enough intervals to cover the consecutive losses that
// happen more often than lateTarget (at least one), plus JitterFactor times
// the jitter, bounded by MinDelay and MaxDelay.
func (tl *timeline) targetDelay() float64 {
	n := 1.0
	if tl.loss >= 1 {
		n = maxLossIntervals
	} else if tl.loss > 0 {
		n = min(max(n, math.Log(lateTarget)/math.Log(tl.loss)), maxLossIntervals)
	}
	d := (1+n)*tl.interval + tl.jitterFactor*tl.jitter
	return min(max(d, tl.minDelay), tl.maxDelay)
}

// hostFrame returns the newest host frame expected to have arrived by local
// time now, fractional.
func (tl *timeline) hostFrame(now time.Time) float64 {
	return (now.Sub(tl.origin).Seconds() - tl.offset) / tl.step
}

// advance moves the render clock to local time now. Before the first arrival
// it does nothing; the first call after it starts the clock at its target.
func (tl *timeline) advance(now time.Time) {
	if !tl.have {
		return
	}
	if !tl.started {
		tl.started = true
		tl.last = now
		tl.delay = tl.targetDelay()
		tl.render = tl.hostFrame(now) - tl.delay/tl.step
		tl.rate = 1
		return
	}
	dt := max(now.Sub(tl.last).Seconds(), 0)
	tl.last = now
	step := tl.slew * dt
	tl.delay += clamp(tl.targetDelay()-tl.delay, -step, step)
	target := tl.hostFrame(now) - tl.delay/tl.step
	next := tl.render + dt/tl.step
	errSec := (target - next) * tl.step
	if math.Abs(errSec) > tl.resync {
		tl.render = target
		tl.rate = 1
		tl.resyncs++
		return
	}
	tl.rate = 1 + clamp(errSec/settle, -tl.maxDil, tl.maxDil)
	tl.render += dt / tl.step * tl.rate
}

func clamp(x, lo, hi float64) float64 { return min(max(x, lo), hi) }
