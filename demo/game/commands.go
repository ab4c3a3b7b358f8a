package game

import (
	"errors"
	"fmt"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// The rules of the players' commands: switching team, and dropping a crate
// where the player stands. The host runs them once per command (package
// tandem sees to that) and they change the world as any system does.

// MaxDrops is how many crates one player may drop.
const MaxDrops = 3

// DropSize is the side of a dropped crate, world units.
const DropSize = 30

// Dropped marks a crate a player dropped: By is the dropping peer. It is
// host-side state, not replicated (saved with the world).
type Dropped struct {
	By ecs.PeerID
}

// ErrNoPlayer: the peer has no player to act with (it is watching, or its
// player is gone).
var ErrNoPlayer = errors.New("you have no player in the match")

// PlayerOf returns the player peer drives (not a bot), if any.
func (g *Game) PlayerOf(peer ecs.PeerID) (arche.Entity, bool) {
	for _, e := range g.World.Owned(peer) {
		if g.isPlayer.Has(e) && !g.inputs.Get(e).Bot {
			return e, true
		}
	}
	return arche.Entity{}, false
}

// SwitchTeam moves peer's player to the other team, at its kick-off spots,
// unless that team is full: as big as the player's own already, so that the
// switch would unbalance the match.
func (g *Game) SwitchTeam(peer ecs.PeerID) error {
	e, ok := g.PlayerOf(peer)
	if !ok {
		return ErrNoPlayer
	}
	p := g.isPlayer.Get(e)
	to := p.Team.Opponent()
	var sizes [2]int
	q := generic.NewFilter1[Player]().Query(g.World.Arche())
	for q.Next() {
		sizes[q.Get().Team]++
	}
	if sizes[to] >= sizes[p.Team] {
		return fmt.Errorf("the %v team is full (%d against %d)", to, sizes[to], sizes[p.Team])
	}
	g.teamSize[p.Team]--
	p.Team = to
	x, y := g.spawnSpot(to)
	g.teamSize[to]++
	ecs.MutateComponent(g.World, e, g.IDs.Player)
	g.Space.SetPose(e, ecs.Transform{X: x, Y: y})
	g.Space.SetVelocity(e, ecs.Velocity{})
	return nil
}

// DropCrate drops a crate where peer's player stands (the physics pushes
// the two apart), its home there, unless the peer dropped MaxDrops already.
func (g *Game) DropCrate(peer ecs.PeerID) error {
	e, ok := g.PlayerOf(peer)
	if !ok {
		return ErrNoPlayer
	}
	if n := len(g.drops(peer)); n >= MaxDrops {
		return fmt.Errorf("you dropped your %d crates already", n)
	}
	pose := *g.transforms.Get(e)
	pose.Angle = 0
	c := g.SpawnCrate(pose, DropSize, DropSize, 2)
	dm := generic.NewMap1[Dropped](g.World.Arche())
	dm.Assign(c, &Dropped{By: peer})
	return nil
}

// RemoveDrops removes the crates peer dropped (it left the match).
func (g *Game) RemoveDrops(peer ecs.PeerID) {
	for _, e := range g.drops(peer) {
		g.World.Arche().RemoveEntity(e)
	}
}

// drops returns the crates peer dropped.
func (g *Game) drops(peer ecs.PeerID) []arche.Entity {
	var out []arche.Entity
	q := generic.NewFilter1[Dropped]().Query(g.World.Arche())
	for q.Next() {
		if q.Get().By == peer {
			out = append(out, q.Entity())
		}
	}
	return out
}

// Adopt takes an entity restored from a save into the match: it gets its
// body back (Embody), the match learns its ball and score, and the kick-off
// spots and bots count it. A prop, decor without a body, needs nothing.
func (g *Game) Adopt(e arche.Entity) {
	switch {
	case g.scores.Has(e):
		g.Score = e
		return
	case g.isProp.Has(e):
		return
	case g.isBall.Has(e):
		g.Ball = e
	case g.isPlayer.Has(e):
		g.teamSize[g.isPlayer.Get(e).Team]++
		if g.World.Arche().Has(e, g.IDs.Bot) {
			g.bots++
		}
	}
	g.Embody(e)
}
