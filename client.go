package tandem

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/interp"
	"github.com/tandem-go/tandem/net/predict"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// ClientConfig tunes a Client. The zero value joins as "player" on the real
// clock, with the player's input set by SetInput.
type ClientConfig[I comparable] struct {
	// Name is the player's name, sent to the host. Default "player".
	Name string
	// Clock is the time source. Default clock.Real.
	Clock clock.Clock
	// Input, if set, gives the input of each frame instead of SetInput: it
	// runs on the simulation goroutine before the frame's systems, and may
	// read the world (a computer player).
	Input func(w *World) I
	// Interp tunes how remote entities are drawn; its Step and SendInterval
	// come from the host.
	Interp interp.Config
	// Predict tunes prediction: reconciliation mode, input redundancy, time
	// synchronization (its MissRate defaults to 1e-6 here: an input missing
	// its frame for loss alone once in hours), how long the host may be
	// silent (or deaf to the client) before the client holds its own
	// entities (HoldAfter; see
	// NetStats.HoldAfter). Its session and
	// correction fields are set by the Client, and its Reconcile and Step
	// by Replay (or Game.Replay) when that is set.
	Predict predict.ClientConfig[I]
	// Replay, if set, reconciles by replaying: when the host's state of a past
	// frame differs from what this client predicted, the client restores that
	// frame (the host's values where they differ) and replays every frame
	// since, each with the input it had, by calling Replay once a frame with
	// the Input of every entity this client drives (Driven) set to that frame's
	// (w.ECS.Frame() is the replayed frame). Replay runs the game's systems
	// that move what the client predicts, as a step does, deterministically
	// (call them from it: it takes the World, they the ecs.World), writing only
	// what moves the client's own entities: their replicated components, and
	// with physics their bodies (SetVelocity). It is what a value of the game's
	// own that builds up frame after frame under input needs (a velocity a
	// kinematic ship integrates): with the default reconciliation such a value,
	// taken from the host's past frame into the present, differs again at the
	// next state, and is corrected again and again. With physics (Game.Physics)
	// the engine replays the bodies too: it puts each body this client predicts
	// at the restored frame's state, and after each call of Replay (the game's
	// systems that push the bodies, not the physics step) puts every remote
	// body where the host had it and steps the Space. So a body meets again
	// what it met since (a floor a correction carried it into, a car), and a
	// force of the game's that depends on the velocity (a car's grip, drag)
	// acts on the corrected one: a bumped car with grip was corrected 190 times
	// where replayed twice, and a platformer's player corrected into its
	// floor stayed under it for hundreds of frames where replayed it never
	// went. A replay corrects the whole difference it finds at once, where
	// correcting spreads it over many small corrections: fewer, and larger
	// (six cars bumping each other, over a 150 ms link losing 10%: 441
	// corrections became 58, the largest 40 units became 153). A replay steps
	// the Space once a replayed frame (the round trip and the lead: 6 to 20
	// frames), so it costs that many steps of the bodies awake on each
	// correction, and a look at every remote body once (some 0.15 µs each); the
	// remote bodies asleep where the host has them stay asleep, the client's
	// own bodies (not networked) awake as it begins get their state back
	// (one a replayed step wakes keeps what the frames since did to it: it
	// slept through them), and without a predicted body nothing is stepped. A value input changes by the same amount
	// whatever it was (a cursor moved a cell a press, a counter) needs none:
	// the default moves the present by the past frame's difference, which is
	// exact there. An entity of this client's that the host makes while it
	// plays (a respawned avatar) arrives as the host made it, frames ago: with
	// Replay it is replayed from that frame in the step it arrives in, so it
	// starts where the host will have it (NetStats.Predict.Adopted); without
	// it, it starts that far behind and catches up as the host's states of
	// the frames since come back, over a round trip.
	// Nil: Game.Replay, and without it each differing component is corrected
	// by its Prediction. It runs on the simulation goroutine, with the world
	// locked.
	Replay func(w *World)
	// Spectator joins to watch: the host gives this client no player and
	// no slot, and it sends no input and no command (Send fails with
	// ErrSpectator). The host must take spectators (HostConfig.Spectators,
	// 0 by default): one that takes none refuses this client.
	Spectator bool
	// FirstOp is the operation id of the client's first command (Send);
	// later ones count up from it, and a command sent again after a
	// reconnect keeps its id, so the host, which keeps a player's receipts
	// by id, runs it once. Default: the clock's time in microseconds, which
	// grows across restarts (a new process given a Ticket takes the
	// player's place back, and its ids must not meet those of the one
	// before).
	FirstOp uint64
	// Ticket, if not zero, takes back the place of a player this game
	// joined as before, in an earlier process: the ticket that client gave
	// (Client.Ticket), kept where the player's settings are. The first
	// connection resumes that player, in place of joining as a new one: the
	// same peer id, name, entities and slot, the whole world joined into
	// this client's (PeerResumed, not PeerJoined; on the host the player's
	// PeerResumed, no Game.Join). The host takes it back while it keeps the
	// player: within its grace window (HostConfig.Grace) of the connection
	// breaking, and a host started again from its save (CloseForRestart)
	// for as long again; a host busy with resumes is asked again, with
	// Dial, for 90 s. A host that no longer has the player refuses the
	// ticket: with Dial the client then joins as a new player, told by a
	// PeerRejected carrying the refusal (forget the ticket then, and keep
	// the new one); without Dial its session ends with that refusal
	// (ErrRefused). A ticket goes only to the host that gave it (the
	// certificate its connection showed; Ticket.Host) and for the role it
	// was given for (Ticket.Spectator): one of another host or role is not
	// sent, the Logger told, and the client joins anew, as its config says. A
	// running game that quits on purpose (Close) leaves, and its ticket
	// with it: keep the ticket for a process that ends without Close (a
	// crash, a killed process, a machine that went to sleep).
	Ticket Ticket
	// TicketFile, if set, is where the client keeps its Ticket for the next
	// process of the game: NewClient reads a ticket kept there (when Ticket
	// is zero) and takes that player's place back, the file is written
	// (readable by its owner alone) at each admission that gives another
	// ticket, and removed at Close, as the player leaves (if it still holds
	// this client's ticket: another process may have taken the place since).
	// A process that ends without Close (a crash, a kill) leaves it for the
	// next one. A file that cannot be read or written, or that others than
	// its owner may write (its mode allows group or others to), is told to
	// the Logger, and the client joins as a new player. Use one file per
	// player and host (the user's config directory, say); keep it from
	// others, as a password.
	TicketFile string
	// Dial, if set, opens a new connection to the same host: with it a
	// client whose connection breaks reconnects by itself (with backoff and
	// jitter, for as long as the host's grace window lasts) and resumes as
	// the same player, with the same entities; a first connection that
	// breaks before the host lets the client in, or that a host busy with
	// other handshakes closes before it (a crowd arriving at once), is
	// dialed again too (for 10 s, within JoinTimeout), to join. Meanwhile its State is
	// Reconnecting and its world is held still: nothing is
	// simulated, View draws the world as it was. It runs on a goroutine of
	// its own; with quicnet, a Transport's Dialer for the host's address.
	// (A test on a fake clock runs in a bubble, clock/bubble.Test, so that
	// time waits for the dial: outside one the clock may outrun it.)
	// NewClient dials with it first when given no connection, again after a
	// pause while the host says it is busy with other connections from this
	// address (transport.ErrBusy). Nil: a broken connection ends the session.
	Dial func(ctx context.Context) (transport.Conn, error)
	// MaxEntities bounds the networked entities the host may make this
	// client hold (a hostile host cannot grow it without end): past it the
	// session ends, closed with transport.CloseLimit, and Err wraps
	// replicate.ErrTooManyEntities. Default replicate.DefaultMaxEntities
	// (1,048,576); raise it for a larger world.
	MaxEntities int
	// JoinSlice is the most time the client spends applying the pages of
	// a join at a time, between steps or in one (a loading screen's frame
	// stays short; NetStats.Replication.LongestSlice says what it took).
	// Default 1 ms. A slice does at least one piece of the join, whatever
	// JoinSlice says: a page, or a step of making room for the entities
	// the join announced, which took up to 2 ms in a trial (100,000
	// entities over loopback QUIC, JoinSlice 250 µs: its longest slices
	// were 1.6–2.0 ms), so a setting below a millisecond shortens the
	// slices little. Timed on Clock: on a fake clock that does not move
	// while the client works, a slice applies every page waiting.
	JoinSlice time.Duration
	// Logger hears what the client has to say that no call returns:
	// prediction's notices, unless Predict.Logger is set (a jump of its
	// frame to the host's; an input the game's codec refuses to read back,
	// sent as the zero input), and Run, View, Do, Step or Advance waiting
	// for the world while one call of the game's code has held it for
	// seconds (a warning). The transport logs through its own
	// (quicnet.Config's Logger). Nil: slog.Default().
	Logger *slog.Logger
	// JoinTimeout bounds how long the first join may take, from NewClient
	// to Playing, on Clock (and a fresh join after the host refused a
	// resume, from the refusal, and the join into the world held after a
	// resume, from the host's Resumed): past it the client gives up, closing the
	// connection with transport.CloseTimeout, and its Run returns (and Err
	// says) an error that wraps ErrJoinTimeout (errors.Is). The first dial
	// NewClient makes itself (given no connection) is bounded by it too, in
	// real time: the dial is the network's. A host that
	// never answers, or one that lets the client in and never finishes its
	// world, is not waited on for ever. It is checked as the client is
	// stepped (Run, Advance, Step). Default 60 s; negative: no bound. Once
	// joined, a broken connection is bounded by the host's grace window
	// instead.
	JoinTimeout time.Duration
}

