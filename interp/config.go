package interp

import (
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// Config tunes an Interpolator. The zero value gives the defaults, which suit
// a 60 Hz host sending at 30 Hz.
type Config struct {
	// Step is the host's simulation step, the length of one host frame.
	// Default ecs.DefaultStep (1/60 s).
	Step time.Duration
	// SendInterval is how often the host sends state. Default two steps.
	SendInterval time.Duration
	// JitterFactor multiplies the measured arrival jitter (mean absolute
	// deviation of arrival times) in the render delay. Default 2.
	JitterFactor float64
	// MinDelay and MaxDelay bound the render delay. Defaults: one send
	// interval, and the lesser of 500 ms and six send intervals (200 ms at
	// 30 Hz). Neither reaches back further than the states an entity keeps
	// cover, those six send intervals, to which both are lowered; further back, every entity would be drawn at its
	// oldest state, stepping from one to the next as they come.
	MinDelay, MaxDelay time.Duration
	// DelaySlew is the fastest the render delay may change, in seconds of
	// delay per second of local time. Default 0.05 (50 ms per second). Keep it
	// below MaxDilation, or the render clock cannot follow.
	DelaySlew float64
	// MaxDilation bounds how much faster or slower than real time the render
	// clock runs while it catches up with its target: 0.1 means between 0.9
	// and 1.1 times real time. Default 0.1.
	MaxDilation float64
	// Resync is how far the render clock may be from its target before it
	// jumps there instead of catching up (after a long stall, or a host that
	// restarted its frames). Default 500 ms. Frames found to come later for
	// good (a host's stall) take it back at once, if by more than a send
	// interval; earlier (a link's latency fell), it catches up, after a jump
	// to MaxDelay behind the newest frame if it was further back.
	Resync time.Duration
	// MaxExtrapolation is how long past its newest state a moving entity is
	// extrapolated when states are late; after that it is held where that
	// took it until news of it comes, then slides onto the host's path. One that stopped is not: states of
	// later frames without it (Heard; a host whose world falls still sends
	// empty ones) say it rests. An entity the host sends less often
	// than every send interval (see MaxDeferral) is extrapolated for as long
	// as its last two states were apart, if that is longer; one whose
	// ecs.Velocity says it moves as its last two states did, for twice
	// MaxDeferral (see there). Default 100 ms; negative turns extrapolation
	// off.
	MaxExtrapolation time.Duration
	// MaxDeferral is the longest the host leaves a moving entity out of its
	// sends: it defers small changes until they add up (8 send intervals for
	// the replicator's MinUrgency of 1/8). A state that comes no later than
	// this after the entity's previous one is blended straight from it, even
	// if the host sent other states in between; only a longer silence is taken
	// for the entity resting, until MaxDeferral before the new state. Either
	// way an entity with an ecs.Velocity (IgnoreVelocity unset) rests until
	// its new speed would have taken it to its new state's pose, no sooner
	// (a player knocked back or starting to walk from standing is not drawn
	// creeping from its last state), and one whose two newest states are
	// alike (sent at rest, in turn) until the send before the new one. An
	// entity whose ecs.Velocity says it moves (IgnoreVelocity unset) as its
	// last two states did (within a fifth of its speed), or that has no
	// other state to go by, is given twice as long, as the host leaves one
	// far from what the client owns (or of a low priority) out that long
	// while it moves as its velocity says: it is drawn moving on by that
	// velocity, neither held nor taken for resting, until a state comes or
	// twice MaxDeferral passed (a shot whose states a full budget holds
	// back flies on rather than going back and lurching forward); its
	// heading and Tracks go on along its last two states if its last three
	// moved alike, else stay at its newest. One whose
	// Velocity changed at its newest state (a turn, a knock) goes on by the
	// new one as far as its states would have taken it (MaxExtrapolation, or
	// as long as they were apart); one whose Velocity says more than its
	// states moved (along a wall), along its states; one whose newest state
	// says it stopped (its Velocity zero, after a state that moved) is drawn
	// where it stopped at once. An entity whose last state came longer
	// than that after the one before, that moved the whole way as its
	// velocity says (an owner's unit in AuthStates sharing a full budget),
	// is sent that seldom: it is drawn moving on for as long as its states
	// came apart, and a send interval more, until one comes again as often
	// as others do. While the host says its budget holds changes back
	// (HeldBack), none of this bounds one moving as its velocity says: it
	// is dead-reckoned by it until its next state, and one that sets off in
	// such a silence is drawn setting off when its velocity says, not
	// MaxDeferral before its state. Default 8 send intervals; negative: the host
	// sends every change at once (and nothing is dead-reckoned longer, but
	// an entity sent seldom so).
	MaxDeferral time.Duration
	// HalfLife is how fast visual offsets (corrections, and the catch-up after
	// a late state) decay: half of what is left goes every HalfLife. Default
	// 50 ms, which leaves 1/16 of an offset after 200 ms.
	HalfLife time.Duration
	// MaxOffset, in world units, drops a visual offset that grows beyond it:
	// the entity is drawn jumping instead of sliding a long way. Zero keeps
	// offsets of any size.
	MaxOffset float64
	// SnapDistance, in world units, treats two consecutive received states
	// further apart than this as a teleport even if Interpolated.Snap was not
	// set. Zero turns the check off.
	SnapDistance float64
	// IgnoreVelocity draws an entity still where its states do not reach.
	// By default one with an ecs.Velocity at its first state (the client's
	// copy, which the host sends with its Transform; world units and
	// radians a second) is moved by it: on past that state while it has no
	// other and the next is due, as two states would move it (a shot that
	// lived less than a send interval flies to where it hit), and back from
	// it while drawn before it, as far as the render delay reaches (one that
	// entered the client's interest comes in moving instead of standing at
	// its first state for the render delay), and by its new speed after a
	// silence (see MaxDeferral). Set it for a game whose Velocity is not how
	// fast its Transform moves.
	IgnoreVelocity bool
}

func (c *Config) defaults() {
	if c.Step <= 0 {
		c.Step = ecs.DefaultStep
	}
	if c.SendInterval <= 0 {
		c.SendInterval = 2 * c.Step
	}
	if c.JitterFactor <= 0 {
		c.JitterFactor = 2
	}
	if c.MinDelay <= 0 {
		c.MinDelay = c.SendInterval
	}
	if c.MaxDelay <= 0 {
		c.MaxDelay = 500 * time.Millisecond
	}
	if c.MaxDelay < c.MinDelay {
		c.MaxDelay = c.MinDelay
	}
	if reach := keptIntervals * c.SendInterval; c.MaxDelay > reach {
		c.MaxDelay = reach
		c.MinDelay = min(c.MinDelay, reach)
	}
	if c.DelaySlew <= 0 {
		c.DelaySlew = 0.05
	}
	if c.MaxDilation <= 0 {
		c.MaxDilation = 0.1
	}
	if c.Resync <= 0 {
		c.Resync = 500 * time.Millisecond
	}
	if c.MaxExtrapolation == 0 {
		c.MaxExtrapolation = 100 * time.Millisecond
	}
	if c.MaxDeferral == 0 {
		c.MaxDeferral = 8 * c.SendInterval
	}
	if c.HalfLife <= 0 {
		c.HalfLife = 50 * time.Millisecond
	}
}
