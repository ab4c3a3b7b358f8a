package game

import (
	"math"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/jakecoffman/cp/v2"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// IDs are the arche component ids of the game's components in one world.
type IDs struct {
	Player, Bot, Crate, Ball, Goal, Score, Input arche.ID
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
	// Drops counts the balls dropped at the centre spot after lying still
	// against the field's edge for 5 s.
	Drops int
}

// Game is one match: its world, physics space and schedule, and the arena.
//
// Build adds the static arena and the systems to a world (the engine's, see
// package tandem; New makes one for tests). A host then calls Populate (ball,
// crates, score) and spawns players with SpawnPlayer as peers join, and
// SpawnBot for computer players; a client receives those entities instead and
// calls Embody on each. Players are driven by their tandem.Input component:
// the engine writes each frame's input there, bots write their own.
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
	// a replica the goals system ignores the goal sensors.
	Replica bool

	playerMap generic.Map6[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, Player, tandem.Input[Input]]
	ballMap   generic.Map5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, Ball]
	crateMap  generic.Map5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, Crate]
	propMap   generic.Map3[ecs.Transform, ecs.NetworkIdentity, Prop]
	goalMap   generic.Map1[Goal]
	scoreMap  generic.Map2[Score, ecs.NetworkIdentity]
	botMap    generic.Map1[Bot]

	isPlayer    generic.Map[Player]
	isBall      generic.Map[Ball]
	isCrate     generic.Map[Crate]
	isProp      generic.Map[Prop]
	goals       generic.Map[Goal]
	scores      generic.Map[Score]
	inputs      generic.Map[tandem.Input[Input]]
	transforms  generic.Map[ecs.Transform]
	velocities  generic.Map[ecs.Velocity]
	interps     generic.Map[ecs.Interpolated]
	controlled  *generic.Filter3[Player, tandem.Input[Input], physics.Body]
	botPlayers  *generic.Filter3[Bot, Player, tandem.Input[Input]]
	playerFloor cp.BodyVelocityFunc
	ballFloor   cp.BodyVelocityFunc
	crateFloor  cp.BodyVelocityFunc

	teamSize     [2]int
	bots         int
	dashCooldown ecs.Frame
	entered      []entry      // goal sensor hits of the current step
	toucher      arche.Entity // the player who touched the ball last, at frame touched
	touched      ecs.Frame
	stuckFor     int // steps the ball has lain still against the field's edge (dropBall)
}

// New returns a match on cfg's arena in a world of its own, its schedule
// driven by clk: the demo's rules without the engine around them, for tests.
func New(cfg Config, clk clock.Clock) *Game {
	w := &tandem.World{ECS: ecs.NewWorld(), Role: tandem.Alone}
	w.Schedule = ecs.NewSchedule(w.ECS, clk, cfg.Step)
	w.Physics = physics.New(w.ECS, PhysicsConfig(cfg))
	g := Build(cfg, w)
	// What the network would replicate, so the journal reports it (the
	// match's codecs: netplay's TestRulesWorldReportsWhatTheMatchSends).
	prop := arche.ComponentID[Prop](w.ECS.Arche())
	for _, id := range []arche.ID{w.ECS.IDs.Transform, w.ECS.IDs.Velocity, g.IDs.Player, g.IDs.Ball, g.IDs.Crate, prop, g.IDs.Score} {
		w.ECS.SetReplicated(id)
	}
	return g
}

// PhysicsConfig is the physics of cfg's arena.
func PhysicsConfig(cfg Config) physics.Config {
	return physics.Config{Step: cfg.Step, Damping: cfg.Damping, IdleSpeed: 4}
}