// DefaultJoinTimeout is ClientConfig.JoinTimeout's default: a world of a
// million entities (about 15 MB) arrives in half of it over a link of
// 4 Mbit/s.
const DefaultJoinTimeout = 60 * time.Second

// ErrJoinTimeout is wrapped by the error of NewClient (a first dial the
// host did not answer), and by Err and Run's return of a client whose join
// did not finish within ClientConfig.JoinTimeout: the host did not answer,
// or its world did not arrive in time. Dial again, or tell the
// player the host is not reachable.
var ErrJoinTimeout = errors.New("tandem: the join did not finish in time")

// ErrHostData is wrapped by Err after the game's own code on a client
// panicked on what the host sent (its Arrived hook): the session ended, and
// the error names the entity and the panic.
var ErrHostData = errors.New("tandem: the game could not take what the host sent")

// Client is a game joined over the network: its world holds the host's, its
// own entities (those the host gave its peer) are predicted with the game's
// own systems and corrected without visible jumps, and everything else is
// drawn interpolated. The fixed step and the send rate come from the host.
//
// Run (or Advance) steps it; SetInput sets the player's input; View lets
// drawing look at the world between steps. Those are safe from any
// goroutine; the world belongs to whichever holds it.
type Client[I comparable] struct {
	loop
	g       *Game[I]
	cfg     ClientConfig[I]
	reg     *replicate.Registry
	session *session.Client
	pred    *predict.Client[I]
	phys    *netPhysics
	corr    correctionLog
	cmds    clientCommands
	events  observers[Event]
	inputs  generic.Map[Input[I]]
	interps generic.Map[ecs.Interpolated]
	driven  *drivenFilters // Input for the entities the host marks driven (driven.go)
	status  clientStatus
	// replay routes a replayed frame's input (ClientConfig.Replay).
	replay struct {
		in    I
		live  bool
		route *inputRoute[I]
	}
	keys    heldInput[I]
	playing atomic.Int64 // frames simulated since the join finished
	// cmdFrame is the host frame a command given now runs at: during a
	// step, the step's frame; between steps, the next one; 0 while the
	// client's frame is not in step with the host's (and from an admission
	// on a new connection to the next step: its frames may be another
	// host's). Set by the input system, at the step's end (stepped) and at
	// admissions, read by Send from any goroutine.
	cmdFrame atomic.Uint32
	// heldFrame is the host frame of the newest state the world held as the
	// last step ended, heldAt when it last moved on (the client's clock):
	// the view of a client that draws nothing (drawnFrame).
	heldFrame ecs.Frame
	heldAt    time.Time
	err       error       // why the client stopped, set once
	left      bool        // Close was called
	resumes   int         // times the session resumed
	written   Ticket      // the ticket last written to TicketFile
	started   time.Time   // the join under way began, on the client's clock (JoinTimeout)
	joining   bool        // a join under way is bounded by JoinTimeout
	joined    atomic.Bool // the first join finished (PeerReady)
}

