package predict

import (
	"math"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// SyncConfig tunes TimeSync. Zero fields take the defaults noted.
type SyncConfig struct {
	// Step is the simulation step. Default ecs.DefaultStep; Client sets the
	// schedule's.
	Step time.Duration
	// Buffer is the least lead kept beyond half the round trip, in frames:
	// how early an input should reach the host. Default 2.
	Buffer float64
	// MissRate is the chance, per frame, that datagram loss alone makes an
	// input miss its frame, that the buffer is sized for: with loss p, an
	// input rides on time in the messages of its frame and of the Buffer
	// frames after it, so the buffer grows to the least B with
	// p^(B+1) <= MissRate, up to MaxBuffer. Default 1e-4.
	MissRate float64
	// MaxBuffer caps the buffer grown for loss, in frames. Client sets it to
	// its Redundancy-1: inputs older than that ride in no message. Default 7.
	MaxBuffer float64
	// JitterMargin is how many times the measured jitter (mean deviation of
	// arrival, in frames) is added to the lead. Default 2.
	JitterMargin float64
	// MaxDilation bounds how much faster or slower than real time the client
	// steps, as a fraction. Default 0.10 (±10%).
	MaxDilation float64
	// Gain is the dilation applied per frame of lead error. Default 0.02.
	Gain float64
	// JumpFrames is the lead error, in frames, past which the client jumps to
	// the right frame at once instead of dilating (counted and reported).
	// Default 30.
	JumpFrames float64
	// Smoothing is the weight of a new host-frame sample in the running
	// estimate (0..1). Default 0.1.
	Smoothing float64
	// MinSamples is how many host-frame samples are needed before the first
	// alignment. Default 3.
	MinSamples int
	// NoticeDelay is how long after its arrival a host frame is noticed on
	// average, in frames: half a step when messages are read once per step,
	// as a client does. Default 0.5; negative for none.
	NoticeDelay float64
	// SnapFrames is the least deviation, in frames, of a sample that resets
	// the estimate (a newer host frame than expected at once; an older one
	// after three in a row). Default 5; it grows with the measured jitter.
	SnapFrames float64
}

func (c *SyncConfig) defaults() {
	if c.Step <= 0 {
		c.Step = ecs.DefaultStep
	}
	if c.Buffer <= 0 {
		c.Buffer = 2
	}
	if c.MissRate <= 0 || c.MissRate >= 1 {
		c.MissRate = 1e-4
	}
	if c.MaxBuffer <= 0 {
		c.MaxBuffer = DefaultRedundancy - 1
	}
	c.MaxBuffer = max(c.MaxBuffer, c.Buffer)
	if c.JitterMargin <= 0 {
		c.JitterMargin = 2
	}
	if c.MaxDilation <= 0 {
		c.MaxDilation = 0.10
	}
	if c.Gain <= 0 {
		c.Gain = 0.02
	}
	if c.JumpFrames <= 0 {
		c.JumpFrames = 30
	}
	if c.Smoothing <= 0 || c.Smoothing > 1 {
		c.Smoothing = 0.1
	}
	if c.MinSamples <= 0 {
		c.MinSamples = 3
	}
	if c.NoticeDelay == 0 {
		c.NoticeDelay = 0.5
	}
	c.NoticeDelay = max(c.NoticeDelay, 0)
	if c.SnapFrames <= 0 {
		c.SnapFrames = 5
	}
}

// SyncStats is the time synchronization's state for a net graph. Frames are
// simulation steps.
type SyncStats struct {
	// Lead is how many frames the client's frame is ahead of its estimate of
	// the host's; Target the lead it steers to: half the round trip plus the
	// buffer and the jitter margin.
	Lead, Target float64
	// Buffer is the input buffer in force, in frames: Buffer, grown for the
	// measured loss (see SyncConfig.MissRate).
	Buffer float64
	// Dilation is the rate the client steps at against real time (1 ± MaxDilation).
	Dilation float64
	// Jitter is the mean deviation of host-frame arrivals, in frames.
	Jitter float64
	// HostFrame is the estimate of the host's current frame.
	HostFrame float64
	// Samples counts host-frame samples taken; Resets the times the
	// estimate was reset by a sample far from it.
	Samples, Resets uint64
	// Synced reports whether the first alignment happened.
	Synced bool
	// Jumps counts the frame jumps after the first alignment: each one a
	// lead error past JumpFrames.
	Jumps uint64
}

// TimeSync keeps a client's frame ahead of the host's. It estimates the
// host's current frame from the newest host frames received, their arrival
// times and the round trip, and steers the client's lead to the target by a
// dilation of the client's step rate; past JumpFrames of error it asks for a
// jump instead.
//
// The estimate is a smoothed offset between host frames and the local clock:
// a host steps at a fixed rate, so (host frame − arrival time / step) is a
// constant plus the one-way delay and its jitter. Not safe for concurrent
// use.
type TimeSync struct {
	cfg      SyncConfig
	origin   time.Time
	last     ecs.Frame
	base     float64 // host frame − local time since origin, in frames, smoothed
	dev      float64 // mean absolute deviation of samples from base
	below    int     // consecutive samples far below base
	dilation float64
	loss     float64 // smoothed loss rate
	lossSet  bool
	stats    SyncStats
}

// NewTimeSync returns a TimeSync with cfg's settings.
func NewTimeSync(cfg SyncConfig) *TimeSync {
	cfg.defaults()
	return &TimeSync{cfg: cfg, dilation: 1}
}

// Config returns the configuration in force.
func (s *TimeSync) Config() SyncConfig { return s.cfg }

// Stats returns the synchronization's state.
func (s *TimeSync) Stats() SyncStats {
	st := s.stats
	st.Dilation = s.dilation
	st.Jitter = s.dev
	return st
}

// Dilation returns the step rate last computed by Update (1 before the first
// alignment).
func (s *TimeSync) Dilation() float64 { return s.dilation }

// Observe records that the host's frame f arrived at time at (a State or
// AuthState message of that frame). Frames not newer than the newest seen
// are ignored.
func (s *TimeSync) Observe(f ecs.Frame, at time.Time) {
	if f <= s.last {
		return
	}
	s.last = f
	if s.stats.Samples == 0 {
		s.origin = at
	}
	x := float64(f) - at.Sub(s.origin).Seconds()/s.cfg.Step.Seconds() + s.cfg.NoticeDelay
	s.stats.Samples++
	if s.stats.Samples == 1 {
		s.base = x
		return
	}
	d := x - s.base
	limit := max(s.cfg.SnapFrames, 4*s.dev)
	switch {
	case d > limit:
		// The host is later than thought: earlier samples were stale.
		s.reset(x)
	case d < -limit:
		// Late delivery, or the host fell behind: three in a row decide.
		s.below++
		if s.below >= 3 {
			s.reset(x)
		}
	default:
		s.below = 0
		a := s.cfg.Smoothing
		s.base += a * d
		s.dev += a * (math.Abs(d) - s.dev)
	}
}

func (s *TimeSync) reset(x float64) {
	s.base = x
	s.below = 0
	s.stats.Resets++
}

// Update computes, for client frame c about to be simulated at time now with
// round trip rtt and datagram loss rate loss (0..1) towards the host, the
// dilation to step at, and whether the client must jump to frame to instead
// (at the first alignment, and past JumpFrames of error). Before MinSamples
// samples it returns 1 and no jump.
func (s *TimeSync) Update(now time.Time, c ecs.Frame, rtt time.Duration, loss float64) (dilation float64, to ecs.Frame, jump bool) {
	if s.stats.Samples < uint64(s.cfg.MinSamples) {
		s.dilation = 1
		return 1, 0, false
	}
	step := s.cfg.Step.Seconds()
	owd := rtt.Seconds() / 2 / step
	host := s.base + now.Sub(s.origin).Seconds()/step + owd
	// The connection's loss rate averages a few dozen datagrams: smooth it
	// over a couple of seconds so the target does not hunt.
	if !s.lossSet {
		s.loss, s.lossSet = loss, true
	}
	s.loss += (loss - s.loss) / 120
	buffer := s.buffer(s.loss)
	target := owd + buffer + s.cfg.JitterMargin*s.dev
	s.stats.Buffer = buffer
	lead := float64(c) - host
	s.stats.HostFrame = host
	s.stats.Target = target
	s.stats.Lead = lead
	e := lead - target
	if !s.stats.Synced || math.Abs(e) > s.cfg.JumpFrames {
		f := max(math.Round(host+target), 1)
		if s.stats.Synced {
			s.stats.Jumps++
		}
		s.stats.Synced = true
		s.stats.Lead = f - host
		s.dilation = 1
		if ecs.Frame(f) == c {
			return 1, 0, false
		}
		return 1, ecs.Frame(f), true
	}
	m := s.cfg.MaxDilation
	s.dilation = min(max(1-s.cfg.Gain*e, 1-m), 1+m)
	return s.dilation, 0, false
}

// buffer returns the input buffer, in frames, for datagram loss rate loss.
func (s *TimeSync) buffer(loss float64) float64 {
	b := s.cfg.Buffer
	if loss <= 0 {
		return b
	}
	if loss >= 0.95 {
		return s.cfg.MaxBuffer
	}
	// The least n with loss^n <= MissRate messages, of which the first is
	// the input's own frame.
	n := math.Ceil(math.Log(s.cfg.MissRate) / math.Log(loss))
	return min(max(b, n-1), s.cfg.MaxBuffer)
}
