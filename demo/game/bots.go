package game

import (
	"math"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Bot behaviour, in frames.
const (
	botStuckAfter = 45 // frames of thrust without progress before stepping aside
	botAsideFor   = 25 // frames spent stepping aside
)

// runBots is the host's computer players: each bot steers (see Steer) and
// writes its decision into its tandem.Input, as the engine does for players.
// Deterministic; cost: one step per bot.
func (g *Game) runBots(w *ecs.World) {
	if !w.Alive(g.Ball) {
		return
	}
	q := g.botPlayers.Query(w.Arche())
	for q.Next() {
		bot, _, in := q.Get()
		before := *bot
		in.Value = g.Steer(q.Entity(), bot)
		if *bot != before {
			// Bot is saved: a save keeps what is reported.
			ecs.MutateComponent(w, q.Entity(), g.IDs.Bot)
		}
	}
}

// Steer returns the input a computer player gives player e this frame, and
// updates its state bot: it gets behind the ball, on the line from the ball to
// the opponent's goal, and drives through it, dashing when lined up close;
// when it is on the wrong side of the ball it goes round it, and when it is
// stuck against crates it steps aside. The host's bots use it through their
// Bot component; a client playing as a bot keeps its own Bot value and feeds
// the result to its predicted player. With no ball it returns no thrust.
// Deterministic; it panics if e is not a player.
func (g *Game) Steer(e arche.Entity, bot *Bot) Input {
	w := g.World
	if !w.Alive(g.Ball) || !g.transforms.Has(g.Ball) {
		return Input{}
	}
	c := &g.Config
	f := c.Field
	_, cy := f.Center()
	ball := *g.transforms.Get(g.Ball)
	R := c.BallRadius + c.PlayerRadius
	p := g.isPlayer.Get(e)
	t := g.transforms.Get(e)
	goalX := f.MaxX + c.GoalDepth/2
	if p.Team == Right {
		goalX = f.MinX - c.GoalDepth/2
	}
	// Unit vector from the ball to the aim point in the goal, and its
	// perpendicular.
	dx, dy := goalX-ball.X, cy+bot.Aim-ball.Y
	l := math.Hypot(dx, dy)
	dx, dy = dx/l, dy/l
	px, py := -dy, dx
	rx, ry := t.X-ball.X, t.Y-ball.Y
	along := rx*dx + ry*dy
	across := rx*px + ry*py
	var tx, ty float64
	dash := false
	switch {
	case along > -R*0.6:
		// Wrong side: pass beside the ball, on the side the bot is on.
		s := bot.Side
		if math.Abs(across) > 2 {
			s = math.Copysign(1, across)
		}
		tx = ball.X - dx*R*1.3 + px*s*R*1.8
		ty = ball.Y - dy*R*1.3 + py*s*R*1.8
	case math.Abs(across) > R*0.5:
		// Behind, off the line: get onto it.
		tx, ty = ball.X-dx*(R+6), ball.Y-dy*(R+6)
	default:
		// Lined up: drive through the ball.
		tx, ty = ball.X+dx*R*3, ball.Y+dy*R*3
		dash = along > -R*2.5
	}
	// A target in a wall (the ball in a corner) is unreachable: aim at
	// the nearest reachable point, which pushes the ball along the wall.
	m := c.PlayerRadius + 2
	tx = min(max(tx, f.MinX+m), f.MaxX-m)
	ty = min(max(ty, f.MinY+m), f.MaxY-m)
	in := InputToward(tx-t.X, ty-t.Y)
	v := *g.velocities.Get(e)
	switch {
	case bot.Stuck < 0: // stepping aside
		in = InputToward(-float64(in.MoveY)*bot.Side, float64(in.MoveX)*bot.Side)
		bot.Stuck++
	case math.Hypot(v.X, v.Y) < 25 && math.Hypot(tx-t.X, ty-t.Y) > R:
		bot.Stuck++
		if bot.Stuck > botStuckAfter {
			bot.Stuck = -botAsideFor
			bot.Side = -bot.Side
		}
	default:
		bot.Stuck = 0
	}
	in.Dash = dash
	return in
}

// NewBot returns the state of the n-th computer player (counting from 0):
// bots alternate the side they go round the ball by and spread their aim
// over the goal mouth.
func (g *Game) NewBot(n int) Bot {
	side := 1.0
	if n%2 == 1 {
		side = -1
	}
	return Bot{Side: side, Aim: float64(n%3-1) * g.Config.GoalMouth / 5}
}
