package predict

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/wire"
)

// ClientConfig tunes a Client. Zero fields take the defaults noted.
type ClientConfig[I any] struct {
	// Clock is the time source. Default clock.Real.
	Clock clock.Clock
	// Reconcile is the reconciliation mode. Default Correct.
	Reconcile Reconcile
	// Step is the game's predicted step, required with Replay: it simulates
	// frame f of the owned entities with input in, as the game's systems do
	// in a normal frame (in is the zero input for a held frame: see
	// HoldAfter). World.Frame reads f during the call.
	Step func(w *ecs.World, f ecs.Frame, in *I)
	// ReplayBegin, if set, is called once a replay has put the prediction
	// of frame from (the host's values where they differ) into the entities
	// the client predicts, before the first Step; ReplayEnd after the last, the
	// world's frame set back. What keeps a state of its own beside the
	// components (a physics engine's bodies) takes the restored values in
	// the first and settles in the second.
	ReplayBegin func(w *ecs.World, from ecs.Frame)
	ReplayEnd   func(w *ecs.World)
	// Components lists the tracked components. Every component of the
	// Registry must be tracked; ecs.Transform (Pose) and ecs.Velocity
	// (Velocity) are tracked with replicate.TransformCodec and
	// VelocityCodec unless listed here: list them when registered with
	// codecs of your own.
	Components []Tracker
	// Corrector carries Pose and Velocity corrections into the present, for
	// the entities it takes (see Corrector; *physics.Space takes those with
	// a body). Default, and for the other entities: the components are
	// written directly.
	Corrector Corrector
	// Smoother, if set, learns of every pose correction.
	Smoother Smoother
	// Redundancy is how many inputs, the newest and those before it, each
	// input message carries (1..MaxPerMessage). Default DefaultRedundancy.
	Redundancy int
	// History is how many frames of prediction are kept. It must cover the
	// round trip plus the lead. Default 128 (2 s at 60 Hz).
	History int
	// MaxOwned bounds the owned entities the client predicts (those without
	// ecs.HostMoved on the client: the game marks them as they arrive, for
	// the host's mark comes only with a state newer than the spawn that
	// gave the client the entity): each costs History frames of its tracked components,
	// about 10 KB at the defaults, so that a host cannot make the client
	// hold gigabytes with a few megabytes of join. Past it the client
	// predicts the first MaxOwned and Err says ErrTooManyOwned: the engine
	// ends the session. Default DefaultMaxOwned.
	MaxOwned int
	// Sync tunes the time synchronization; its Step is the schedule's.
	Sync SyncConfig
	// HoldAfter bounds how far the client predicts its own entities past
	// what the host answered: once an input message has gone unanswered
	// for longer than a round trip and HoldAfter (the host acknowledges
	// them every frame; its silence, or a link dark from the client to the
	// host only, leaves them unanswered), each frame is held (Held): the
	// owned entities get the zero input, not live, as the host gives a
	// player whose inputs stopped coming (HostInputConfig.MaxRepeat),
	// instead of running on with inputs the host may never get. The client
	// goes on sending them, and the host's first answer ends the hold.
	// Counted in ClientStats (Holds, HeldFrames). Default:
	// DefaultHoldAfter, or DefaultMaxRepeat steps if longer (a game slower
	// than 60 Hz), plus four times the host frames' measured arrival
	// jitter (SyncStats.Jitter); negative: never held. It needs a Link
	// that tells what the host has not answered (see Link; over a
	// connection, not before it measured a round trip).
	HoldAfter time.Duration
	// Logger receives a warning for a frame jump after the first alignment
	// (the client fell out of step with the host: a stall, a clock change),
	// at most one every 10 s, which then says how many jumps since went
	// unsaid (jumps_since_last_warning; TimeSync's Stats count every one).
	// Default slog.Default(); set a discarding logger to silence it.
	Logger *slog.Logger

	// Link, Local, Joined and HostFrame connect the client to its session;
	// Attach sets them from a Session. Without Local nothing is predicted;
	// without Link nothing is sent.
	Link Link
	// Local returns this client's peer id (0 until admitted).
	Local func() ecs.PeerID
	// Joined reports whether the join finished. Default: always.
	Joined func() bool
	// HostFrame returns the newest host frame whose state arrived.
	HostFrame func() ecs.Frame
	// View, if set, returns the host frame, with its fraction, at which the
	// client draws the entities it does not predict (its interpolator's
	// render frame): SetInput records it beside the frame's input (ViewAt)
	// and the input message says how far behind the input's frame it was,
	// so the host rewinds a hit test to what the player saw
	// (PeerInputs.View). Nil: the input's own frame, nothing behind.
	View func() float64
}