// NewClient joins the host at the other end of tc with g, the same Game the
// host runs: it builds the world (g.Setup, as a client) and sends the hello at
// once; the join and everything after happen in the steps Run or Advance
// run. Refused, Err says why. With tc nil and cfg.Dial set, NewClient makes
// the first connection itself with Dial, within JoinTimeout: a host that
// does not answer fails it with an error wrapping ErrJoinTimeout (one that
// answers and then does not let the client in, or does not finish its
// world, ends Run with one).
func NewClient[I comparable](g *Game[I], tc transport.Conn, cfg ClientConfig[I]) (*Client[I], error) {
	if err := g.check(Joined); err != nil {
		return nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Name == "" {
		cfg.Name = "player"
	}
	if cfg.JoinTimeout == 0 {
		cfg.JoinTimeout = DefaultJoinTimeout
	}
	if cfg.Replay == nil {
		cfg.Replay = g.Replay
	}
	started := cfg.Clock.Now()
	// The world first: a Setup that spawns networked entities on a client
	// is refused before a connection (the join could never finish).
	world := g.newWorld(Joined, cfg.Clock, false)
	if n := world.ECS.Networked(); n > 0 {
		return nil, fmt.Errorf("tandem: join: Game.Setup spawned %d networked entities on a client (World.Role is Joined), where every networked entity comes from the host and the join would never finish: spawn them only when w.Role is not Joined", n)
	}
	if cfg.TicketFile != "" && cfg.Ticket.IsZero() {
		t, err := readTicketFile(cfg.TicketFile)
		if err != nil {
			loggerOr(cfg.Logger).Warn("tandem: the kept ticket could not be read; joining as a new player", "file", cfg.TicketFile, "err", err)
		}
		cfg.Ticket = t
	}
	dialed := false
	if tc == nil {
		// A name the session would refuse is refused before a connection.
		if err := wire.CheckName(cfg.Name); err != nil {
			return nil, fmt.Errorf("tandem: join: %w", err)
		}
		var err error
		if tc, err = firstDial(cfg.Dial, cfg.JoinTimeout); err != nil {
			return nil, err
		}
		dialed = true
	}
	cfg.Ticket = ticketFor(cfg, tc)
	c := &Client[I]{g: g, cfg: cfg, started: started, joining: true}
	c.clk = cfg.Clock
	c.mu.ch = make(chan struct{}, 1)
	c.mu.log = cfg.Logger
	c.w = world
	world.giver = c.give
	world.removals = newRemovals(cfg.Clock, world.Physics)
	c.cmds.init(cfg.FirstOp, cfg.Clock)
	w := c.w
	a := w.ECS.Arche()
	c.inputs = generic.NewMap[Input[I]](a)
	c.interps = generic.NewMap[ecs.Interpolated](a)
	c.reg = g.registry(w.ECS)
	w.reg = c.reg
	var tracks []predict.Tracker
	for _, comp := range g.replicated() {
		tracks = append(tracks, comp.track())
	}
	c.driven = newDrivenFilters[I](w.ECS)
	c.corr.clk = cfg.Clock
	c.corr.next = relay{&c.loop}

	pc := cfg.Predict
	if pc.Sync.MissRate == 0 {
		pc.Sync.MissRate = 1e-6
	}
	pc.Clock = cfg.Clock
	if pc.Logger == nil {
		pc.Logger = cfg.Logger
	}
	if w.Physics != nil {
		pc.Corrector = w.Physics
	}
	pc.Smoother = &c.corr
	pc.Components = tracks
	pc.View = c.drawnFrame
	w.seen = c.seen
	if cfg.Replay != nil {
		pc.Reconcile, pc.Step = predict.Replay, c.replayStep
		c.replay.route = newInputRoute(func(p ecs.PeerID) (routed[I], bool) {
			in := routed[I]{value: c.replay.in, live: c.replay.live, view: float64(c.w.ECS.Frame())}
			if in.live {
				in.view = c.pred.ViewAt(c.w.ECS.Frame())
			}
			return in, p == c.peer() && p != ecs.HostPeer
		})
		pc.ReplayBegin = func(ew *ecs.World, from ecs.Frame) {
			// The hidden bodies are put as the replayed frames had them
			// first: the physics' replay then keeps what they wake.
			c.w.removals.replayBegin(from, c.w.Physics != nil && c.phys.willStep(ew))
			if c.w.Physics != nil {
				c.phys.replayBegin(ew, from)
			}
		}
		pc.ReplayEnd = func(ew *ecs.World) {
			c.w.removals.replayEnd()
			if c.w.Physics != nil {
				c.phys.replayEnd(ew)
			}
		}
	}
	c.pred = predict.NewClient(w.Schedule, c.reg, g.inputCodec(), pc)
	w.removals.through = c.reanchorThrough

	c.phys = newNetPhysics(w, g.Net, c.reg, g.Components)
	c.phys.local = c.peer
	c.phys.driven = func(e arche.Entity) bool { return w.ECS.Arche().Has(e, c.driven.mark) }
	c.phys.next = relay{&c.loop}
	c.phys.auth = c.pred
	c.phys.synced = func() bool { return c.pred.Sync().Stats().Synced }
	c.phys.link = func() float64 {
		sy := c.pred.Sync().Stats()
		if !sy.Synced || c.session == nil {
			return 0
		}
		return sy.Lead + c.session.Conn().RTT().Seconds()/2/g.step().Seconds()
	}
	c.phys.smooth = relay{&c.loop}.AddCorrection
	c.phys.snap = relay{&c.loop}.SnapCorrection
	c.phys.clampDrawn = relay{&c.loop}.clampOffset
	c.phys.past = relay{&c.loop}.past
	c.phys.slide = relay{&c.loop}.slide
	c.loop.present, c.loop.held = c.phys.drawnPose, c.phys.ahead
	w.predictedAt = c.phys.predictedAt

	sc, err := session.NewClient(w.Schedule, c.reg, tc, session.ClientConfig{
		Name:      cfg.Name,
		Spectator: cfg.Spectator,
		Schema:    g.schemaOf(c.reg),
		Clock:     cfg.Clock,
		Replication: replicate.ClientConfig{
			OnSpawn:     c.arrived,
			OnRemove:    c.departed,
			Observer:    c.phys,
			Auth:        c.phys,
			MaxEntities: cfg.MaxEntities,
			JoinSlice:   cfg.JoinSlice,
		},
		OnEvent:       c.event,
		OnLaneMessage: c.laneMessage,
		Dial:          cfg.Dial,
		Ticket:        cfg.Ticket,
	})
	if err != nil {
		if dialed {
			tc.Close(transport.CloseNormal, "client failed to start")
		}
		return nil, fmt.Errorf("tandem: join: %w", err)
	}
	c.session = sc
	c.hold = sc.Holding
	c.poll = func() {
		sc.Poll()
		c.checkJoin()
	}
	c.after = func() {
		c.checkJoin()
		if err := c.pred.Err(); err != nil && c.err == nil {
			c.fail(err)
		}
	}
	// Once the session ended, Advance and Step run nothing: the game's
	// systems stop with it (they walked the player on its last input, and
	// its frame ran away from the host's it would meet again), as after a
	// Local's Close; View and Do still look at the world as it was left.
	c.ready = func(look bool) bool { return look || sc.State() != session.Closed }
	c.loop.publish = c.publish
	c.publish()
	c.between = c.joinBetween
	c.wakeOn(tc)
	c.pred.Attach(sc)
	w.Schedule.AddTo(ecs.StageInput, "tandem.input", ecs.SystemFunc(c.input))
	// After the states arrive (net.receive), before the game's systems.
	w.Schedule.AddTo(ecs.StageInput, "predict.adopt", ecs.SystemFunc(c.pred.AdoptArrived))
	w.Schedule.AddTo(ecs.StageInput, "tandem.commands", ecs.SystemFunc(func(*ecs.World) { c.flushCommands() }))
	w.Schedule.AddTo(ecs.StageInput, "tandem.driven", ecs.SystemFunc(func(ew *ecs.World) {
		if p := c.peer(); p != ecs.HostPeer {
			c.driven.drivenInputs(ew, p)
		}
	}))
	w.Schedule.AddTo(ecs.StageInput, "tandem.inputs", newInputRoute(c.routed))
	w.Schedule.AddTo(ecs.StageOutput, "tandem.stepped", ecs.SystemFunc(c.stepped))
	w.Schedule.Add("tandem.bodies", c.phys)
	c.done = c.stopped
	c.prepare = func() {
		if c.ip != nil {
			c.ip.SetLoss(c.session.Conn().InLossRate())
		}
	}
	return c, nil
}

// joinBetween is the loop's work between steps: while a join is under way
// it does the session's work of a step (Poll), which applies the pages
// waiting for at most a slice of time (1 ms, replicate.ClientConfig's
// JoinSlice), so a large world arrives at the speed of the connection and
// of this machine, not a slice per step. It reports whether to come back in
// a millisecond: while pages wait, or for as long as the join lasts on a
// connection that cannot wake the loop when something arrives. It runs on
// the loop's goroutine, which it has wake on the session's connection of
// the moment (a resume dials a new one).
func (c *Client[I]) joinBetween() bool {
	sc := c.session
	c.wakeOn(sc.Conn().Transport())
	if sc.State() != session.Joining {
		return false
	}
	sc.Poll()
	if sc.State() != session.Joining {
		return false
	}
	if c.wake == nil {
		return true
	}
	r := sc.Replicator()
	return r != nil && r.Waiting() > 0
}

// wakeOn has the loop wake when tc brings something, if tc can say so.
func (c *Client[I]) wakeOn(tc transport.Conn) {
	c.wake = nil
	if a, ok := tc.(interface{ Arrived() <-chan struct{} }); ok {
		c.wake = a.Arrived()
	}
}

// peer returns this client's peer id (0 until admitted).
func (c *Client[I]) peer() ecs.PeerID { return c.session.Peer() }

// event sets up drawing as soon as the host admits this client, before any
// entity arrives: the step and send rate are the host's Welcome's. A resume,
// or a fresh join of a client that played before, throws the prediction and
// what was drawn away: the host's join into the world held follows.
func (c *Client[I]) event(e Event) {
	admitted := e.Kind == session.PeerJoined || e.Kind == session.PeerResumed
	if e.Kind == session.PeerResumed {
		c.resumes++
	}
	if admitted {
		c.heldFrame, c.heldAt = 0, time.Time{} // another connection's, maybe another host's
	}
	if admitted && c.ip != nil {
		c.w.Peer = e.Peer
		c.ip.Reset()
		c.ip.SetLocal(e.Peer)
		c.pred.Rebase()
		c.phys.rebase()
	}
	if admitted {
		// Every admission, a Resumed too: a host restarted with another
		// Game is not played on.
		wl := c.session.Welcome()
		if want := uint16(time.Second / c.g.step()); wl.TickRate != want {
			c.fail(fmt.Errorf("tandem: the host steps at %d Hz and this game at %d Hz; host and clients must run the same Game", wl.TickRate, want))
			return
		}
	}
	if admitted && c.ip == nil {
		// The first admission: a Welcome, or a kept ticket's Resumed.
		wl := c.session.Welcome()
		ic := c.cfg.Interp
		ic.Step = c.g.step()
		if wl.SendRate > 0 {
			ic.SendInterval = time.Second / time.Duration(wl.SendRate)
		}
		c.ip = interp.New(c.w.ECS, c.clk, ic)
		c.ip.SetLocal(e.Peer)
		c.w.Peer = e.Peer
		for _, comp := range c.g.Components {
			if comp.blend != nil {
				if c.tracks == nil {
					c.tracks = map[reflect.Type]any{}
				}
				c.tracks[comp.rtype] = comp.blend(c.ip)
			}
		}
	}
	switch e.Kind {
	case session.PeerReady:
		c.joined.Store(true)
		c.joining = false
	case session.PeerRejected:
		// The host refused a resume and the client joins afresh: a join
		// as bounded as the first, by a new player, which must not run
		// what the one let go was sent.
		c.joining, c.started = true, c.clk.Now()
		var held []uint64
		if c.joined.Load() {
			// Held while the link was down, for the player let go (its
			// purchase, its item): not the new one's. A client that never
			// played (its kept ticket refused at the start) sends what it
			// holds as the player it becomes. Listed before any observer
			// runs: what one gives now is the new player's.
			held = c.heldUnsent()
		}
		c.orphanCommands(unknownReason)
		c.expireHeld(held, letGoReason)
		c.refusedTicket(e.Err)
	case session.PeerJoined, session.PeerResumed:
		// Admitted on a new connection (a first join, a resume, a fresh
		// join after a refused resume): every command without a receipt
		// goes again.
		c.admittedCommands()
		c.keepTicket()
		if e.Kind == session.PeerResumed && c.joined.Load() {
			// The join into the world held is bounded as the first was
			// (JoinTimeout): a host that never ends it would hold the
			// world still for good. A resume during the first join keeps
			// that join's bound, from NewClient.
			c.joining, c.started = true, c.clk.Now()
		}
	case session.PeerDisconnected:
		c.cmds.admitted = false // held until the next admission
		c.cmdFrame.Store(0)
		if c.joined.Load() {
			// A rejoin broken off: the host's grace window bounds the
			// reconnection, and the next Resumed bounds its join again.
			c.joining = false
		}
	case session.PeerLeft:
		if c.left {
			e.Err = nil // this client's own Close: an orderly leave
		}
	}
	if e.Kind == session.PeerLeft && !c.left {
		c.refusedTicket(e.Err) // a kept ticket refused, without Dial
		// No receipt comes now: what was sent is answered unknown (the
		// host shut down before the save that held it landed, or its world
		// was taken, or the link broke for good), rather than left
		// waiting, its observers finding the client closed, and a
		// WaitReceipt of it taking the answer before the waits end; after
		// this client's own Close, WaitReceipt says ErrClosed as before.
		c.publishStatus()
		c.orphanCommands(endedReason)
		c.expireUnsent(unsentReason) // and what never went did not run
	}
	c.publish() // what the observers may ask of State, Peer and Err
	c.mu.enter()
	defer c.mu.exit()
	for _, fn := range c.events.list() {
		fn(e)
	}
}

// firstDial makes a client's first connection with dial (ClientConfig.Dial),
// for a NewClient given none, bounded by timeout (none when negative). A
// host that did not answer is an ErrJoinTimeout. A host busy setting up
// other connections from this address (transport.ErrBusy: players behind
// one router joining together) is dialed again after 50 ms, then after
// twice as long each time up to a second, within the timeout.
func firstDial(dial func(ctx context.Context) (transport.Conn, error), timeout time.Duration) (transport.Conn, error) {
	if dial == nil {
		return nil, errors.New("tandem: NewClient needs a connection to the host: dial it first (a quicnet Transport's Dial), or set ClientConfig.Dial and pass none")
	}
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	wait := 50 * time.Millisecond
	for {
		tc, err := dial(ctx)
		if errors.Is(err, transport.ErrBusy) {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
				wait = min(2*wait, time.Second)
				continue
			case <-ctx.Done():
				t.Stop()
				return nil, fmt.Errorf("%w: the host stayed busy: %w", ErrJoinTimeout, err)
			}
		}
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			return nil, fmt.Errorf("%w: %w", ErrJoinTimeout, err)
		}
		if err != nil {
			return nil, fmt.Errorf("tandem: join: %w", err)
		}
		return tc, nil
	}
}

