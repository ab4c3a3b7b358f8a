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
	// towards game.MaxPlayers.
	HostPlays bool
}

// New describes the demo's match to the engine: the arena and rules (package
// game), the replicated components and the input, who gets which player, the
// players' commands, and what a host's save holds beside the replicated
// components. A peer that joins gets a player of the first free colour on
// the smaller team (the left one on a tie), or is refused once
// game.MaxPlayers people play.
func New(cfg Config) *tandem.Game[game.Input] {
	pc := game.PhysicsConfig(cfg.Match)
	return &tandem.Game[game.Input]{
		Step:       cfg.Match.Step,
		Physics:    &pc,
		Components: components(),
		Input:      InputCodec(),
		Setup:      func(w *tandem.World) { setup(cfg, w) },
		Join:       join,
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

// join spawns a peer's player, or refuses the peer when every colour is
// taken.
func join(w *tandem.World, p tandem.Peer) error {
	var taken [game.MaxPlayers]bool
	var sizes [2]int
	q := generic.NewFilter1[game.Player]().Query(w.ECS.Arche())
	for q.Next() {
		pl := q.Get()
		sizes[pl.Team]++
		if c := slices.Index(game.PlayerColors[:], pl.Color); c >= 0 {
			taken[c] = true
		}
	}
	c := slices.Index(taken[:], false)
	if c < 0 {
		return tandem.Refuse(fmt.Sprintf("the match is full (%d players)", game.MaxPlayers))
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
