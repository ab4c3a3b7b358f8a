package game

import (
	"math"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/jakecoffman/cp/v2"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// IDs are the arche component ids of the game's components in one world.
type IDs struct {
	Player, Bot, Crate, Ball, Goal, Score, InputQueue arche.ID
}

// Stats are running totals of a match, for logs and tests.
type Stats struct {
	// BallTravel is the distance the ball has rolled, in world units,
	// teleports excluded.
	BallTravel float64
	// Reports counts the component writes reported to the change journal.
	Reports int
	// Goals counts goals scored.
	Goals int
}

// Game is one match: its world, physics space and schedule, and the arena.
//
// New builds the world, the static arena and the schedule. A host then calls
// Populate (ball, crates, score) and spawns players with SpawnPlayer as
// peers join, and SpawnBot for computer players; a client receives those
// entities instead and calls Embody on each. Drive it with
// Schedule.Advance (real time) or Schedule.Step (one frame).
//
// Not safe for concurrent use: a Game belongs to the simulation goroutine.
type Game struct {
	Config   Config
	World    *ecs.World
	Space    *physics.Space
	Schedule *ecs.Schedule
	IDs      IDs
	// Walls are the arena's wall segments (static, not entities).
	Walls []Wall
	// Ball and Score are the host's ball and score entities (zero on a
	// client until it learns them).
	Ball, Score arche.Entity
	// Stats are updated every step by the stats system.
	Stats Stats
	// Replica marks a client's copy of a match, which follows the host:
	// the host alone decides goals and puts the ball and crates back, so on
	// a replica the goals system ignores the goal sensors. Set it before the
	// first step.
	Replica bool

	playerMap generic.Map6[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, Player, InputQueue]
	ballMap   generic.Map5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, Ball]
	crateMap  generic.Map5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, Crate]
	goalMap   generic.Map1[Goal]
	scoreMap  generic.Map2[Score, ecs.NetworkIdentity]
	botMap    generic.Map1[Bot]

	isPlayer    generic.Map[Player]
	isBall      generic.Map[Ball]
	isCrate     generic.Map[Crate]
	goals       generic.Map[Goal]
	scores      generic.Map[Score]
	queues      generic.Map[InputQueue]
	transforms  generic.Map[ecs.Transform]
	velocities  generic.Map[ecs.Velocity]
	interps     generic.Map[ecs.Interpolated]
	controlled  *generic.Filter3[Player, InputQueue, physics.Body]
	botPlayers  *generic.Filter3[Bot, Player, ecs.Transform]
	playerFloor cp.BodyVelocityFunc
	ballFloor   cp.BodyVelocityFunc
	crateFloor  cp.BodyVelocityFunc

	teamSize     [2]int
	bots         int
	dashCooldown ecs.Frame
	entered      []entry // goal sensor hits of the current step
}

// New returns a match on cfg's arena, its schedule driven by clk: bots,
// control, physics, goals, stats, in that order. Nothing is spawned yet.
func New(cfg Config, clk clock.Clock) *Game {
	w := ecs.NewWorld()
	g := &Game{Config: cfg, World: w}
	a := w.Arche()
	g.IDs = IDs{
		Player:     arche.ComponentID[Player](a),
		Bot:        arche.ComponentID[Bot](a),
		Crate:      arche.ComponentID[Crate](a),
		Ball:       arche.ComponentID[Ball](a),
		Goal:       arche.ComponentID[Goal](a),
		Score:      arche.ComponentID[Score](a),
		InputQueue: arche.ComponentID[InputQueue](a),
	}
	for _, id := range []arche.ID{w.IDs.Transform, w.IDs.Velocity, g.IDs.Player, g.IDs.Score} {
		w.SetReplicated(id)
	}
	g.Space = physics.New(w, physics.Config{Step: cfg.Step, Damping: cfg.Damping, IdleSpeed: 4})
	g.playerMap = generic.NewMap6[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, Player, InputQueue](a)
	g.ballMap = generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, Ball](a)
	g.crateMap = generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, Crate](a)
	g.goalMap = generic.NewMap1[Goal](a)
	g.scoreMap = generic.NewMap2[Score, ecs.NetworkIdentity](a)
	g.botMap = generic.NewMap1[Bot](a)
	g.isPlayer = generic.NewMap[Player](a)
	g.isBall = generic.NewMap[Ball](a)
	g.isCrate = generic.NewMap[Crate](a)
	g.goals = generic.NewMap[Goal](a)
	g.scores = generic.NewMap[Score](a)
	g.queues = generic.NewMap[InputQueue](a)
	g.transforms = generic.NewMap[ecs.Transform](a)
	g.velocities = generic.NewMap[ecs.Velocity](a)
	g.interps = generic.NewMap[ecs.Interpolated](a)
	g.controlled = generic.NewFilter3[Player, InputQueue, physics.Body]()
	g.botPlayers = generic.NewFilter3[Bot, Player, ecs.Transform]()
	g.playerFloor = physics.GroundFriction(cfg.PlayerFloor)
	g.ballFloor = physics.GroundFriction(cfg.BallFloor)
	g.crateFloor = physics.GroundFriction(cfg.CrateFloor)
	g.dashCooldown = ecs.Frame(max(1, int(math.Round(cfg.DashCooldown.Seconds()/cfg.Step.Seconds()))))
	g.buildArena()

	g.Schedule = ecs.NewSchedule(w, clk, cfg.Step)
	g.Schedule.Add("bots", ecs.SystemFunc(g.runBots))
	g.Schedule.Add("control", ecs.SystemFunc(g.control))
	g.Schedule.Add("physics", g.Space)
	g.Schedule.Add("goals", ecs.SystemFunc(g.scoreGoals))
	g.Schedule.Add("stats", ecs.SystemFunc(g.countStats))
	return g
}

// PushInput stores in for player entity e (see InputQueue.Push) and reports
// whether it was kept. It panics if e is not a player.
func (g *Game) PushInput(e arche.Entity, in StampedInput) bool {
	if !g.World.Alive(e) || !g.queues.Has(e) {
		panic("game: PushInput for an entity that is not a live player; spawn it with SpawnPlayer")
	}
	return g.queues.Get(e).Push(in)
}

// ScoreNow returns the current score (zero if there is no score entity).
func (g *Game) ScoreNow() Score {
	if !g.World.Alive(g.Score) || !g.scores.Has(g.Score) {
		return Score{}
	}
	return *g.scores.Get(g.Score)
}

// Pose returns entity e's Transform.
func (g *Game) Pose(e arche.Entity) ecs.Transform { return *g.transforms.Get(e) }

// countStats is the last system of a step: it adds the step's ball travel and
// reported changes to Stats.
func (g *Game) countStats(w *ecs.World) {
	g.Stats.Reports += w.Journal().Len()
	if g.World.Alive(g.Ball) {
		t, ip := g.transforms.Get(g.Ball), g.interps.Get(g.Ball)
		if !ip.Snap {
			g.Stats.BallTravel += math.Hypot(t.X-ip.Prev.X, t.Y-ip.Prev.Y)
		}
	}
}
