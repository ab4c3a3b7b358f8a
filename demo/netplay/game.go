package netplay

import (
	"fmt"
	"slices"

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
	// MaxPlayers is the most people in the match (bots come on top); 0 is
	// game.MaxPlayers. Past the eight colours of game.PlayerColors, colours
	// repeat.
	MaxPlayers int
}

func (c Config) maxPlayers() int {
	if c.MaxPlayers <= 0 {
		return game.MaxPlayers
	}
	return c.MaxPlayers
}

// New describes the demo's match to the engine: the arena and rules (package
// game), the replicated components and the input, who gets which player, the
// players' commands, and what a host's save holds beside the replicated
// components. A peer that joins gets a player of the least used colour (the
// first free one while there is one) on the smaller team (the left one on a
// tie), or is refused once Config.MaxPlayers people play.
func New(cfg Config) *tandem.Game[game.Input] {
	pc := game.PhysicsConfig(cfg.Match)
	return &tandem.Game[game.Input]{
		Step:       cfg.Match.Step,
		Physics:    &pc,
		Components: components(),
		Input:      InputCodec(),
		Setup:      func(w *tandem.World) { setup(cfg, w) },
		Join:       func(w *tandem.World, p tandem.Peer) error { return join(cfg, w, p) },
		Leave:      func(w *tandem.World, p tandem.Peer) { game.Of(w).RemoveDrops(p.ID) },
		Arrived:    arrived,
		Roster:     true, // names and round trips on every machine's scoreboard
		Restored:   func(w *tandem.World, e arche.Entity) { game.Of(w).Adopt(e) },
		Commands:   []tandem.Command{SwitchTeam, DropCrate},
		Saved:      []tandem.Saved{tandem.SaveComponent(tandem.Plain[game.Bot]()), tandem.SaveComponent(tandem.Plain[game.Dropped]())},
		Net: tandem.NetPhysics{
			// Bots are players too: the host's inputs drive them.
			Hold: func(w *tandem.World, e arche.Entity) bool { return !game.Of(w).IsPlayer(e) },
		},
	}
}

// The players' commands (the rules are game's): switch team, refused when
// the other team is full; drop a crate where the player stands, at most
// game.MaxDrops.
var (
	SwitchTeam = tandem.NewCommand("switch-team", tandem.CommandCodec[struct{}]{}, func(w *tandem.World, p tandem.Peer, _ struct{}) error {
		return game.Of(w).SwitchTeam(p.ID)
	})
	DropCrate = tandem.NewCommand("drop-crate", tandem.CommandCodec[struct{}]{}, func(w *tandem.World, p tandem.Peer, _ struct{}) error {
		return game.Of(w).DropCrate(p.ID)
	})
)

// setup builds the match into w; the host (or a game alone) also populates
// it, unless a save brings its entities back.
func setup(cfg Config, w *tandem.World) {
	g := game.Build(cfg.Match, w)
	if w.Role == tandem.Joined || w.Restoring {
		return
	}
	g.Populate()
	if cfg.HostPlays {
		g.SpawnPlayer(ecs.HostPeer, game.Left, game.PlayerColors[0])
	}
	for i := range cfg.Bots {
		g.SpawnBot(game.Team(1 - i%2))
	}
}

// join spawns a peer's player, or refuses the peer when cfg's MaxPlayers
// people play. People are the players of the people's colours (bots have
// their own).
func join(cfg Config, w *tandem.World, p tandem.Peer) error {
	var uses [len(game.PlayerColors)]int
	var sizes [2]int
	people := 0
	q := generic.NewFilter1[game.Player]().Query(w.ECS.Arche())
	for q.Next() {
		pl := q.Get()
		sizes[pl.Team]++
		if c := slices.Index(game.PlayerColors[:], pl.Color); c >= 0 {
			uses[c]++
			people++
		}
	}
	if people >= cfg.maxPlayers() {
		return tandem.Refuse(fullMatch(cfg.maxPlayers()))
	}
	c := 0
	for i, n := range uses {
		if n < uses[c] {
			c = i
		}
	}
	team := game.Left
	if sizes[game.Right] < sizes[game.Left] {
		team = game.Right
	}
	game.Of(w).SpawnPlayer(p.ID, team, game.PlayerColors[c])
	return nil
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

// fullMatch is the refusal of a join to a match of most people.
func fullMatch(most int) string {
	if most == 1 {
		return "the match is full (1 player)"
	}
	return fmt.Sprintf("the match is full (%d players)", most)
}
