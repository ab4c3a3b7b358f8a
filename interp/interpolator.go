package interp

import (
	"math"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
)

// Interpolator keeps what is needed to draw a client's entities smoothly and
// computes, once per drawn frame (Update), where each remote entity is drawn.
//
// Wire it as the client replicator's observer (it has the method sets of
// replicate.FrameObserver, replicate.BirthObserver and
// replicate.DrawnObserver: Applied, Removed, Heard, Born and Drawing; a
// wrapper that passes only Applied and Removed on loses what Heard tells,
// that an entity left out of newer frames rests, what Born tells, that an
// entity the host made is not drawn before its making, and what Drawing
// answers, that a removed entity is drawn to its removal), call Update once per drawn frame
// before drawing, and ask Pose where to draw each entity. Prediction calls
// AddCorrection when it moves a predicted entity. Create it with New.
//
// Memory: about 310 bytes per network slot, in blocks of 1,024 slots made
// as the slots are first seen, never copied; nothing is allocated per
// entity, state or frame once they have grown. Not safe for concurrent use: it belongs to the
// goroutine that owns the world.
type Interpolator struct {
	w   *ecs.World
	clk clock.Clock
	cfg Config
	tl  timeline

	blocks []*block // slot s in blocks[s>>blockBits]
	top    int32    // the highest slot grown for + 1: what the sweep covers
	tracks []track

	offsets []int32 // slots whose offset may be non-zero
	// jumpOf and jumpAt: the entity whose state is about to be Applied and
	// the frame of the teleport it is of (Jumped), for that Applied alone.
	jumpOf arche.Entity
	jumpAt ecs.Frame
	// active lists the remote slots Update samples: those at rest (the host
	// sent newer frames without them) leave it until their next state, so
	// a drawn frame costs the entities that move, not the world.
	active  []int32
	settled int // remote slots at rest, out of active
	// leaving holds the host frame of the removal of each remote slot the
	// client keeps while it is drawn (Drawing, flagLeaving): drawn moving
	// on to it, and not past it.
	leaving map[int32]ecs.Frame

	local      ecs.PeerID
	localSet   bool
	disabled   bool
	updated    bool // Update ran at least once
	lastNow    time.Time
	lastRender float64   // render frame of the last Update
	maxExt     float64   // MaxExtrapolation in host frames; < 0: none
	maxBack    float64   // MaxDelay in host frames: the farthest an entity is drawn before its first state
	interval   float64   // SendInterval in host frames
	deferral   float64   // MaxDeferral in host frames, at least interval
	drift      float64   // twice deferral (deferral with MaxDeferral negative): how far past its newest state a moving entity is dead-reckoned by its Velocity
	stillGap   ecs.Frame // MaxDeferral in host frames, at least 1: a longer silence includes rest
	// heldAt is the host frame of the host's newest word that its budget
	// for this client held changes back (HeldBack), 0 for none or once it
	// said it has room again; the word stands heldFor host frames after it
	// (four of the host's intervals between two such words) and, on this
	// client's clock, heldLife after heldSince (a link gone dark brings no
	// newer frame to end it). starved is whether it stood at the last
	// Update.
	heldAt, heldFor ecs.Frame
	heldSince       time.Time
	heldLife        time.Duration
	starved         bool
	sweep           int
	stats           Stats
}

// New returns an Interpolator for world w that timestamps arrivals by clk.
func New(w *ecs.World, clk clock.Clock, cfg Config) *Interpolator {
	cfg.defaults()
	ip := &Interpolator{w: w, clk: clk, cfg: cfg, tl: newTimeline(&cfg), leaving: map[int32]ecs.Frame{}}
	ip.maxExt = cfg.MaxExtrapolation.Seconds() / cfg.Step.Seconds()
	ip.maxBack = cfg.MaxDelay.Seconds() / cfg.Step.Seconds()
	ip.interval = cfg.SendInterval.Seconds() / cfg.Step.Seconds()
	d := math.Round(max(cfg.MaxDeferral.Seconds(), 0) / cfg.Step.Seconds())
	ip.deferral = max(d, ip.interval)
	ip.drift = 2 * ip.deferral
	if cfg.MaxDeferral < 0 {
		ip.drift = ip.deferral // the host leaves nothing out
	}
	ip.stillGap = ecs.Frame(max(d, 1))
	return ip
}

// Config returns the configuration in use, defaults filled in.
func (ip *Interpolator) Config() Config { return ip.cfg }

// SetLocal names this client's peer: entities it owns are simulated here
// (predicted), so they are drawn as local entities even if they carry
// ecs.Interpolated, but those marked ecs.HostMoved, which the host alone
// moves. Until it is called, every received entity with ecs.Interpolated is
// remote.
func (ip *Interpolator) SetLocal(p ecs.PeerID) {
	ip.local = p
	ip.localSet = true
}

// SetLoss gives the fraction (0..1) of the host's datagrams that are lost, for
// the render delay; pass the connection's estimate of what reaches it
// (conn.Conn.InLossRate; its LossRate is of what the client sends) every
// frame or tick. The delay covers as many consecutive losses as happen
// more often than once in a thousand sends, at least one and at most three.
func (ip *Interpolator) SetLoss(p float64) {
	if math.IsNaN(p) {
		return
	}
	ip.tl.loss = clamp(p, 0, 1)
}

// SetEnabled turns interpolation on (the default) or off. Off, remote
// entities are drawn at their newest received state and local ones at their
// simulated pose, with no blending and no offsets: what interpolation hides.
func (ip *Interpolator) SetEnabled(on bool) { ip.disabled = !on }

// Enabled reports whether interpolation is on.
func (ip *Interpolator) Enabled() bool { return !ip.disabled }

// RenderDelay returns how far behind the expected newest host state remote
// entities are drawn now.
func (ip *Interpolator) RenderDelay() time.Duration {
	return seconds(ip.tl.delay)
}

// RenderFrame returns the host frame, fractional, at which remote entities
// were drawn by the last Update.
func (ip *Interpolator) RenderFrame() float64 { return ip.lastRender }

// UpdatedAt returns the time the last Update was given (the clock's), the
// zero time before the first since New or Reset: when the remote entities
// were last drawn.
func (ip *Interpolator) UpdatedAt() time.Time {
	if !ip.updated {
		return time.Time{}
	}
	return ip.lastNow
}

// Reset forgets every entity, state, offset and timing measurement, for a new
// connection. Capacity is kept; SetLocal, SetLoss and SetEnabled stay.
func (ip *Interpolator) Reset() {
	for _, b := range ip.blocks {
		clear(b.slots[:]) // a ring is read only up to its slot's count
	}
	ip.top = 0
	ip.offsets = ip.offsets[:0]
	ip.active = ip.active[:0]
	ip.settled = 0
	clear(ip.leaving)
	ip.tl.reset()
	ip.updated = false
	ip.lastRender = 0
	ip.sweep = 0
	ip.heldAt, ip.heldFor, ip.starved = 0, 0, false
	for _, t := range ip.tracks {
		t.reset()
	}
}