// checkJoin gives up a join (the first, or a fresh one after a refused
// resume) that outlasted ClientConfig.JoinTimeout. It runs after each step
// and each poll of a held world.
func (c *Client[I]) checkJoin() {
	if !c.joining || c.cfg.JoinTimeout < 0 || c.session.State() == session.Closed {
		return
	}
	if waited := c.clk.Now().Sub(c.started); waited >= c.cfg.JoinTimeout {
		why := "the host did not let this client in; check that it runs and is reachable, and try again"
		if c.session.State() == session.Joining {
			why = "the host let this client in and its world did not arrive; try again, or a host nearer or less busy"
		}
		err := fmt.Errorf("%w: still %v after %v: %s", ErrJoinTimeout, c.session.State(), waited.Round(time.Millisecond), why)
		if c.err == nil {
			c.err = err
		}
		c.session.GiveUp(err.Error())
	}
}

// Joined reports whether the client's first join finished: it played (it
// was Playing at least once), whatever its State now. A session that
// closed before that never joined: the host refused it (Err wraps
// ErrRefused), did not finish the join in time (ErrJoinTimeout), or the
// connection ended. Safe from any goroutine, inside View, Do and hooks
// too: one atomic load.
func (c *Client[I]) Joined() bool { return c.joined.Load() }