// DefaultMaxOwned is ClientConfig.MaxOwned's default: a squad, a fleet, a
// player's many units that it predicts (an army the host moves is marked
// ecs.HostMoved, and costs nothing here).
const DefaultMaxOwned = 4096

// ErrTooManyOwned is what Client.Err says once the host gave the client more
// entities to predict than ClientConfig.MaxOwned: mark those the host alone
// moves ecs.HostMoved, or raise MaxOwned.
var ErrTooManyOwned = errors.New("predict: the host gave this client more entities to predict than ClientConfig.MaxOwned; mark those only the host moves ecs.HostMoved on the client too (tandem's Game.Arrived, as the host marks them where it makes them: the host's mark reaches a client only with a state newer than the spawn that gave it the entity), or raise MaxOwned")

// Client predicts a client's own entities: it stamps and sends the game's
// inputs, keeps the client's frame ahead of the host's, records what was
// predicted and reconciles it with AuthState. It is the replicate.AuthHandler
// of the client replicator.
//
// Create it with NewClient before the session client (its AuthState goes in
// session.ClientConfig.Replication.Auth), then Attach the session. Each frame
// the game calls SetInput once, before its systems read Input.
//
// Memory: History frames of inputs and of every owned entity's tracked
// components, grown to the most owned entities (at most MaxOwned); nothing
// per frame after.
// Not safe for concurrent use: it belongs to the simulation goroutine.
type Client[I any] struct {
	w     *ecs.World
	sched *ecs.Schedule
	reg   *replicate.Registry
	codec InputCodec[I]
	cfg   ClientConfig[I]
	clk   clock.Clock
	sync  *TimeSync
	// jumpLog paces the warning of a jump (logJump): the clock's time of
	// the last one logged, and the jumps since that were not.
	jumpLog struct {
		at     time.Time
		quiet  int
		logged bool
	}
	hist   history[I]
	tracks []*tracker
	// hostOnly: a tracker is HostOnly (a replay puts its values back from
	// the records at each frame, keepHostOnly).
	hostOnly bool
	err      error         // ErrTooManyOwned, once
	moved    ecs.Transform // scratch: a knocked pose as corrected (knock.moves)

	last I // the newest input set or repeated
	// mine holds the owned entities this client predicts when some it owns
	// are marked ecs.HostMoved (predicted).
	mine    []arche.Entity
	scratch []I
	behinds []uint32 // the views of the inputs a message carries (send)
	msg     []byte
	// probe is SetInput's check that the codec reads back each input
	// (readable): an input and a reader of its own, so that nothing
	// escapes to the codec's functions.
	probe struct {
		buf []byte
		r   wire.Reader
		in  I
	}
	// sendFrom is the first frame whose input was set since the client's
	// frame was last aligned with the host's (TimeSync's Synced, a jump),
	// 0 before it: messages of inputs set before go unaligned.
	sendFrom ecs.Frame

	lastRecorded ecs.Frame
	newestAuth   ecs.Frame
	observed     ecs.Frame
	hint         int
	pending      bool
	pendingFrom  ecs.Frame
	checkedFrom  ecs.Frame // replayable cache: from, through and answer
	checkedLast  ecs.Frame
	checkedOK    bool
	rebase       bool      // Rebase: the next AuthState is taken as it is
	rebaseFrame  ecs.Frame // the frame of that AuthState, once it came
	// teleports is, by owned entity, the host frame of the teleport whose
	// correction was drawn as a jump (snapped), so that the AuthStates
	// that keep saying so afterwards are compared as usual; snaps are the
	// entities whose replay pending is of a teleport.
	teleports map[arche.Entity]ecs.Frame
	prunedAt  ecs.Frame // the frame teleports was last pruned at
	// drifts is, by owned entity, the frame whose host pose its pose last
	// took whole (a Pose correction), while its velocity since is its own
	// or the host's of that frame: the start of the drift the next pose
	// correction measures (drift.go).
	drifts        map[arche.Entity]ecs.Frame
	driftsPending []driftPending // Replay mode's, until the replay runs
	driftScratch  driftScratch
	snaps         []arche.Entity

	// newcomers are the owned entities that arrived since the last
	// "predict.begin", to be replayed from the frame they were made at
	// (Adopt); their values as they arrived are in each tracker's arrived
	// store, by index.
	newcomers []newcomer

	heldIn  I    // the zero input, given to a held frame's replay
	holding bool // the last frame whose input was set was held

	stats    ClientStats
	poseSum  float64
	velSum   float64
	secStart time.Time
	secCount uint64
}

