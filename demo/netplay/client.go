package netplay

import (
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/interp"
	"github.com/tandem-go/tandem/net/predict"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
)

// snapDistance is how far apart, in world units, two states of an entity
// are drawn as a teleport even without a changed teleport count: about twice
// the furthest anything in the demo moves between two states (the ball, 75
// units over eight frames of lost sends). It catches a teleport whose count
// came after its pose: the host sends again what a lost message carried, and
// an earlier lost message may bring the new pose back first.
const snapDistance = 150

// inputMissRate is the chance per frame the client's input buffer is sized
// to let an input miss its frame on the host for datagram loss alone: at 5%
// loss each way that is a buffer of four frames, and one miss in a few hours
// of play. (predict's default, 1e-4, is one miss every three minutes.)
const inputMissRate = 1e-6

// ClientConfig tunes a Client. Zero fields take the defaults noted.
type ClientConfig struct {
	// Name is the player's name, sent to the host.
	Name string
	// Clock is the time source. Default clock.Real.
	Clock clock.Clock
	// Bot drives the player with the game's computer-player logic
	// (game.Game.Steer) instead of SetInput.
	Bot bool
	// Interp tunes the interpolation of what the client draws; its Step and
	// SendInterval default to the match's step and the host's send interval,
	// its SnapDistance to 150 world units.
	Interp interp.Config
	// Predict tunes prediction: reconciliation mode, input redundancy, time
	// synchronization. Its Clock, Corrector, Smoother and Components are set
	// by the Client.
	Predict predict.ClientConfig[game.Input]
	// OnEvent, if set, hears of the session's events (admitted, ready,
	// closed).
	OnEvent func(session.Event)
}

// Client is a match joined over the network: it holds the host's world in its
// game, predicts its own player with the game's control and physics systems,
// and knows where to draw every entity (Pose).
//
// Per client frame: the predictor keeps the frame ahead of the host's
// ("predict.begin"); the session applies what arrived ("net.receive"),
// AUTH_STATE included, which the predictor reconciles; "netplay.input" stamps
// this frame's input (none until the clock is in step with the host's),
// queues it for the host and pushes it into the player's InputQueue; the
// game's control and physics systems run (bots and goals are the host's);
// "netplay.remotes" puts remote bodies back on the host's state and
// "netplay.rest" holds a resting player where the host has it; the predictor
// records the frame and the session sends.
//
// Methods must be called on the simulation goroutine.
type Client struct {
	g       *game.Game
	cfg     ClientConfig
	clk     clock.Clock
	reg     *replicate.Registry
	session *session.Client
	pred    *predict.Client[game.Input]
	ip      *interp.Interpolator
	remotes *remotes
	corr    *correctionLog
	rest    *restLock

	queues  generic.Map[game.InputQueue]
	isPlay  generic.Map[game.Player]
	isBall  generic.Map[game.Ball]
	isCrate generic.Map[game.Crate]
	isScore generic.Map[game.Score]

	local   arche.Entity
	keys    game.Input
	bot     game.Bot
	playing ecs.Frame // frames simulated since the join finished
	travel  float64   // distance the player's disc moved, world units
	last    ecs.Transform
	lastOK  bool
}

// NewClient joins the host at the other end of tc with match g, a fresh
// game.New of the host's Config that the caller does not populate. It sends
// the hello at once; the join and everything after happen in the schedule's
// steps. It sets g.Replica.
func NewClient(g *game.Game, tc transport.Conn, cfg ClientConfig) (*Client, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	g.Replica = true
	w := g.World
	a := w.Arche()
	c := &Client{
		g:       g,
		cfg:     cfg,
		clk:     cfg.Clock,
		reg:     NewRegistry(w),
		queues:  generic.NewMap[game.InputQueue](a),
		isPlay:  generic.NewMap[game.Player](a),
		isBall:  generic.NewMap[game.Ball](a),
		isCrate: generic.NewMap[game.Crate](a),
		isScore: generic.NewMap[game.Score](a),
		bot:     g.NewBot(0),
	}
	ic := cfg.Interp
	if ic.SnapDistance == 0 {
		ic.SnapDistance = snapDistance
	}
	if ic.Step == 0 {
		ic.Step = g.Config.Step
	}
	if ic.SendInterval == 0 {
		ic.SendInterval = 2 * g.Config.Step
	}
	c.ip = interp.New(w, c.clk, ic)

	pc := cfg.Predict
	if pc.Sync.MissRate == 0 {
		pc.Sync.MissRate = inputMissRate
	}
	pc.Clock = c.clk
	pc.Corrector = g.Space
	c.corr = &correctionLog{next: c.ip, clk: c.clk}
	pc.Smoother = c.corr
	pc.Components = trackers()
	c.pred = predict.NewClient(g.Schedule, c.reg, InputCodec(), pc)

	c.remotes = newRemotes(w, g.Space, c.peer, func() arche.Entity { return c.local }, c.ip)
	c.rest = newRestLock(c, c.pred)
	sc, err := session.NewClient(g.Schedule, c.reg, tc, session.ClientConfig{
		Name:  cfg.Name,
		Clock: c.clk,
		Replication: replicate.ClientConfig{
			OnSpawn:  c.spawned,
			Observer: c.remotes,
			Auth:     c.rest,
		},
		OnEvent: c.event,
	})
	if err != nil {
		return nil, err
	}
	c.session = sc
	c.pred.Attach(sc)
	g.Schedule.AddTo(ecs.StageInput, "netplay.input", ecs.SystemFunc(c.input))
	g.Schedule.Add("netplay.remotes", c.remotes)
	g.Schedule.Add("netplay.rest", c.rest)
	return c, nil
}