// Build puts a match on cfg's arena into w, which has a physics Space: the
// static arena and the systems bots, control, physics, goals and stats, in
// that order. Nothing networked is spawned. The Game is also w's resource.
func Build(cfg Config, w *tandem.World) *Game {
	g := &Game{Config: cfg, World: w.ECS, Space: w.Physics, Schedule: w.Schedule, Replica: w.Role == tandem.Joined}
	a := w.ECS.Arche()
	g.IDs = IDs{
		Player: arche.ComponentID[Player](a),
		Bot:    arche.ComponentID[Bot](a),
		Crate:  arche.ComponentID[Crate](a),
		Ball:   arche.ComponentID[Ball](a),
		Goal:   arche.ComponentID[Goal](a),
		Score:  arche.ComponentID[Score](a),
		Input:  arche.ComponentID[tandem.Input[Input]](a),
	}
	g.playerMap = generic.NewMap6[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, Player, tandem.Input[Input]](a)
	g.ballMap = generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, Ball](a)
	g.crateMap = generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, Crate](a)
	g.propMap = generic.NewMap3[ecs.Transform, ecs.NetworkIdentity, Prop](a)
	g.goalMap = generic.NewMap1[Goal](a)
	g.scoreMap = generic.NewMap2[Score, ecs.NetworkIdentity](a)
	g.botMap = generic.NewMap1[Bot](a)
	g.isPlayer = generic.NewMap[Player](a)
	g.isBall = generic.NewMap[Ball](a)
	g.isCrate = generic.NewMap[Crate](a)
	g.isProp = generic.NewMap[Prop](a)
	g.goals = generic.NewMap[Goal](a)
	g.scores = generic.NewMap[Score](a)
	g.inputs = generic.NewMap[tandem.Input[Input]](a)
	g.transforms = generic.NewMap[ecs.Transform](a)
	g.velocities = generic.NewMap[ecs.Velocity](a)
	g.interps = generic.NewMap[ecs.Interpolated](a)
	g.controlled = generic.NewFilter3[Player, tandem.Input[Input], physics.Body]()
	g.botPlayers = generic.NewFilter3[Bot, Player, tandem.Input[Input]]()
	g.playerFloor = physics.GroundFriction(cfg.PlayerFloor)
	g.ballFloor = physics.GroundFriction(cfg.BallFloor)
	g.crateFloor = physics.GroundFriction(cfg.CrateFloor)
	g.dashCooldown = ecs.Frame(max(1, int(math.Round(cfg.DashCooldown.Seconds()/cfg.Step.Seconds()))))
	g.buildArena()

	g.Schedule.Add("bots", ecs.SystemFunc(g.runBots))
	g.Schedule.Add("control", ecs.SystemFunc(g.control))
	g.Schedule.Add("physics", g.Space)
	g.Schedule.Add("goals", ecs.SystemFunc(g.scoreGoals))
	g.Schedule.Add("stats", ecs.SystemFunc(g.countStats))
	ecs.AddResource(w.ECS, g)
	return g
}

// Of returns the match built into w, or nil.
func Of(w *tandem.World) *Game { return ecs.Resource[Game](w.ECS) }

// SetInput sets the input player entity e acts on from the next step (what
// the engine does with each frame's input; for tests and tools). It panics
// if e is not a player.
func (g *Game) SetInput(e arche.Entity, in Input) {
	if !g.World.Alive(e) || !g.inputs.Has(e) {
		panic("game: SetInput for an entity that is not a live player; spawn it with SpawnPlayer")
	}
	g.inputs.Get(e).Value = in
}

// ScoreNow returns the current score (zero if there is no score entity).
func (g *Game) ScoreNow() Score {
	if !g.World.Alive(g.Score) || !g.scores.Has(g.Score) {
		return Score{}
	}
	return *g.scores.Get(g.Score)
}

// IsPlayer reports whether e is a player.
func (g *Game) IsPlayer(e arche.Entity) bool { return g.isPlayer.Has(e) }

// IsBall reports whether e is the ball.
func (g *Game) IsBall(e arche.Entity) bool { return g.isBall.Has(e) }

// IsCrate reports whether e is a crate.
func (g *Game) IsCrate(e arche.Entity) bool { return g.isCrate.Has(e) }

// IsProp reports whether e is a prop.
func (g *Game) IsProp(e arche.Entity) bool { return g.isProp.Has(e) }

// IsScore reports whether e holds the score.
func (g *Game) IsScore(e arche.Entity) bool { return g.scores.Has(e) }

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
