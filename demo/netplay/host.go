package netplay

import (
	"errors"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/predict"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// HostConfig tunes a Host. Zero fields take the defaults noted.
type HostConfig struct {
	// Clock is the time source. Default clock.Real.
	Clock clock.Clock
	// Plays says the host has a player of its own at the keyboard (spawned
	// by the caller with colour game.PlayerColors[0]); it counts towards
	// game.MaxPlayers.
	Plays bool
	// Replication tunes the replicator (send rate, bandwidth).
	Replication replicate.HostConfig
	// OnEvent, if set, hears of every peer that joins, becomes ready, leaves
	// or is refused (for a log).
	OnEvent func(session.Event)
}

// HostStats counts a host's peers.
type HostStats struct {
	// Peers is the number connected now; Joined counts every peer admitted
	// since the start, Left those that left.
	Peers, Joined, Left int
	// Malformed counts input messages refused as malformed; past the
	// connection's limit (net/conn Config.MaxMalformed) the peer is dropped.
	Malformed int
}

// peerPlayer is a joined peer's player.
type peerPlayer struct {
	entity arche.Entity
	color  int // index in game.PlayerColors
	team   game.Team
}

// Host runs a match that peers join over the network. NewHost adds its
// systems to the game's schedule; drive the schedule as usual (Advance with
// the real clock, or Step) and everything network happens inside its steps.
//
// Per host frame: the session receives (ecs.StageInput); the input buffers
// take every peer's stamped input for the frame ("predict.inputs") and
// "netplay.inputs" pushes it into that peer's player's InputQueue; the game's
// systems run; "netplay.teleports" counts teleports; the replicator sends
// state and each peer's AUTH_STATE for the frame of its applied input
// (ecs.StageOutput).
//
// Methods must be called on the simulation goroutine, except Serve, Accept
// and Close.
type Host struct {
	g       *game.Game
	cfg     HostConfig
	reg     *replicate.Registry
	session *session.Host
	inputs  *predict.HostInputs[game.Input]
	players map[ecs.PeerID]*peerPlayer
	colors  [game.MaxPlayers]bool // taken
	stats   HostStats
	isPlay  generic.Map[game.Player]
}

// NewHost networks match g, which the caller populated (game.Game.Populate)
// and gave its own player and bots. Peers are admitted up to game.MaxPlayers
// people in all. Add any system of the game's own before NewHost: the
// teleport count runs after the game's systems, and a teleport made after it
// reaches clients as a slide.
func NewHost(g *game.Game, cfg HostConfig) *Host {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Replication.StepRate == 0 {
		cfg.Replication.StepRate = 1 / g.Config.Step.Seconds()
	}
	w := g.World
	h := &Host{
		g:       g,
		cfg:     cfg,
		reg:     NewRegistry(w),
		players: make(map[ecs.PeerID]*peerPlayer),
		isPlay:  generic.NewMap[game.Player](w.Arche()),
	}
	maxPeers := game.MaxPlayers
	if cfg.Plays {
		maxPeers--
		h.colors[0] = true
	}
	h.session = session.NewHost(g.Schedule, h.reg, session.HostConfig{
		Clock:       cfg.Clock,
		MaxPeers:    maxPeers,
		Replication: cfg.Replication,
		OnJoin:      h.join,
		OnLeave:     h.leave,
		OnMessage:   h.message,
		OnEvent:     cfg.OnEvent,
	})
	h.inputs = predict.NewHostInputs(w, InputCodec(), predict.HostInputConfig[game.Input]{
		Replicator: h.session.Replicator(),
	})
	g.Schedule.AddTo(ecs.StageInput, "predict.inputs", h.inputs)
	g.Schedule.AddTo(ecs.StageInput, "netplay.inputs", ecs.SystemFunc(h.applyInputs))
	g.Schedule.Add("netplay.teleports", newTeleports(w))
	return h
}

// Serve accepts connections from l until the host closes. Safe from any
// goroutine.
func (h *Host) Serve(l transport.Listener) { h.session.Serve(l) }

// Accept hands the host one connection (tests and custom listeners). Safe
// from any goroutine.
func (h *Host) Accept(c transport.Conn) { h.session.Accept(c) }

// Close tells every peer the host is shutting down and stops accepting.
// Safe from any goroutine; the world is not touched.
func (h *Host) Close() error { return h.session.Close() }

// Session returns the session host, for its events and statistics.
func (h *Host) Session() *session.Host { return h.session }

// Inputs returns the peers' input buffers, for their statistics.
func (h *Host) Inputs() *predict.HostInputs[game.Input] { return h.inputs }

// Registry returns the replication registry.
func (h *Host) Registry() *replicate.Registry { return h.reg }

// Player returns peer's player entity, or ok == false.
func (h *Host) Player(peer ecs.PeerID) (arche.Entity, bool) {
	if p := h.players[peer]; p != nil {
		return p.entity, true
	}
	return arche.Entity{}, false
}

// Stats returns the peer counts.
func (h *Host) Stats() HostStats {
	s := h.stats
	s.Peers = len(h.players)
	return s
}

// join spawns a peer's player: the first colour free, on the team with fewer
// players (the left one on a tie).
func (h *Host) join(peer ecs.PeerID, name string) {
	c := 0
	for c < len(h.colors)-1 && h.colors[c] {
		c++
	}
	h.colors[c] = true
	var sizes [2]int
	q := generic.NewFilter1[game.Player]().Query(h.g.World.Arche())
	for q.Next() {
		sizes[q.Get().Team]++
	}
	team := game.Left
	if sizes[game.Right] < sizes[game.Left] {
		team = game.Right
	}
	e := h.g.SpawnPlayer(peer, team, game.PlayerColors[c])
	h.players[peer] = &peerPlayer{entity: e, color: c, team: team}
	h.stats.Joined++
}

// leave forgets a peer: the session has removed its player.
func (h *Host) leave(peer ecs.PeerID, err error) {
	if p := h.players[peer]; p != nil {
		h.colors[p.color] = false
		delete(h.players, peer)
		h.stats.Left++
	}
	h.inputs.RemovePeer(peer)
}

// message takes a peer's input messages; malformed ones count against the
// peer's connection, which drops a peer that keeps sending them.
func (h *Host) message(peer ecs.PeerID, kind wire.Kind, payload []byte) {
	if kind != wire.KindInput {
		return
	}
	if err := h.inputs.Receive(peer, payload); errors.Is(err, predict.ErrMalformed) {
		h.stats.Malformed++
		h.session.ReportMalformed(peer, err)
	}
}

// applyInputs pushes every peer's input for this frame into its player's
// InputQueue, where the control system takes it. Cost: one step per peer.
func (h *Host) applyInputs(w *ecs.World) {
	f := w.Frame()
	for peer, p := range h.players {
		in, ok := h.inputs.Input(peer)
		if !ok || !w.Alive(p.entity) {
			continue
		}
		h.g.PushInput(p.entity, game.StampedInput{Frame: f, Input: *in})
	}
}
