package game_test

import (
	"testing"

	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
)

// A goal is credited to the player who touched the ball last, when that
// player is of the scoring team; an own goal is credited to nobody.
func TestGoalCreditedToLastToucher(t *testing.T) {
	for _, c := range []struct {
		team  game.Team
		goals int
	}{{game.Left, 1}, {game.Right, 0}} {
		g := newGame(t, 0)
		g.Populate()
		f := g.Config.Field
		_, cy := f.Center()
		p := g.SpawnPlayer(ecs.HostPeer, c.team, game.LocalColor)
		g.Space.SetPose(g.Ball, ecs.Transform{X: f.MaxX - 80, Y: cy})
		g.Space.SetPose(p, ecs.Transform{X: f.MaxX - 140, Y: cy})
		g.SetInput(p, game.Input{MoveX: game.InputAxisMax})
		for range 240 {
			g.Schedule.Step()
			if g.Stats.Goals > 0 {
				break
			}
		}
		if g.Stats.Goals != 1 {
			t.Fatalf("a %v player drove the ball into the right goal: %d goals", c.team, g.Stats.Goals)
		}
		pl := *(*game.Player)(g.World.Arche().Get(p, g.IDs.Player))
		if pl.Goals != c.goals {
			t.Errorf("a %v player who pushed the ball into the right goal has %d goals, want %d", c.team, pl.Goals, c.goals)
		}
	}
}

// Bots are numbered 1, 2, ... so every machine names them alike; people
// have no number.
func TestBotsAreNumbered(t *testing.T) {
	g := newGame(t, 0)
	g.Populate()
	person := g.SpawnPlayer(ecs.HostPeer, game.Left, game.LocalColor)
	a, b := g.SpawnBot(game.Right), g.SpawnBot(game.Left)
	check := []struct {
		name string
		got  uint8
		want uint8
	}{
		{"the person", (*game.Player)(g.World.Arche().Get(person, g.IDs.Player)).BotNumber, 0},
		{"the first bot", (*game.Player)(g.World.Arche().Get(a, g.IDs.Player)).BotNumber, 1},
		{"the second bot", (*game.Player)(g.World.Arche().Get(b, g.IDs.Player)).BotNumber, 2},
	}
	for _, c := range check {
		if c.got != c.want {
			t.Errorf("%s has bot number %d, want %d", c.name, c.got, c.want)
		}
	}
}