// DefaultHoldAfter is the least default of ClientConfig.HoldAfter, which
// is at least the host's default MaxRepeat in time (DefaultMaxRepeat
// frames: 250 ms at 60 Hz, 500 ms at 30), so that a client whose link goes
// dark stops its player about when the host stops it.
const DefaultHoldAfter = 250 * time.Millisecond

// DefaultMaxRepeat is HostInputConfig.MaxRepeat's default, in frames.
const DefaultMaxRepeat = 15

// NewClient returns the predictor of sched's world, replicating reg's
// components (all registered already), decoding and encoding inputs with
// codec. It adds "predict.begin" to ecs.StageInput (time synchronization and
// pending replays) and "predict.record" to ecs.StageOutput (recording the
// frame). It panics if a registered component is not tracked, or Replay has
// no Step.
func NewClient[I any](sched *ecs.Schedule, reg *replicate.Registry, codec InputCodec[I], cfg ClientConfig[I]) *Client[I] {
	codec.check()
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Reconcile == Replay && cfg.Step == nil {
		panic("predict: Replay needs ClientConfig.Step, the game's predicted step")
	}
	if cfg.Redundancy <= 0 {
		cfg.Redundancy = DefaultRedundancy
	}
	cfg.Redundancy = min(cfg.Redundancy, MaxPerMessage)
	if cfg.History <= 0 {
		cfg.History = 128
	}
	if cfg.MaxOwned <= 0 {
		cfg.MaxOwned = DefaultMaxOwned
	}
	cfg.Sync.Step = sched.StepDuration()
	if cfg.Sync.MaxBuffer <= 0 {
		cfg.Sync.MaxBuffer = float64(cfg.Redundancy - 1)
	}
	c := &Client[I]{
		w:       sched.World(),
		sched:   sched,
		reg:     reg,
		codec:   codec,
		cfg:     cfg,
		clk:     cfg.Clock,
		sync:    NewTimeSync(cfg.Sync),
		scratch: make([]I, cfg.Redundancy),
		behinds: make([]uint32, 0, cfg.Redundancy),
		msg:     make([]byte, 0, maxMessage+codec.MaxSize+24),
	}
	c.hist.init(cfg.History)
	c.bindTrackers()
	c.hist.grow(4, cfg.MaxOwned, c.tracks)
	sched.AddTo(ecs.StageInput, "predict.begin", ecs.SystemFunc(c.begin))
	sched.AddTo(ecs.StageOutput, "predict.record", ecs.SystemFunc(c.record))
	return c
}

