package game

import (
	"image/color"
	"math"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// Collision types of the game's shapes.
const (
	collideBall cp.CollisionType = 1 + iota
	collideCrate
	collidePlayer
	collideGoal
)

// wallRadius is the half-thickness of the arena's walls.
const wallRadius = 5

var wallMaterial = physics.Material{Friction: 0.5, Elasticity: 0.6}

// Wall is one segment of the arena's walls, for drawing.
type Wall struct {
	AX, AY, BX, BY float64
}

// buildArena adds the static walls and goal sensors, and the goal entities
// (not networked). Every machine builds the same arena from the Config.
func (g *Game) buildArena() {
	f := g.Config.Field
	_, cy := f.Center()
	m := g.Config.GoalMouth / 2
	d := g.Config.GoalDepth
	top, bot := cy-m, cy+m
	g.Walls = []Wall{
		{f.MinX, f.MinY, f.MaxX, f.MinY}, // top
		{f.MinX, f.MaxY, f.MaxX, f.MaxY}, // bottom
		{f.MinX, f.MinY, f.MinX, top},    // left, above the goal
		{f.MinX, bot, f.MinX, f.MaxY},    // left, below
		{f.MaxX, f.MinY, f.MaxX, top},    // right, above
		{f.MaxX, bot, f.MaxX, f.MaxY},    // right, below
		// goal pockets: top side, back, bottom side
		{f.MinX - d, top, f.MinX, top},
		{f.MinX - d, top, f.MinX - d, bot},
		{f.MinX - d, bot, f.MinX, bot},
		{f.MaxX, top, f.MaxX + d, top},
		{f.MaxX + d, top, f.MaxX + d, bot},
		{f.MaxX, bot, f.MaxX + d, bot},
	}
	for _, w := range g.Walls {
		g.Space.StaticSegment(cp.Vector{X: w.AX, Y: w.AY}, cp.Vector{X: w.BX, Y: w.BY}, wallRadius, wallMaterial)
	}
	// A ball scores once it is wholly past the goal line.
	r := g.Config.BallRadius
	goals := [2]Goal{
		{Team: Left, Rect: Rect{MinX: f.MinX - d, MinY: top, MaxX: f.MinX - r, MaxY: bot}},
		{Team: Right, Rect: Rect{MinX: f.MaxX + r, MinY: top, MaxX: f.MaxX + d, MaxY: bot}},
	}
	for _, gl := range goals {
		e := g.goalMap.NewWith(&gl)
		rc := gl.Rect
		sh := g.Space.CP().AddShape(cp.NewBox2(g.Space.CP().StaticBody, cp.BB{L: rc.MinX, B: rc.MinY, R: rc.MaxX, T: rc.MaxY}, 0))
		sh.SetSensor(true)
		sh.SetCollisionType(collideGoal)
		sh.UserData = e
	}
	h := g.Space.CP().NewCollisionHandler(collideBall, collideGoal)
	h.BeginFunc = g.enterGoal
	h = g.Space.CP().NewCollisionHandler(collideCrate, collideGoal)
	h.BeginFunc = g.enterGoal
	h = g.Space.CP().NewCollisionHandler(collideBall, collidePlayer)
	h.BeginFunc = g.touchBall
}

// Populate spawns what the host owns: the ball at the centre spot, the
// crates, and the score. A client does not call it: it receives them.
func (g *Game) Populate() {
	cx, cy := g.Config.Field.Center()
	g.Ball = g.SpawnBall(cx, cy)
	g.Score = g.scoreMap.NewWith(&Score{}, &ecs.NetworkIdentity{Owner: ecs.HostPeer})
	g.scatterCrates()
	g.scatterProps()
}

// scatterProps lays out Config.Props props at random over the grounds, in
// one batch.
func (g *Game) scatterProps() {
	c := &g.Config
	if c.Props <= 0 {
		return
	}
	cx, cy := c.Field.Center()
	span := max(c.PropsSpan, c.Field.W(), c.Field.H())
	rng := splitmix{c.Seed + 1}
	q := g.propMap.NewBatchQ(c.Props)
	for q.Next() {
		t, _, p := q.Get() // the identity as made: a fresh id, owned by the host
		t.X = cx + (rng.float()-0.5)*span
		t.Y = cy + (rng.float()-0.5)*span
		t.Angle = rng.float() * 2 * math.Pi
		p.Kind = uint8(rng.next() % 4)
	}
}

// SpawnBall creates the ball at (x, y), host-owned.
func (g *Game) SpawnBall(x, y float64) arche.Entity {
	e := g.ballMap.NewWith(&ecs.Transform{X: x, Y: y}, &ecs.Velocity{},
		&ecs.NetworkIdentity{Owner: ecs.HostPeer}, &ecs.Interpolated{Prev: ecs.Transform{X: x, Y: y}},
		&Ball{R: g.Config.BallRadius})
	g.Embody(e)
	return e
}

// SpawnCrate creates a crate of size w×h at pose, host-owned; pose is also
// its home.
func (g *Game) SpawnCrate(pose ecs.Transform, w, h float64, shade uint8) arche.Entity {
	e := g.crateMap.NewWith(&pose, &ecs.Velocity{},
		&ecs.NetworkIdentity{Owner: ecs.HostPeer}, &ecs.Interpolated{Prev: pose},
		&Crate{W: w, H: h, Home: pose, Shade: shade})
	g.Embody(e)
	return e
}

// SpawnPlayer creates a player of team, coloured c, owned by peer (the
// machine whose input drives it; ecs.HostPeer for the host's own player and
// for bots), at its team's next kick-off spot, with the tandem.Input the
// engine writes that peer's input into.
func (g *Game) SpawnPlayer(peer ecs.PeerID, team Team, c color.RGBA) arche.Entity {
	x, y := g.spawnSpot(team)
	e := g.playerMap.NewWith(&ecs.Transform{X: x, Y: y}, &ecs.Velocity{},
		&ecs.NetworkIdentity{Owner: peer}, &ecs.Interpolated{Prev: ecs.Transform{X: x, Y: y}},
		&Player{Team: team, Color: c}, &tandem.Input[Input]{})
	g.Embody(e)
	g.teamSize[team]++
	return e
}

// SpawnBot creates a computer player of team, host-owned.
func (g *Game) SpawnBot(team Team) arche.Entity {
	e := g.SpawnPlayer(ecs.HostPeer, team, botColors[team])
	bot := g.NewBot(g.bots)
	g.bots++
	g.isPlayer.Get(e).BotNumber = uint8(min(g.bots, 255))
	g.botMap.Assign(e, &bot)
	g.inputs.Get(e).Bot = true
	return e
}

// Embody attaches the physics body that entity e's kind (Player, Ball or
// Crate) calls for. The spawn functions call it; a client calls it for the
// entities it receives so that they collide with what it predicts.
func (g *Game) Embody(e arche.Entity) {
	c := &g.Config
	switch {
	case g.isPlayer.Has(e):
		sh := g.Space.AttachCircle(e, c.PlayerRadius, physics.Material{
			Mass: c.PlayerMass, Friction: 0.4, Elasticity: 0.35, Velocity: g.playerFloor,
		})
		sh.SetCollisionType(collidePlayer)
	case g.isBall.Has(e):
		sh := g.Space.AttachCircle(e, c.BallRadius, physics.Material{
			Mass: c.BallMass, Friction: 0.3, Elasticity: 0.85, Velocity: g.ballFloor,
		})
		sh.SetCollisionType(collideBall)
	case g.isCrate.Has(e):
		cr := g.isCrate.Get(e)
		sh := g.Space.AttachBox(e, cr.W, cr.H, 1, physics.Material{
			Mass: cr.W * cr.H * c.CrateDensity, Friction: 0.6, Elasticity: 0.15, Velocity: g.crateFloor,
		})
		sh.SetCollisionType(collideCrate)
	default:
		panic("game: Embody on an entity that is no Player, Ball or Crate")
	}
}

// spawnSpot returns the kick-off spot of team's next player: a column a
// sixth of the field in from its goal, spreading up and down.
func (g *Game) spawnSpot(team Team) (x, y float64) {
	f := g.Config.Field
	_, cy := f.Center()
	x = f.MinX + f.W()/6
	if team == Right {
		x = f.MaxX - f.W()/6
	}
	// Seven spots a side fit the field; later players share them (the
	// physics pushes them apart).
	n := g.teamSize[team] % 7
	step := g.Config.PlayerRadius * 5
	y = cy + float64((n+1)/2)*step*float64(1-2*(n%2))
	return x, y
}

// scatterCrates lays out Config.Crates crates, mirrored between the halves,
// clear of the centre circle, the goal mouths and the kick-off spots.
func (g *Game) scatterCrates() {
	c := &g.Config
	f := c.Field
	cx, cy := f.Center()
	rng := splitmix{c.Seed}
	type spot struct{ x, y, r float64 }
	var placed []spot
	clear := func(x, y, r float64) bool {
		if math.Hypot(x-cx, y-cy) < 130+r {
			return false
		}
		for _, sx := range []float64{f.MinX + f.W()/6, f.MaxX - f.W()/6} {
			if math.Abs(x-sx) < 50+r && math.Abs(y-cy) < 150+r {
				return false // kick-off spots
			}
		}
		if (x < f.MinX+120 || x > f.MaxX-120) && math.Abs(y-cy) < c.GoalMouth/2+r+10 {
			return false
		}
		for _, p := range placed {
			if math.Hypot(x-p.x, y-p.y) < p.r+r+26 {
				return false
			}
		}
		return true
	}
	for made, tries := 0, 0; made < c.Crates && tries < 20000; tries++ {
		w := c.CrateMin + rng.float()*(c.CrateMax-c.CrateMin)
		h := c.CrateMin + rng.float()*(c.CrateMax-c.CrateMin)
		r := math.Hypot(w, h) / 2
		x := f.MinX + r + 8 + rng.float()*(f.W()/2-2*r-16)
		y := f.MinY + r + 8 + rng.float()*(f.H()-2*r-16)
		a := (rng.float() - 0.5) * math.Pi / 3
		shade := uint8(rng.next() % 3)
		mirror := made+1 < c.Crates // odd counts put the last crate on the left
		mx := 2*cx - x
		if !clear(x, y, r) || (mirror && !clear(mx, y, r)) {
			continue
		}
		placed = append(placed, spot{x, y, r})
		g.SpawnCrate(ecs.Transform{X: x, Y: y, Angle: a}, w, h, shade)
		made++
		if mirror {
			placed = append(placed, spot{mx, y, r})
			g.SpawnCrate(ecs.Transform{X: mx, Y: y, Angle: -a}, w, h, shade)
			made++
		}
	}
}

// splitmix is a tiny deterministic generator (SplitMix64) for layouts.
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float returns a number in [0, 1).
func (r *splitmix) float() float64 { return float64(r.next()>>11) / (1 << 53) }