// fail closes the session for err, which Err then returns.
func (c *Client[I]) fail(err error) {
	if c.err == nil {
		c.err = err
	}
	c.session.Close()
}

// arrived gives a received entity, made from the host's state of frame,
// what the engine needs of it: an entity this client predicts gets
// Interpolated, to be drawn between steps, and Input if the host's has it (it
// carries the mark: driven.go), and with ClientConfig.Replay is replayed from
// frame to the present at the next step (predict's Adopt: a respawned
// avatar); then the Game's Arrived hook adds the game's own.
func (c *Client[I]) arrived(e arche.Entity, owner ecs.PeerID, frame ecs.Frame) {
	w := c.w.ECS
	a := w.Arche()
	if owner == c.peer() && owner != ecs.HostPeer {
		if !c.inputs.Has(e) && a.Has(e, c.driven.mark) {
			a.Add(e, c.driven.input)
		}
		if a.Has(e, w.IDs.Transform) && !a.Has(e, w.IDs.Interpolated) {
			a.Add(e, w.IDs.Interpolated)
			c.interps.Get(e).Prev = *(*ecs.Transform)(a.Get(e, w.IDs.Transform))
		}
		if !a.Has(e, w.IDs.HostMoved) {
			defer c.pred.Adopt(e, frame) // after the game's Arrived: its values as the game made them
		}
	}
	if c.g.Arrived != nil {
		c.mu.enter()
		defer c.mu.exit()
		defer c.recoverHook("Arrived", e)
		c.g.Arrived(c.w, e)
	}
}

// departed runs the Game's Departed hook on entity e, which the client is
// about to remove.
func (c *Client[I]) departed(e arche.Entity) {
	if c.g.Departed == nil {
		return
	}
	c.mu.enter()
	defer c.mu.exit()
	defer c.recoverHook("Departed", e)
	c.g.Departed(c.w, e)
}

// recoverHook ends the session, rather than the program, when the Game's
// hook (Arrived, Departed) panics on entity e: what the host sent is not
// what the game expects of its entities (one without the Transform its body
// needs). A panic inside a query the hook left open leaves the world
// locked, which nothing undoes: that one goes on up.
func (c *Client[I]) recoverHook(hook string, e arche.Entity) {
	v := recover()
	if v == nil {
		return
	}
	if c.w.ECS.Arche().IsLocked() {
		panic(v)
	}
	c.fail(fmt.Errorf("%w: the game's %s hook panicked on entity %v, received from the host: %v; the session ended (check in %s what the host's entities may lack)", ErrHostData, hook, e, v, hook))
}

