package game

import (
	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// entry is a ball or crate that entered a goal during the physics step.
type entry struct {
	what, goal arche.Entity
}

// enterGoal is cp's begin callback for a ball or crate touching a goal
// sensor. It only notes the event: the world is changed by scoreGoals, after
// the step.
func (g *Game) enterGoal(arb *cp.Arbiter, _ *cp.Space, _ any) bool {
	a, b := arb.Shapes()
	what, ok := physics.EntityOf(a.Body())
	goal, ok2 := b.UserData.(arche.Entity)
	if ok && ok2 {
		g.entered = append(g.entered, entry{what, goal})
	}
	return false
}

// touchBall is cp's begin callback for the ball touching a player: it notes
// who touched the ball last, whom a goal is credited to.
func (g *Game) touchBall(arb *cp.Arbiter, _ *cp.Space, _ any) bool {
	_, b := arb.Shapes()
	if e, ok := physics.EntityOf(b.Body()); ok {
		g.toucher, g.touched = e, g.World.Frame()
	}
	return true
}

// creditWindow is how long after a player's last touch of the ball a goal
// is still theirs, steps of 1/60 s.
const creditWindow = 8 * 60

// credit adds a goal by team scorer to the player who touched the ball last,
// if that player is of the team and touched it recently.
func (g *Game) credit(w *ecs.World, scorer Team) {
	e := g.toucher
	if !w.Alive(e) || !g.isPlayer.Has(e) || w.Frame()-g.touched > creditWindow {
		return
	}
	if p := g.isPlayer.Get(e); p.Team == scorer {
		p.Goals++
		ecs.MutateComponent(w, e, g.IDs.Player)
	}
}

// scoreGoals runs after physics: a ball that entered a goal scores for the
// defending team's opponent and goes back to the centre spot, at rest; a
// crate pushed into a goal goes back home. On a Replica it does nothing: the
// host's goals arrive with its state. Cost: the step's goal events.
func (g *Game) scoreGoals(w *ecs.World) {
	if g.Replica {
		g.entered = g.entered[:0]
		return
	}
	for _, en := range g.entered {
		if !w.Alive(en.what) || !w.Alive(en.goal) {
			continue
		}
		goal := g.goals.Get(en.goal)
		t := g.transforms.Get(en.what)
		switch {
		case g.isBall.Has(en.what):
			r := g.isBall.Get(en.what).R
			if !grow(goal.Rect, r).Contains(t.X, t.Y) {
				continue // already reset this step
			}
			if w.Alive(g.Score) {
				s := g.scores.Get(g.Score)
				scorer := goal.Team.Opponent()
				if scorer == Left {
					s.Left++
				} else {
					s.Right++
				}
				s.LastGoal, s.LastTeam = w.Frame(), scorer
				ecs.MutateComponent(w, g.Score, g.IDs.Score)
			}
			g.Stats.Goals++
			g.credit(w, goal.Team.Opponent())
			cx, cy := g.Config.Field.Center()
			g.Space.SetPose(en.what, ecs.Transform{X: cx, Y: cy})
			g.Space.SetVelocity(en.what, ecs.Velocity{})
		case g.isCrate.Has(en.what):
			cr := g.isCrate.Get(en.what)
			if !grow(goal.Rect, max(cr.W, cr.H)).Contains(t.X, t.Y) {
				continue
			}
			g.Space.SetPose(en.what, cr.Home)
			g.Space.SetVelocity(en.what, ecs.Velocity{})
		}
	}
	g.entered = g.entered[:0]
	g.dropBall(w)
}

// dropStuckAfter is how long the ball may lie still against the field's
// edge (wedged by a crate, or pressed into the wall by players pushing
// from both sides) before it is dropped at the centre spot, steps of 1/60 s.
const dropStuckAfter = 5 * 60

// dropBall drops a ball that has lain still against the field's edge for
// dropStuckAfter at the centre spot, at rest, as after a goal but with no
// score: a ball two bots held in a corner, each pushing it into the other,
// could lie there for minutes. Cost: one ball.
func (g *Game) dropBall(w *ecs.World) {
	if !w.Alive(g.Ball) {
		return
	}
	c := &g.Config
	t, v := g.transforms.Get(g.Ball), g.velocities.Get(g.Ball)
	edge := c.BallRadius + 2*c.PlayerRadius
	f := c.Field
	atEdge := t.X < f.MinX+edge || t.X > f.MaxX-edge || t.Y < f.MinY+edge || t.Y > f.MaxY-edge
	if !atEdge || v.X*v.X+v.Y*v.Y > 10*10 {
		g.stuckFor = 0
		return
	}
	if g.stuckFor++; g.stuckFor < dropStuckAfter {
		return
	}
	g.stuckFor = 0
	g.Stats.Drops++
	g.toucher = arche.Entity{} // a goal after the drop is no one's touch before it
	cx, cy := f.Center()
	g.Space.SetPose(g.Ball, ecs.Transform{X: cx, Y: cy})
	g.Space.SetVelocity(g.Ball, ecs.Velocity{})
}

func grow(r Rect, d float64) Rect {
	return Rect{MinX: r.MinX - d, MinY: r.MinY - d, MaxX: r.MaxX + d, MaxY: r.MaxY + d}
}
