package game_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
)

// TestSwitchTeam: a player changes team and goes to its kick-off spots,
// reported; a switch that would make the other team bigger is refused.
func TestSwitchTeam(t *testing.T) {
	g := newGame(t, 0)
	changes := journalWatch(g)
	a := g.SpawnPlayer(1, game.Left, game.PlayerColors[1])
	g.SpawnPlayer(2, game.Left, game.PlayerColors[2])
	g.SpawnPlayer(3, game.Right, game.PlayerColors[3])
	g.Schedule.Step()
	if err := g.SwitchTeam(1); err != nil {
		t.Fatal(err)
	}
	player := generic.NewMap[game.Player](g.World.Arche())
	if player.Get(a).Team != game.Right {
		t.Fatal("the player did not change team")
	}
	if g.Pose(a).X < g.Config.Field.MaxX/2 {
		t.Fatalf("the player stayed at x %.0f, not on the right", g.Pose(a).X)
	}
	g.Schedule.Step()
	if !reported(*changes, a, g.IDs.Player) {
		t.Fatal("the team change was not reported")
	}
	// Now 1 against 2: the one left may not go right.
	err := g.SwitchTeam(2)
	if err == nil || !strings.Contains(err.Error(), "right team is full") {
		t.Fatalf("a switch to the bigger team: %v", err)
	}
	if err := g.SwitchTeam(9); !errors.Is(err, game.ErrNoPlayer) {
		t.Fatalf("a peer with no player: %v", err)
	}
}

// TestDropCrate: a player drops at most MaxDrops crates, where it stands,
// marked as its own; they go when it leaves.
func TestDropCrate(t *testing.T) {
	g := newGame(t, 0)
	p := g.SpawnPlayer(1, game.Left, game.PlayerColors[1])
	at := g.Pose(p)
	crates := func() int {
		n := 0
		q := generic.NewFilter1[game.Dropped]().Query(g.World.Arche())
		for q.Next() {
			n++
		}
		return n
	}
	for range game.MaxDrops {
		if err := g.DropCrate(1); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.DropCrate(1); err == nil {
		t.Fatal("a fourth crate was dropped")
	}
	if crates() != game.MaxDrops {
		t.Fatalf("%d dropped crates", crates())
	}
	q := generic.NewFilter2[game.Crate, game.Dropped]().Query(g.World.Arche())
	for q.Next() {
		c, d := q.Get()
		if d.By != 1 || c.Home.X != at.X || c.Home.Y != at.Y {
			t.Errorf("a dropped crate %+v by %d, want at the player's %v by 1", c.Home, d.By, at)
		}
	}
	g.RemoveDrops(1)
	if crates() != 0 {
		t.Fatal("the crates stayed after their player left")
	}
	if err := g.DropCrate(ecs.HostPeer); !errors.Is(err, game.ErrNoPlayer) {
		t.Fatalf("a peer with no player: %v", err)
	}
}