// input is the client's input system: it stamps this frame's input, which
// queues it for the host; the routing system then gives it to the entities
// this client predicts.
func (c *Client[I]) input(w *ecs.World) {
	if c.session.State() != session.Playing {
		c.cmdFrame.Store(0)
		return
	}
	if c.cfg.Spectator {
		c.playing.Add(1) // it watches: no input
		return
	}
	var in I
	synced := c.pred.Sync().Stats().Synced
	switch {
	case !synced:
		// Until the frame is in step with the host's, inputs would be
		// applied at the wrong frames: the player waits (a few frames).
	case c.cfg.Input != nil:
		in = c.cfg.Input(c.w)
	default:
		in = c.keys.get()
	}
	f := c.pred.SetInput(in)
	if synced {
		// A command given during this frame runs on the host at its
		// start, after its input: in the world the game's systems see
		// (the step's end moves it on: stepped).
		c.cmdFrame.Store(uint32(f))
	} else {
		c.cmdFrame.Store(0)
	}
	in = *c.pred.Input() // the zero input, if its codec refuses in
	// A held frame drives nothing (the inputs unanswered: predict's HoldAfter).
	c.phys.input(f, c.idle(f, in) || c.pred.Held(f))
	c.playing.Add(1)
}

// idle reports whether input in, of frame f, drives nothing (Game.Idle).
func (c *Client[I]) idle(f ecs.Frame, in I) bool {
	var zero I
	if c.g.Idle == nil {
		return in == zero
	}
	prev := zero
	if p, ok := c.pred.InputAt(f - 1); ok {
		prev = *p
	}
	return c.g.Idle(prev, in)
}

// stepped ends the client's step for its commands: one given from now on
// runs at the next frame (cmdFrame).
func (c *Client[I]) stepped(ew *ecs.World) {
	if c.w.Physics != nil && c.cfg.Replay != nil {
		c.phys.recordPushes(ew, ew.Frame())
	}
	if n := c.cmdFrame.Load(); n != 0 && n != math.MaxUint32 {
		c.cmdFrame.Store(n + 1)
	}
	if r := c.w.removals; r.busy() {
		var delay time.Duration
		if c.ip != nil {
			delay = c.ip.RenderDelay()
		}
		r.tidy(ew, removalTimeout(c.session.Conn().RTT(), delay))
	}
	if r := c.session.Replicator(); r != nil && r.Frame() != c.heldFrame {
		c.heldFrame, c.heldAt = r.Frame(), c.clk.Now()
	}
}

// routed gives the frame's input to the entities this client predicts:
// live once its inputs go to the host. One with Input it no longer owns (the
// host gave it to another, or took it back) gets the zero input, not live:
// no one's input moves it here; so do its own in a frame held while the
// host leaves the client's inputs unanswered (predict.Client.Held).
func (c *Client[I]) routed(p ecs.PeerID) (in routed[I], ok bool) {
	if c.session.State() != session.Playing {
		return in, false
	}
	f := c.w.ECS.Frame()
	in.view = float64(f)
	if p != c.peer() || p == ecs.HostPeer || c.pred.Held(f) {
		return in, true
	}
	in.value, in.live = *c.pred.Input(), c.pred.InputLive(f)
	if in.live {
		in.view = c.pred.ViewAt(f)
	}
	return in, true
}

// drawnFrame is the host frame the client last drew the entities it does not
// predict at (the interpolator's render frame): the view its inputs carry
// (Input.View). Where nothing draws them (interpolation off, a client
// without a window, or one that stopped drawing for longer than
// staleDrawing), the host frame of the newest state its world held as the
// last step ended, what a player or a bot deciding between steps saw; in a
// world whose states stopped coming for longer than staleDrawing (nothing
// moves, so any frame shows the same), the frame those would be of: its
// frame less its lead on the host and half the round trip. The frame being
// predicted before it is in step: no rewind.
func (c *Client[I]) drawnFrame() float64 {
	f := float64(c.w.ECS.Frame())
	if c.drawing() {
		return min(c.ip.RenderFrame(), f)
	}
	if c.heldFrame > 0 && c.clk.Now().Sub(c.heldAt) <= staleDrawing {
		return min(float64(c.heldFrame), f)
	}
	return f - c.phys.link()
}

// drawing reports whether the interpolator draws the remote entities: it is
// on, and was updated (View) within staleDrawing.
func (c *Client[I]) drawing() bool {
	if c.ip == nil || !c.ip.Enabled() || c.ip.RenderFrame() <= 0 {
		return false
	}
	at := c.ip.UpdatedAt()
	return !at.IsZero() && c.clk.Now().Sub(at) <= staleDrawing
}

// staleDrawing is how long after its last View a client still takes what it
// drew for what its player sees (Input.View): a window drawing at 2 frames a
// second or more. Past it (a minimized window), its world's newest state.
const staleDrawing = 500 * time.Millisecond

// seen is World.Seen on a client: where it draws e now, or where its world
// has it while it does not draw (drawing).
func (c *Client[I]) seen(e arche.Entity, _ float64) (ecs.Transform, bool) {
	if c.w.removals.hidden(e) {
		return ecs.Transform{}, false
	}
	if c.drawing() && c.ip.Remote(e) {
		return c.ip.Pose(e, 0)
	}
	return c.w.transformOf(e)
}

// reanchorThrough puts each body this client predicts that went through
// e's body since the host's newest state of it (e taken for removed
// meanwhile, its body out of the physics) back where that state has it
// (predict.Client.Reanchor): its prediction went where the host's body was
// stopped.
func (c *Client[I]) reanchorThrough(e arche.Entity) {
	sp := c.w.Physics
	for _, p := range c.w.ECS.Owned(c.peer()) {
		if from, ok := c.pred.Anchor(p); ok && sp.Swept(p, e, from) {
			c.pred.Reanchor(p)
		}
	}
}

// replayStep is the predicted step of a client with ClientConfig.Replay: the
// frame's input to the entities it drives, then the game's Replay, then,
// with physics, the physics step (netphys_replay.go).
func (c *Client[I]) replayStep(w *ecs.World, f ecs.Frame, in *I) {
	c.w.removals.replayFrame(f)
	c.replay.in, c.replay.live = *in, c.pred.InputLive(f) && !c.pred.Held(f)
	c.replay.route.Update(w)
	c.cfg.Replay(c.w)
	w.FlushRemovals() // what the replayed frame removed under a query
	if c.w.Physics != nil {
		c.phys.replayFrame(w, f)
	}
}

// relay passes the replicator's and the predictor's notices on to a loop's
// interpolator, which a client makes only when the host's Welcome came.
type relay struct{ l *loop }

// Applied implements replicate.Observer.
func (r relay) Applied(e arche.Entity, f ecs.Frame) {
	if r.l.ip != nil {
		r.l.ip.Applied(e, f)
	}
}