// peer returns this client's peer id (0 until admitted).
func (c *Client) peer() ecs.PeerID {
	if c.session == nil {
		return ecs.HostPeer
	}
	return c.session.Peer()
}

// event learns the local peer as soon as the host admits it, before any
// entity arrives, so the interpolator treats the player as local.
func (c *Client) event(e session.Event) {
	if e.Kind == session.PeerJoined {
		c.ip.SetLocal(e.Peer)
	}
	if c.cfg.OnEvent != nil {
		c.cfg.OnEvent(e)
	}
}

// spawned gives a received entity what the game needs of it: a body for
// players, the ball and crates; the ball and score entities; and, for the
// client's own player, an InputQueue and Interpolated (drawn blended between
// simulation steps).
func (c *Client) spawned(e arche.Entity, owner ecs.PeerID) {
	g := c.g
	a := g.World.Arche()
	switch {
	case c.isScore.Has(e):
		g.Score = e
		return
	case c.isBall.Has(e):
		g.Ball = e
	case c.isPlay.Has(e) && owner == c.peer() && owner != ecs.HostPeer:
		c.local = e
		c.lastOK = false
		a.Add(e, g.IDs.InputQueue, g.World.IDs.Interpolated)
		t := *(*ecs.Transform)(a.Get(e, g.World.IDs.Transform))
		*(*ecs.Interpolated)(a.Get(e, g.World.IDs.Interpolated)) = ecs.Interpolated{Prev: t}
	case !c.isCrate.Has(e) && !c.isPlay.Has(e):
		return
	}
	if a.Has(e, g.World.IDs.Transform) && a.Has(e, g.World.IDs.Velocity) && !a.Has(e, g.Space.BodyID()) {
		g.Embody(e)
	}
}

// input is the client's input system: it stamps this frame's input (the
// keyboard's, or the bot's), which queues it for the host, and pushes it into
// the player's InputQueue for the control system.
func (c *Client) input(w *ecs.World) {
	e := c.local
	if c.session.State() != session.Playing || !w.Alive(e) || !c.queues.Has(e) {
		return
	}
	var in game.Input
	switch {
	case !c.pred.Sync().Stats().Synced:
		// Until the frame is in step with the host's, inputs would be
		// applied at the wrong frames: the player waits (a few frames).
	case c.cfg.Bot:
		in = c.g.Steer(e, &c.bot)
	default:
		in = c.keys
	}
	f := c.pred.SetInput(in)
	c.rest.input(f, in)
	q := c.queues.Get(e)
	if q.Last.Frame >= f {
		// The frame jumped back to stay in step with the host: start the
		// queue over.
		*q = game.InputQueue{}
	}
	c.g.PushInput(e, game.StampedInput{Frame: f, Input: in})
	c.playing++
	t := c.g.Pose(e)
	if c.lastOK {
		c.travel += dist(c.last, t)
	}
	c.last, c.lastOK = t, true
}

// SetInput sets the input of the player at the keyboard; it holds for every
// frame simulated until the next call. Ignored with ClientConfig.Bot.
func (c *Client) SetInput(in game.Input) { c.keys = in }

// Game returns the client's match.
func (c *Client) Game() *game.Game { return c.g }

// Session returns the session client: state, events, connection.
func (c *Client) Session() *session.Client { return c.session }

// Predictor returns the predictor: its statistics and time synchronization.
func (c *Client) Predictor() *predict.Client[game.Input] { return c.pred }

// Interpolator returns the interpolator. Call its Update once per drawn
// frame, then Pose for every entity to draw.
func (c *Client) Interpolator() *interp.Interpolator { return c.ip }

// Local returns the client's own player, or ok == false before it arrived.
func (c *Client) Local() (arche.Entity, bool) {
	return c.local, c.g.World.Alive(c.local)
}

// Playing returns how many frames the client simulated since its join
// finished, and how far its player's disc moved in them (world units).
func (c *Client) Playing() (frames int, travel float64) { return int(c.playing), c.travel }

// Close leaves the match.
func (c *Client) Close() error { return c.session.Close() }

// RemoteStats returns what the client did with remote bodies.
func (c *Client) RemoteStats() RemoteStats { return c.remotes.stats }

// Corrections returns the sizes of the pose corrections made so far.
func (c *Client) Corrections() CorrectionStats { return c.corr.Stats() }

// Pose returns where to draw entity e at alpha (the schedule's Alpha): see
// interp.Interpolator.Pose.
func (c *Client) Pose(e arche.Entity, alpha float64) (ecs.Transform, bool) {
	return c.ip.Pose(e, alpha)
}

// Draw advances the interpolator to now; call it once per drawn frame,
// before Pose.
func (c *Client) Draw(now time.Time) {
	c.ip.SetLoss(c.session.Conn().LossRate())
	c.ip.Update(now)
}