// bindTrackers binds the configured trackers and the default ones, and
// checks that every registered component is tracked.
func (c *Client[I]) bindTrackers() {
	reg := c.reg
	byComp := make(map[replicate.Component]*tracker)
	add := func(t *tracker) {
		if len(c.tracks) == 16 {
			panic("predict: more than 16 tracked components")
		}
		t.bind(reg, len(c.tracks))
		if byComp[t.comp] != nil {
			panic(fmt.Sprintf("predict: component %q tracked twice", t.name))
		}
		byComp[t.comp] = t
		c.tracks = append(c.tracks, t)
		c.hostOnly = c.hostOnly || t.corr == HostOnly
	}
	for _, tr := range c.cfg.Components {
		if tr.t == nil {
			panic("predict: an empty Tracker in ClientConfig.Components; build each with Track")
		}
		add(tr.t)
	}
	ids := c.w.IDs
	if comp, ok := reg.Lookup(ids.Transform); ok && byComp[comp] == nil {
		add(Track(replicate.TransformCodec(), Pose).t)
	}
	if comp, ok := reg.Lookup(ids.Velocity); ok && byComp[comp] == nil {
		add(Track(replicate.VelocityCodec(), Velocity).t)
	}
	for comp := range replicate.Component(reg.Len()) {
		if byComp[comp] == nil {
			panic(fmt.Sprintf("predict: component %q is replicated but not tracked; list predict.Track(itsCodec, predict.HostValue) in ClientConfig.Components", reg.Name(comp)))
		}
	}
}

// Attach connects the client to its session: input messages go on s.Conn()
// (the connection of the moment: a session that reconnected has a new one),
// the local peer is s.Peer(), prediction starts once the join finished, and
// the host frames received feed the time synchronization. Call it right
// after session.NewClient.
func (c *Client[I]) Attach(s Session) {
	if s.Conn() != nil {
		c.cfg.Link = sessionLink{s}
	}
	c.cfg.Local = s.Peer
	c.cfg.Joined = func() bool {
		r := s.Replicator()
		return r != nil && r.Joined()
	}
	c.cfg.HostFrame = func() ecs.Frame {
		if r := s.Replicator(); r != nil {
			return r.Frame()
		}
		return 0
	}
}

// local returns the local peer, or ok == false while the client is not
// admitted and joined.
func (c *Client[I]) local() (ecs.PeerID, bool) {
	if c.cfg.Local == nil {
		return 0, false
	}
	p := c.cfg.Local()
	if p == ecs.HostPeer || (c.cfg.Joined != nil && !c.cfg.Joined()) {
		return 0, false
	}
	return p, true
}

// sessionLink is the Link of an attached session: its connection of the
// moment.
type sessionLink struct{ s Session }

// Queue implements Link.
func (l sessionLink) Queue(kind wire.Kind, payload []byte, tok conn.Token) error {
	return l.s.Conn().Queue(kind, payload, tok)
}

// RTT implements Link.
func (l sessionLink) RTT() time.Duration { return l.s.Conn().RTT() }

// LossRate implements Link.
func (l sessionLink) LossRate() float64 { return l.s.Conn().LossRate() }

// UnansweredSince tells since when the host has answered nothing sent on
// the connection of the moment.
func (l sessionLink) UnansweredSince() (time.Time, bool) { return l.s.Conn().UnansweredSince() }

// RTTSamples tells how many samples the round trip of the connection of
// the moment is made of.
func (l sessionLink) RTTSamples() uint64 { return l.s.Conn().RTTSamples() }

// Err returns ErrTooManyOwned once the host gave the client more entities
// to predict than ClientConfig.MaxOwned, else nil. The engine ends the
// session when it says so.
func (c *Client[I]) Err() error { return c.err }
