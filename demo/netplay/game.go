package netplay

import (
	"fmt"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
)

// Config says what the host puts in a match; a client takes the match as the
// host has it, so only Match matters there (it must be the host's).
type Config struct {
	// Match is the arena and its tuning, the same on every machine.
	Match game.Config
	// Bots is how many computer players the host adds; they join the right
	// team first, then alternate.
	Bots int
	// HostPlays gives the host a player of its own (colour
	// game.PlayerColors[0], left team), driven by Host.SetInput; it counts
	// towards MaxPlayers.
	HostPlays bool
	// MaxPlayers is the most people in the match; 0 is game.MaxPlayers.
	// Past the eight colours of game.PlayerColors, colours repeat.
	MaxPlayers int
}

func (c Config) maxPlayers() int {
	if c.MaxPlayers <= 0 {
		return game.MaxPlayers
	}
	return c.MaxPlayers
}

// New describes the demo's match to the engine: the arena and rules (package
// game), the replicated components and the input, and who gets which player.
// A peer that joins gets a player of the first free colour on the smaller
// team (the left one on a tie), or is refused once Config.MaxPlayers people
// play.
func New(cfg Config) *tandem.Game[game.Input] {
	pc := game.PhysicsConfig(cfg.Match)
	return &tandem.Game[game.Input]{
		Step:       cfg.Match.Step,
		Physics:    &pc,
		Components: components(),
		Input:      InputCodec(),
		Setup:      func(w *tandem.World) { setup(cfg, w) },
		Join:       func(w *tandem.World, p tandem.Peer) error { return join(cfg, w, p) },
		Leave:      leave,
		Arrived:    arrived,
		Roster:     true, // names and round trips on every machine's scoreboard
		Net: tandem.NetPhysics{
			// Bots are players too: the host's inputs drive them.
			Hold: func(w *tandem.World, e arche.Entity) bool { return !game.Of(w).IsPlayer(e) },
		},
	}
}

// teams is the host's record of who plays: the colours taken, by index in
// game.PlayerColors, and each peer's.
type teams struct {
	taken []bool // by player number: colour game.PlayerColors[n % 8]
	color map[ecs.PeerID]int
}

// setup builds the match into w; the host (or a game alone) also populates it.
func setup(cfg Config, w *tandem.World) {
	g := game.Build(cfg.Match, w)
	if w.Role == tandem.Joined {
		return
	}
	g.Populate()
	t := &teams{taken: make([]bool, cfg.maxPlayers()), color: map[ecs.PeerID]int{}}
	ecs.AddResource(w.ECS, t)
	if cfg.HostPlays {
		t.taken[0] = true
		g.SpawnPlayer(ecs.HostPeer, game.Left, game.PlayerColors[0])
	}
	for i := range cfg.Bots {
		g.SpawnBot(game.Team(1 - i%2))
	}
}

// join spawns a peer's player, or refuses the peer when every colour is
// taken.
func join(cfg Config, w *tandem.World, p tandem.Peer) error {
	t := ecs.Resource[teams](w.ECS)
	c := 0
	for c < len(t.taken) && t.taken[c] {
		c++
	}
	if c == len(t.taken) {
		return tandem.Refuse(fmt.Sprintf("the match is full (%d players)", cfg.maxPlayers()))
	}
	t.taken[c] = true
	t.color[p.ID] = c
	var sizes [2]int
	q := generic.NewFilter1[game.Player]().Query(w.ECS.Arche())
	for q.Next() {
		sizes[q.Get().Team]++
	}
	team := game.Left
	if sizes[game.Right] < sizes[game.Left] {
		team = game.Right
	}
	game.Of(w).SpawnPlayer(p.ID, team, game.PlayerColors[c%len(game.PlayerColors)])
	return nil
}

// leave frees a peer's colour; the engine removed its player.
func leave(w *tandem.World, p tandem.Peer) {
	t := ecs.Resource[teams](w.ECS)
	if c, ok := t.color[p.ID]; ok {
		t.taken[c] = false
		delete(t.color, p.ID)
	}
}

// arrived gives a received player, ball or crate its body, and notes the
// ball and the score.
func arrived(w *tandem.World, e arche.Entity) {
	g := game.Of(w)
	switch {
	case g.IsScore(e):
		g.Score = e
	case g.IsBall(e):
		g.Ball = e
		g.Embody(e)
	case g.IsPlayer(e) || g.IsCrate(e):
		g.Embody(e)
	}
}
