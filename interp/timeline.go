package interp

import (
	"math"
	"math/bits"
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
	// reanchorRun is how many consecutive arrival events beyond the clamp,
	// on the same side, show that the host's frames moved against local time
	// for good (a host stall it did not catch up): the offset is then set
	// anew instead of crawling there by clamped steps.
	reanchorRun = 3
)

// timeline maps local time to the host's frames. Each new newest host frame f
// that arrives at local time t gives a sample of the offset t − f·step; the
// smoothed offset says when a host frame is expected to arrive, and the mean
// absolute deviation of the samples is the arrival jitter. The render frame
// follows "expected newest frame now − render delay" at a rate near 1.
//
// One sample moves the offset by a clamped amount, so a wild arrival matters
// little; but a host that stalled longer than it catches up sends its frames
// later for good, and the offset would take seconds to follow. So three
// consecutive arrival events beyond the clamp on one side set the offset
// anew (a burst of frames arriving together is one event: a link that held
// datagrams and released them at once delivers its last ones on time and
// sets nothing anew).
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

	// An arrival event is the new newest frames that arrive together (less
	// than half a step apart): a burst after a stall is one event, and its
	// earliest sample (smallest offset) the one that counts. A run is the
	// consecutive events whose earliest sample lies beyond the clamp as it
	// stood before the run (its samples widen the clamp as they come), on
	// one side.
	evSet     bool
	evAt      time.Time
	evMin     float64 // smallest offset sample of the current event
	ev        anchor  // offset and jitter before the current event
	runN      int     // events in the run, the current one not counted
	runSide   float64 // +1: arrivals later than expected; -1: earlier
	runBest   float64 // the run's sample nearest the offset
	run       anchor  // offset and jitter before the run
	reanchors uint64
	anchored  bool // the offset was set anew since the last advance

	// A frame far below the newest that arrives after another such frame,
	// some time later and with no newer frame between, shows that the host
	// started its frames again.
	restartWindow ecs.Frame // frames; older ones are a restart or stale
	lowSet        bool
	low           ecs.Frame // the first such frame
	lowAt         time.Time
	restarts      uint64

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
		// A state older than the render delay can reach or the clock jumps
		// over is never drawn: only a restart explains frames further back.
		restartWindow: ecs.Frame(math.Ceil(max(c.Resync, c.MaxDelay).Seconds() / c.Step.Seconds())),
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
		reanchors: c.reanchors, restartWindow: c.restartWindow, restarts: c.restarts,
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
	tl.lowSet = false
	o := t.Sub(tl.origin).Seconds() - float64(f)*tl.step
	if !tl.evSet || t.Sub(tl.evAt).Seconds() >= tl.step/2 {
		tl.endEvent()
		tl.evSet, tl.evAt, tl.evMin = true, t, o
		tl.ev = anchor{tl.offset, tl.jitter}
	} else {
		tl.evMin = min(tl.evMin, o)
	}
	if tl.reanchor() {
		return
	}
	dev := o - tl.offset
	lim := tl.clampLimit() // one wild arrival moves the offset little
	tl.offset += clamp(dev, -lim, lim) * offsetGain
	tl.jitter += (min(math.Abs(dev), 1) - tl.jitter) * jitterGain
}

// clampLimit is the most one sample's deviation counts in the offset, in
// seconds.
func (tl *timeline) clampLimit() float64 { return clampLimit(tl.jitter, tl.step) }

func clampLimit(jitter, step float64) float64 { return 4*jitter + step }

// anchor is the timeline's offset and jitter at some moment, seconds.
type anchor struct{ offset, jitter float64 }

// beyond returns on which side of the clamp around a offset sample o lies:
// +1 later than expected, −1 earlier, 0 within.
func (tl *timeline) beyond(a anchor, o float64) float64 {
	dev := o - a.offset
	switch lim := clampLimit(a.jitter, tl.step); {
	case dev > lim:
		return 1
	case dev < -lim:
		return -1
	}
	return 0
}

// endEvent adds the arrival event that ended to the run, or ends the run.
func (tl *timeline) endEvent() {
	if !tl.evSet {
		return
	}
	tl.evSet = false
	if tl.runN > 0 && tl.beyond(tl.run, tl.evMin) == tl.runSide {
		tl.runN++
		tl.runBest = nearest(tl.runSide, tl.runBest, tl.evMin)
		return
	}
	tl.runN = 0
	if side := tl.beyond(tl.ev, tl.evMin); side != 0 {
		tl.runN, tl.runSide, tl.runBest, tl.run = 1, side, tl.evMin, tl.ev
	}
}

