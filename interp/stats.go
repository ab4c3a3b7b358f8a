package interp

import (
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// Stats describes the Interpolator for a net graph and for tests. The
// per-frame counts are those of the last Update; the others are totals
// since New.
type Stats struct {
	// RenderDelay is the current render delay; TargetDelay what the
	// measurements ask for, which RenderDelay approaches at Config.DelaySlew.
	RenderDelay, TargetDelay time.Duration
	// Jitter is the mean absolute deviation of state arrival times from the
	// estimated host timeline.
	Jitter time.Duration
	// Loss is the loss fraction given to SetLoss.
	Loss float64
	// RenderFrame is the host frame remote entities were drawn at; Newest the
	// newest host frame received; Dilation how fast the render clock ran
	// against local time (1 is real time).
	RenderFrame float64
	Newest      ecs.Frame
	Dilation    float64

	// Remote entities drawn in the last Update (those without a pose, drawn
	// for their Tracks, included), by how: Interpolating between
	// two states, Extrapolating past the newest, Holding at the newest after
	// the extrapolation bound (or with nothing to extrapolate from), Resting
	// at a newest state known to be current.
	Remote, Interpolating, Extrapolating, Holding, Resting int
	// Early counts the remote entities the host made in play whose first
	// state the render frame has not reached (Born): held, not drawn.
	// Leaving counts those the host removed that the client keeps while it
	// draws them on to their removal (Drawing), and those past it, not
	// drawn (and not counted in Remote), until the client removes them.
	Early, Leaving int
	// Before counts those drawn before their oldest state (one that came
	// into the client's interest, its first state ahead of the render
	// frame): moved back from it by the velocity they had there, or at it.
	Before int
	// Offsets is the number of entities with a visual offset.
	Offsets int

	// States counts recorded states, Stale those older than the entity's
	// newest (ignored), Snaps the teleports. Extrapolations and Holds count
	// entities entering those modes. Corrections counts AddCorrection calls;
	// Dropped the offsets beyond Config.MaxOffset. Resyncs counts the render
	// clock's jumps. Reanchors counts the times the host's frames were found
	// shifted against local time for good (later after a host stall, the
	// render clock then jumping back; earlier when the link's latency fell,
	// the clock then catching up within MaxDilation), and the timeline set
	// anew; Restarts the times the host started its frames
	// again, each of which Reset the Interpolator.
	States, Stale, Snaps  uint64
	Extrapolations, Holds uint64
	Corrections, Dropped  uint64
	Resyncs               uint64
	Reanchors, Restarts   uint64
}

// Stats returns the current figures.
func (ip *Interpolator) Stats() Stats {
	s := ip.stats
	tl := &ip.tl
	s.RenderDelay = seconds(tl.delay)
	s.TargetDelay = seconds(tl.targetDelay())
	s.Jitter = seconds(tl.jitter)
	s.Loss = tl.loss
	s.RenderFrame = ip.lastRender
	s.Newest = tl.newest
	s.Dilation = tl.rate
	s.Offsets = len(ip.offsets)
	s.Resyncs = tl.resyncs
	s.Reanchors = tl.reanchors
	s.Restarts = tl.restarts
	return s
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