// Born implements replicate.BirthObserver.
func (r relay) Born(e arche.Entity, f ecs.Frame) {
	if r.l.ip != nil {
		r.l.ip.Born(e, f)
	}
}

// Jumped implements replicate.JumpObserver.
func (r relay) Jumped(e arche.Entity, f ecs.Frame) {
	if r.l.ip != nil {
		r.l.ip.Jumped(e, f)
	}
}

// Drawing implements replicate.DrawnObserver.
func (r relay) Drawing(e arche.Entity, f ecs.Frame) bool {
	return r.l.ip != nil && r.l.ip.Drawing(e, f)
}

// Heard implements replicate.FrameObserver.
func (r relay) Heard(f ecs.Frame) {
	if r.l.ip != nil {
		r.l.ip.Heard(f)
	}
}

// HeldBack implements replicate.BacklogObserver.
func (r relay) HeldBack(f ecs.Frame, held, every int) {
	if r.l.ip != nil {
		r.l.ip.HeldBack(f, held, every)
	}
}

// Removed implements replicate.Observer.
func (r relay) Removed(e arche.Entity) {
	if r.l.ip != nil {
		r.l.ip.Removed(e)
	}
}

// AddCorrection implements predict.Smoother: the correction moved e's
// Transform, so its Prev moves with it, and the interpolator hides the move.
func (r relay) AddCorrection(e arche.Entity, dx, dy, da float64) {
	r.l.w.drawn.shift(r.l.w.ECS, e, dx, dy, da)
	if r.l.ip != nil {
		r.l.ip.AddCorrection(e, dx, dy, da)
	}
}

// clampOffset has clamp take out of predicted entity e's drawn offset what
// would draw it where its body cannot be (interp.Interpolator.ClampOffset).
func (r relay) clampOffset(e arche.Entity, clamp func(e arche.Entity, dx, dy float64) (float64, float64)) {
	if r.l.ip != nil {
		r.l.ip.ClampOffset(e, clamp)
	}
}

// past returns where the interpolator drew remote entity e last.
func (r relay) past(e arche.Entity) (ecs.Transform, bool) {
	if r.l.ip == nil {
		return ecs.Transform{}, false
	}
	return r.l.ip.Pose(e, 0)
}

// slide starts remote entity e drawn d away from where its states put it
// (interp.Interpolator.Slide).
func (r relay) slide(e arche.Entity, dx, dy, da float64) {
	if r.l.ip != nil {
		r.l.ip.Slide(e, dx, dy, da)
	}
}

// SnapCorrection implements predict.Snapper: e's pose jumped (a teleport
// the host reported), so it is drawn from its new pose, with no offset and
// no blend from where it was.
func (r relay) SnapCorrection(e arche.Entity) {
	r.l.w.drawn.atRest(r.l.w.ECS, []arche.Entity{e}, false)
	if r.l.ip != nil {
		r.l.ip.SnapCorrection(e)
	}
}

// stopped is Run's end: the session closed.
func (c *Client[I]) stopped() error {
	if c.session.State() != session.Closed {
		return nil
	}
	if err := c.errLocked(); err != nil {
		return err
	}
	var ce *transport.CloseError
	if !c.left && errors.As(c.session.Err(), &ce) && ce.Remote {
		switch ce.Code {
		case transport.CloseHostShutdown:
			return ErrHostClosed
		case transport.CloseHostRestarting:
			return ErrHostRestarting
		}
	}
	return ErrClosed
}

// OnEvent adds fn to the observers of the client's events (admitted, ready,
// closed); they run in the order added, on the simulation goroutine, with
// the world locked: an observer reads the world directly (Client.World,
// Client.Local), never through Do or View, which would wait for itself. Safe from any goroutine, inside callbacks, hooks and
// observers too (one added by an observer hears the events that come after).
// It returns the function that removes fn: from the next event on, it is
// not called (one under way on the simulation goroutine as another
// goroutine removes it may still call it).
func (c *Client[I]) OnEvent(fn func(Event)) (remove func()) { return c.events.add(fn) }

// SetInput sets the input of the player at this machine; it holds for every
// frame simulated until the next call. Ignored with ClientConfig.Input. Safe
// from any goroutine, inside callbacks, hooks and observers too.
func (c *Client[I]) SetInput(in I) { c.keys.set(in) }

// Run steps the client at its fixed rate on the calling goroutine until ctx
// is done (it returns nil) or the session ends: ErrClosed after Close,
// ErrHostClosed (an ErrClosed too) after the host shut down,
// ErrHostRestarting (an ErrHostClosed) after it asked its players to come
// back and this one could not, else what Err says. A Run ended by ctx
// leaves the session as it is: call Close to leave the game (the host then
// lets the player go at once, rather than keeping it through its idle
// timeout and grace window as a broken connection).
func (c *Client[I]) Run(ctx context.Context) error { return c.run(ctx) }

// ErrHostClosed is returned by a client's Run when the host ended the
// session by shutting down (Host.Close), rather than the client's own
// Close. It is an ErrClosed: errors.Is(err, ErrClosed) holds for both.
var ErrHostClosed = fmt.Errorf("%w: the host shut down", ErrClosed)

// ErrHostRestarting is returned by the Run of a client that cannot come
// back (it has no ClientConfig.Dial) when its host asked its players to
// come back: it closed for a restart (Host.CloseForRestart, a fleet's
// RestartOnTerm), or stopped because another host took its world. The world goes on elsewhere: a game
// may say "the server is restarting: join again" rather than that the game
// ended. It is an ErrHostClosed (and an ErrClosed).
var ErrHostRestarting = fmt.Errorf("%w, asking its players to come back", ErrHostClosed)

// World returns the client's world. Use it between steps only: from a system
// or hook, inside View or Do, or while nothing runs the client.
func (c *Client[I]) World() *World { return c.w }

// State returns where the client is in its session, as of the end of its
// last Advance, Step or Do, or its last event (an observer reads the state
// the event left). Safe from any goroutine, inside callbacks, hooks and
// observers too.
func (c *Client[I]) State() ClientState {
	c.status.mu.Lock()
	defer c.status.mu.Unlock()
	return c.status.state
}

// clientStatus is what State, Peer, Err and NetStats report, copied by the
// simulation goroutine under a lock of its own (publish), so that they never
// wait for the world.
type clientStatus struct {
	mu     sync.Mutex
	stats  NetStats
	state  ClientState
	peer   ecs.PeerID
	ticket Ticket
	err    error
	closed bool // err was taken when the session closed
}