// reanchor sets the offset anew when the current event completes a run of
// reanchorRun: to the run's sample nearest the old offset, with the jitter
// as it was before the run (the shift was no jitter). It reports whether it
// did.
func (tl *timeline) reanchor() bool {
	if tl.runN+1 < reanchorRun || tl.beyond(tl.run, tl.evMin) != tl.runSide {
		return false
	}
	tl.offset = nearest(tl.runSide, tl.runBest, tl.evMin)
	tl.jitter = tl.run.jitter
	tl.runN = 0
	tl.evSet = false
	tl.anchored = true
	tl.reanchors++
	return true
}

// nearest returns of two offset samples beyond the clamp on side the one
// nearer the offset.
func nearest(side, a, b float64) float64 {
	if side > 0 {
		return min(a, b)
	}
	return max(a, b)
}

// restarted reports whether host frame f, arriving at local time t, shows
// that the host started its frames again: f is more than restartWindow
// below the newest frame, and so was a frame before it that arrived at
// least a step earlier, with no newer newest frame between them. One late
// datagram, or a burst of them, is not a restart.
func (tl *timeline) restarted(f ecs.Frame, t time.Time) bool {
	if !tl.have || f >= tl.newest || tl.newest-f <= tl.restartWindow {
		return false
	}
	if tl.lowSet && f > tl.low && t.Sub(tl.lowAt).Seconds() >= tl.step {
		tl.restarts++
		return true
	}
	if !tl.lowSet {
		tl.lowSet, tl.low, tl.lowAt = true, f, t
	}
	return false
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
	if hi == 0 {
		return 0, false
	}
	// A word of the bitmap at a time, from the newest frame down: the
	// frames k with floor < k ≤ top of the word of k.
	for k := min(hi-1, tl.newest); k > floor; {
		bit := k % 64
		base := k - bit // the frame of the word's bit 0
		m := tl.received[(k%window)/64] & (^uint64(0) >> (63 - bit))
		if base <= floor {
			m &^= 1<<(floor-base+1) - 1
		}
		if m != 0 {
			return base + ecs.Frame(bits.Len64(m)-1), true
		}
		if base == 0 {
			break
		}
		k = base - 1
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

// advance moves the render clock to local time now, and reports whether it
// jumped there instead of running. Before the first arrival it does nothing;
// the first call after it starts the clock at its target. The clock jumps
// when it is more than Resync from its target, or more than a send interval
// ahead of it after the offset was set anew (which it would take seconds to
// make up, drawing what has not arrived meanwhile), or then behind it by
// more than the states kept reach, to their reach.
func (tl *timeline) advance(now time.Time) (jumped bool) {
	if !tl.have {
		return false
	}
	if !tl.started {
		tl.started = true
		tl.last = now
		tl.delay = tl.targetDelay()
		tl.render = tl.hostFrame(now) - tl.delay/tl.step
		tl.rate = 1
		tl.anchored = false
		return false
	}
	dt := max(now.Sub(tl.last).Seconds(), 0)
	tl.last = now
	step := tl.slew * dt
	tl.delay += clamp(tl.targetDelay()-tl.delay, -step, step)
	target := tl.hostFrame(now) - tl.delay/tl.step
	next := tl.render + dt/tl.step
	errSec := (target - next) * tl.step
	anchored := tl.anchored
	tl.anchored = false
	// Set anew, the offset may put the clock ahead of its target (the
	// host's frames come later for good: a stall): it would draw what has
	// not come, so it goes back at once. Behind it (they come earlier: the
	// link's latency fell), it draws what has come, later than it need: it
	// catches up within maxDil, as a jump forward is drawn as one; but not
	// from further back than the states an entity keeps reach (maxDelay
	// behind the newest): there it jumps to their reach first.
	if math.Abs(errSec) > tl.resync || anchored && errSec < -tl.interval {
		tl.render = target
		tl.rate = 1
		tl.resyncs++
		return true
	}
	if reach := max(tl.maxDelay-tl.delay, 0); anchored && errSec > reach {
		tl.render = target - reach/tl.step
		tl.rate = 1
		tl.resyncs++
		return true
	}
	// Run faster or slower by up to maxDil, but never past the target: over
	// a long time between two calls (a game that stopped drawing for
	// seconds) the rate would carry the clock far beyond it.
	adj := clamp(clamp(errSec/settle, -tl.maxDil, tl.maxDil)*dt, -math.Abs(errSec), math.Abs(errSec))
	tl.rate = 1
	if dt > 0 {
		tl.rate += adj / dt
	}
	tl.render += (dt + adj) / tl.step
	return false
}

func clamp(x, lo, hi float64) float64 { return min(max(x, lo), hi) }