// publishStatus is publish without ending the receipt waits: the commands
// due, then the figures, state, peer and error. It returns the state.
func (c *Client[I]) publishStatus() session.ClientState {
	c.flushDue()
	st := c.session.State()
	figures := c.Stats()
	s := &c.status
	s.mu.Lock()
	s.stats, s.state, s.peer = figures, st, c.peer()
	if !c.left {
		s.ticket, _ = c.session.Ticket()
	}
	if st == session.Closed && !s.closed {
		s.closed, s.err = true, c.errLocked()
	}
	s.mu.Unlock()
	return st
}

// publish copies the session's state, peer, error and figures into
// c.status. It allocates nothing. It runs with the world locked: at the end
// of every Advance, Step, View, Do and handshake turn, before the game's
// observers hear an event, at Close, and in NetStats when the world is free.
// The error is taken once the session closed (it does not change after, but
// for Close); then no receipt comes, and every WaitReceipt ends.
func (c *Client[I]) publish() {
	if c.publishStatus() == session.Closed {
		c.cmds.mu.Lock()
		if !c.cmds.waits.ended {
			c.cmds.waits.end() // no receipt comes now
		}
		c.cmds.mu.Unlock()
	}
}

// Err returns why the session ended, or nil while it runs and after an
// orderly end (Close, or the host shutting down). A refusal by the host wraps
// ErrRefused with the host's reason; a first join that outlasted
// ClientConfig.JoinTimeout wraps ErrJoinTimeout; a first connection that
// ended before the host answered wraps ErrNoAnswer. Joined tells a session that
// ended after playing from one that never got in. Safe from any goroutine,
// inside callbacks, hooks and observers too.
func (c *Client[I]) Err() error {
	c.status.mu.Lock()
	defer c.status.mu.Unlock()
	return c.status.err
}

func (c *Client[I]) errLocked() error {
	if c.err != nil {
		return c.err
	}
	err := c.session.Err()
	var ce *transport.CloseError
	switch {
	case err == nil || c.left:
		return nil
	case errors.Is(err, session.ErrRejected):
		return fmt.Errorf("%w: %w", ErrRefused, err)
	case errors.Is(err, session.ErrHostLost) && !c.joined.Load() && c.session.Peer() == 0:
		// Dialed again after the first connection broke before the
		// host's Welcome, without an answer: nothing to come back to.
		return fmt.Errorf("%w: %w", ErrNoAnswer, err)
	case errors.Is(err, session.ErrHostLost):
		// Not an orderly close, whatever the last error it wraps.
		return err
	case errors.As(err, &ce) && ce.Remote && ce.Code == transport.CloseKicked && c.playing.Load() == 0:
		return fmt.Errorf("%w: %s", ErrRefused, ce.Reason)
	case errors.As(err, &ce) && (ce.Code == transport.CloseHostShutdown || ce.Code == transport.CloseHostRestarting || ce.Code == transport.CloseNormal):
		return nil
	case !c.joined.Load() && c.session.Peer() == 0 && errors.As(err, &ce) && !ce.Remote:
		// Closed here before the host said a word (Welcome): nothing to
		// come back to.
		return fmt.Errorf("%w: %w", ErrNoAnswer, err)
	}
	return err
}

// ErrNoAnswer is wrapped by Err when the first connection ended before the
// host answered it (its Welcome), this end giving up on it: the host went
// silent (the link broke, or the host stopped) while the client waited to
// be let in. With ClientConfig.Dial the client dials again by itself first,
// saying Hello (Resume, with a kept Ticket) on each new connection, for 10 s
// (within JoinTimeout). There
// is no player to come back to: join again (NewClient), or check that the
// host runs at that address.
var ErrNoAnswer = errors.New("tandem: the connection ended before the host answered; join again, or check that the host runs at that address")

// Close leaves the game and returns what closing the connection returned;
// a second call does nothing and returns nil, and Err is nil after it.
// Commands still waiting for their receipt get none
// (CommandStats.Abandoned counts them; WaitReceipt returns ErrClosed).
// Safe from any goroutine, except from inside a View or Do callback, a
// system, a hook or an observer (there it returns ErrWorldHeld after two
// seconds and does nothing).
func (c *Client[I]) Close() error {
	if err := c.mu.outside("Client.Close", "close after it returns (a system may cancel the context of Run, and close after Run returns)"); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.left {
		c.cmds.abandon()
	}
	c.left = true
	live := c.session.State() != session.Closed
	err := c.session.Close()
	if live {
		c.dropTicket() // this is the leave; a session ended before (another process took the place) keeps it
	}
	c.status.mu.Lock()
	c.status.ticket = Ticket{} // the player left: its place goes with it
	c.status.mu.Unlock()
	c.status.mu.Lock()
	c.status.closed = false // Err after Close says what Close made of it
	c.status.mu.Unlock()
	c.publish()
	return err
}

// Name returns the player's name as the client sends it to the host
// (ClientConfig.Name, "player" if it was empty). Safe from any goroutine.
func (c *Client[I]) Name() string { return c.cfg.Name }

// Peer returns the peer id the host gave this client (0 before it was
// admitted). Safe from any goroutine, inside callbacks, hooks and observers
// too (World.Peer holds the same).
func (c *Client[I]) Peer() ecs.PeerID {
	c.status.mu.Lock()
	defer c.status.mu.Unlock()
	return c.status.peer
}

// Ticket returns what takes this player's place back from a new process of
// the game (ClientConfig.Ticket): its peer id and session token, from the
// host's admission (ok false before it; a fresh join after a refused
// resume gives a new one). Keep it where the player's settings are, as a
// password (whoever holds it is this player while the host keeps the
// place); its MarshalText is text for a file. Safe from any goroutine,
// inside callbacks, hooks and observers too.
func (c *Client[I]) Ticket() (t Ticket, ok bool) {
	c.status.mu.Lock()
	defer c.status.mu.Unlock()
	return c.status.ticket, !c.status.ticket.IsZero()
}

// Local returns the first entity this client drives (one it owns, with
// Input: Driven of its peer), or ok == false before one arrived. Call it on
// the simulation goroutine (inside View or Do).
func (c *Client[I]) Local() (arche.Entity, bool) {
	p := c.peer()
	if p == ecs.HostPeer {
		return arche.Entity{}, false
	}
	return Driven[I](c.w, p)
}

// Frames returns how many frames the client simulated since its join
// finished. Safe from any goroutine, inside callbacks and observers too.
func (c *Client[I]) Frames() int { return int(c.playing.Load()) }
