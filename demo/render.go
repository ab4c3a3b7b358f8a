package main

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/netgraph"
)

// Palette: the colours the screenshot test looks for are named here.
var (
	colBackground = color.RGBA{0x12, 0x15, 0x1c, 0xff}
	colFloor      = [2]color.RGBA{{0x1f, 0x3b, 0x2e, 0xff}, {0x23, 0x42, 0x33, 0xff}} // turf stripes
	colMarking    = color.RGBA{0x3d, 0x66, 0x52, 0xff}
	colWall       = color.RGBA{0xd6, 0xdc, 0xe6, 0xff}
	colWallEdge   = color.RGBA{0x8e, 0x97, 0xa8, 0xff}
	colCrate      = [3]color.RGBA{{0xc4, 0x8c, 0x4e, 0xff}, {0xb3, 0x7b, 0x43, 0xff}, {0xd0, 0x9c, 0x5c, 0xff}}
	colCrateEdge  = color.RGBA{0x6b, 0x41, 0x1f, 0xff}
	colCrateBrace = color.RGBA{0x8f, 0x5c, 0x2c, 0xff}
	colBall       = color.RGBA{0xf4, 0xf1, 0xe8, 0xff}
	colBallSpot   = color.RGBA{0x2b, 0x2e, 0x36, 0xff}
	colShadow     = color.RGBA{0x00, 0x00, 0x00, 0x55}
	colProp       = [4]color.RGBA{{0x2d, 0x52, 0x3f, 0xff}, {0x35, 0x5c, 0x47, 0xff}, {0x4a, 0x4f, 0x45, 0xff}, {0x3b, 0x47, 0x36, 0xff}} // tufts and pebbles
)

// renderer draws a match's world where its interpolator says, and the HUD,
// in two steps: collect, inside a View, copies what the frame shows out of
// the world (poses, players, the score, the net figures) while the world is
// locked; draw then draws that copy, with the world free for the simulation.
// It never writes the world.
type renderer struct {
	m        *match
	cfg      game.Config
	walls    []game.Wall
	goals    []game.Goal
	crates   *generic.Filter1[game.Crate]
	props    *generic.Filter2[game.Prop, ecs.Transform]
	propsOn  int // the props drawn into floor (the world's count when collected)
	balls    *generic.Filter1[game.Ball]
	players  *generic.Filter2[game.Player, ecs.Velocity]
	sprites  map[crateKey]*ebiten.Image
	propArt  [4]*ebiten.Image // each kind of prop, drawn once (newPropArt)
	floor    *ebiten.Image    // the static arena, drawn once
	text     *textWriter
	path     vector.Path
	netGraph bool // F3: the net graph is shown
	graph    netgraph.Graph
	scene    scene
	hud      hud
	escape   string             // what Esc does, as the key help says it
	leaving  bool               // this side ended the match: its session closed as it ended
	leftAs   tandem.ClientState // with leaving: the session's state then
	ids      generic.Map[ecs.NetworkIdentity]
	members  []tandem.Member
	board    []*playerItem
	cues     []cue // the effects the last collect called for
	heard    cueState
}

// scene is what one drawn frame shows, copied out of the world.
type scene struct {
	ready      bool // collect ran at least once
	crates     []crateItem
	props      []propItem // the props in view, copied when their count changes
	propCount  int        // the world's props when props was copied
	balls      []ballItem
	players    []playerItem // the local player last, drawn on top
	score      game.Score
	frame      ecs.Frame
	interpOn   bool
	client     bool            // a joined match: net holds its figures
	net        tandem.NetStats // a client's figures
	host       bool            // a hosted match: peers holds its peers
	peers      []tandem.PeerStats
	playerSize float64
}

type crateItem struct {
	pose  ecs.Transform
	crate game.Crate
}

type propItem struct {
	x, y float32
	kind uint8
}

type ballItem struct {
	pose ecs.Transform
	r    float64
}

type playerItem struct {
	pose   ecs.Transform
	player game.Player
	vel    ecs.Velocity
	charge float64 // the dash's charge, 0 to 1
	local  bool
	id     ecs.NetID
	name   string // as the roster has it, "bot N" for a bot
	rtt    string // the round trip as the scoreboard shows it
}

type crateKey struct {
	w, h  int
	shade uint8
}

func newRenderer(m *match, netGraph bool, text *textWriter) *renderer {
	return &renderer{
		m:        m,
		crates:   generic.NewFilter1[game.Crate](),
		props:    generic.NewFilter2[game.Prop, ecs.Transform](),
		balls:    generic.NewFilter1[game.Ball](),
		players:  generic.NewFilter2[game.Player, ecs.Velocity](),
		sprites:  map[crateKey]*ebiten.Image{},
		netGraph: netGraph,
		text:     text,
		escape:   "quit",
		heard:    cueState{players: map[ecs.NetID]heardPlayer{}, next: map[ecs.NetID]heardPlayer{}},
	}
}

// collect copies what the frame v shows, entities simulated here blended by
// alpha. It runs inside a View: keep it to copying.
func (r *renderer) collect(v *tandem.View, alpha float64) {
	g := game.Of(v.World)
	ip := v.Interpolator()
	sc := &r.scene
	if ip == nil {
		// A client before the host's Welcome: nothing to draw yet but the
		// connection's progress.
		if c := r.m.Client(); c != nil {
			sc.client, sc.net = true, c.Stats()
		}
		return
	}
	if !sc.ready {
		r.cfg, r.walls = g.Config, append([]game.Wall(nil), g.Walls...)
		gq := generic.NewFilter1[game.Goal]().Query(g.World.Arche())
		for gq.Next() {
			r.goals = append(r.goals, *gq.Get())
		}
		r.ids = generic.NewMap[ecs.NetworkIdentity](g.World.Arche())
		sc.ready = true
	}
	a := g.World.Arche()
	r.members = tandem.Members(v.World, r.members[:0])
	local, hasLocal := tandem.Driven[game.Input](v.World, v.World.Peer)
	sc.crates, sc.balls, sc.players = sc.crates[:0], sc.balls[:0], sc.players[:0]
	// Props never move: they are copied again only when their number
	// changes (while a join brings them), and only those in view.
	pq0 := r.props.Query(a)
	if n := pq0.Count(); n != sc.propCount {
		sc.props = sc.props[:0]
		for pq0.Next() {
			p, t := pq0.Get()
			if t.X >= 0 && t.X < screenW && t.Y >= 0 && t.Y < screenH {
				sc.props = append(sc.props, propItem{float32(t.X), float32(t.Y), p.Kind})
			}
		}
		sc.propCount = n
	} else {
		pq0.Close()
	}
	cq := r.crates.Query(a)
	for cq.Next() {
		if p, ok := ip.Pose(cq.Entity(), alpha); ok {
			sc.crates = append(sc.crates, crateItem{p, *cq.Get()})
		}
	}
	bq := r.balls.Query(a)
	for bq.Next() {
		if p, ok := ip.Pose(bq.Entity(), alpha); ok {
			sc.balls = append(sc.balls, ballItem{p, bq.Get().R})
		}
	}
	var me playerItem
	pq := r.players.Query(a)
	for pq.Next() {
		e := pq.Entity()
		p, ok := ip.Pose(e, alpha)
		if !ok {
			continue
		}
		pl, vel := pq.Get()
		it := playerItem{pose: p, player: *pl, vel: *vel, charge: g.DashCharge(pl, g.World.Frame()), local: hasLocal && e == local}
		r.name(&it, *r.ids.Get(e))
		if it.local {
			me = it
			continue
		}
		sc.players = append(sc.players, it)
	}
	if me.local {
		sc.players = append(sc.players, me)
	}
	sc.score, sc.frame, sc.interpOn = g.ScoreNow(), g.World.Frame(), ip.Enabled()
	sc.playerSize = g.Config.PlayerRadius
	if c := r.m.Client(); c != nil {
		sc.client, sc.net = true, c.Stats()
	}
	h := r.m.Host()
	if sc.host = h != nil; sc.host && r.netGraph {
		sc.peers = h.AppendPeerStats(sc.peers[:0])
	}
	var vel ecs.Velocity
	if len(sc.balls) > 0 {
		vel = *(*ecs.Velocity)(a.Get(g.Ball, g.World.IDs.Velocity))
	}
	r.listen(vel, !sc.client || sc.net.State == tandem.Playing)
}

// name sets a player's name and round trip from the roster: a bot by its
// number, a person by the name its peer joined with.
func (r *renderer) name(it *playerItem, id ecs.NetworkIdentity) {
	it.id = id.ID
	bot := it.player.BotNumber > 0
	if bot {
		it.name = fmt.Sprintf("bot %d", it.player.BotNumber)
	} else {
		it.name = "player"
	}
	var rtt time.Duration
	for _, m := range r.members {
		if m.Peer == id.Owner && !bot {
			it.name, rtt = m.Name, m.RTT
		}
	}
	it.rtt = rttText(bot, id.Owner == ecs.HostPeer, rtt)
	if alone := r.m.Host() == nil && r.m.Client() == nil; alone && !bot {
		it.rtt = "—"
	}
}

// draw draws the frame collect copied.
func (r *renderer) draw(screen *ebiten.Image) {
	sc := &r.scene
	if !sc.ready {
		screen.Fill(colBackground)
		r.text.draw(screen, "connecting to the host…", screenW/2, screenH/2-10, styleBody, colText, alignCenter)
		return
	}
	if r.floor == nil || r.propsOn != sc.propCount {
		if r.floor != nil {
			r.floor.Deallocate()
		}
		r.floor = r.drawArena()
		r.drawProps(r.floor)
		r.propsOn = sc.propCount
	}
	screen.DrawImage(r.floor, nil)
	// Shadows first, so nothing is shadowed by a neighbour drawn later.
	for i := range sc.crates {
		r.drawCrate(screen, sc.crates[i].pose, &sc.crates[i].crate, true)
	}
	for _, b := range sc.balls {
		vector.FillCircle(screen, float32(b.pose.X+3), float32(b.pose.Y+5), float32(b.r), colShadow, true)
	}
	for _, p := range sc.players {
		vector.FillCircle(screen, float32(p.pose.X+4), float32(p.pose.Y+6), float32(sc.playerSize), colShadow, true)
	}
	for i := range sc.crates {
		r.drawCrate(screen, sc.crates[i].pose, &sc.crates[i].crate, false)
	}
	for _, b := range sc.balls {
		r.drawBall(screen, b.pose, b.r)
	}
	// The player at the keyboard comes last: on top of everyone.
	for i := range sc.players {
		r.drawPlayer(screen, &sc.players[i])
	}
	// Names over every disc, so none is hidden by a neighbour.
	for i := range sc.players {
		r.drawName(screen, &sc.players[i])
	}
	r.drawHUD(screen)
}

// drawProps paints the props in view into the floor image: tufts (kinds 0,
// 1) and pebbles (2, 3), a few units across. Each is a copy of its kind's
// image from one sheet, which Ebiten batches into one draw for all of them:
// a shape filled per prop is a draw each, seconds for a few thousand props
// under a software renderer.
func (r *renderer) drawProps(img *ebiten.Image) {
	if r.propArt[0] == nil {
		r.propArt = newPropArt()
	}
	var op ebiten.DrawImageOptions
	for _, p := range r.scene.props {
		op.GeoM.Reset()
		op.GeoM.Translate(float64(p.x)-propCell/2, float64(p.y)-propCell/2)
		img.DrawImage(r.propArt[p.kind&3], &op)
	}
}

// propCell is the side of a prop's image, in pixels.
const propCell = 6

// newPropArt draws each kind of prop once, centred in a cell of one small
// sheet, and returns the four cells.
func newPropArt() (art [4]*ebiten.Image) {
	sheet := ebiten.NewImage(len(art)*propCell, propCell)
	for k := range art {
		x := float32(k*propCell) + propCell/2
		c := colProp[k]
		if k < 2 {
			vector.FillRect(sheet, x-1.5, propCell/2-1.5, 3, 3, c, false)
		} else {
			vector.FillCircle(sheet, x, propCell/2, 2, c, true)
		}
		art[k] = sheet.SubImage(image.Rect(k*propCell, 0, (k+1)*propCell, propCell)).(*ebiten.Image)
	}
	return art
}

// drawArena paints the floor, markings, goals and walls into an image once:
// they never move.
func (r *renderer) drawArena() *ebiten.Image {
	img := ebiten.NewImage(screenW, screenH)
	img.Fill(colBackground)
	c := r.cfg
	f := c.Field
	cx, cy := f.Center()
	const stripes = 12
	sw := f.W() / stripes
	for i := range stripes {
		vector.FillRect(img, float32(f.MinX+float64(i)*sw), float32(f.MinY), float32(sw+1), float32(f.H()), colFloor[i%2], false)
	}
	// Markings: halfway line, centre circle and spot, goal areas.
	mk := colMarking
	vector.StrokeLine(img, float32(cx), float32(f.MinY), float32(cx), float32(f.MaxY), 3, mk, true)
	vector.StrokeCircle(img, float32(cx), float32(cy), 90, 3, mk, true)
	vector.FillCircle(img, float32(cx), float32(cy), 6, mk, true)
	boxW, boxH := 110.0, c.GoalMouth+110
	vector.StrokeRect(img, float32(f.MinX), float32(cy-boxH/2), float32(boxW), float32(boxH), 3, mk, true)
	vector.StrokeRect(img, float32(f.MaxX-boxW), float32(cy-boxH/2), float32(boxW), float32(boxH), 3, mk, true)

	// Goals: a tinted net in the defending team's colour.
	for i := range r.goals {
		gl := &r.goals[i]
		tc := game.TeamColors[gl.Team]
		x0, x1 := f.MinX-c.GoalDepth, f.MinX
		if gl.Team == game.Right {
			x0, x1 = f.MaxX, f.MaxX+c.GoalDepth
		}
		y0, y1 := cy-c.GoalMouth/2, cy+c.GoalMouth/2
		vector.FillRect(img, float32(x0), float32(y0), float32(x1-x0), float32(y1-y0), withAlpha(tc, 0x50), false)
		net := withAlpha(tc, 0x70)
		for x := x0 + 8; x < x1; x += 9 {
			vector.StrokeLine(img, float32(x), float32(y0), float32(x), float32(y1), 1, net, false)
		}
		for y := y0 + 8; y < y1; y += 9 {
			vector.StrokeLine(img, float32(x0), float32(y), float32(x1), float32(y), 1, net, false)
		}
		// the goal line
		gx := float32(f.MinX)
		if gl.Team == game.Right {
			gx = float32(f.MaxX)
		}
		vector.StrokeLine(img, gx, float32(y0), gx, float32(y1), 3, withAlpha(tc, 0xc0), true)
	}

	// Walls: a dark edge under a light top, round ends.
	for _, wl := range r.walls {
		for i, col := range []color.RGBA{colWallEdge, colWall} {
			wd := float32(12 - 4*i)
			vector.StrokeLine(img, float32(wl.AX), float32(wl.AY), float32(wl.BX), float32(wl.BY), wd, col, true)
			vector.FillCircle(img, float32(wl.AX), float32(wl.AY), wd/2, col, true)
			vector.FillCircle(img, float32(wl.BX), float32(wl.BY), wd/2, col, true)
		}
	}
	// Goal posts in team colours.
	for t, x := range []float64{f.MinX, f.MaxX} {
		for _, y := range []float64{cy - c.GoalMouth/2, cy + c.GoalMouth/2} {
			vector.FillCircle(img, float32(x), float32(y), 8, game.TeamColors[t], true)
			vector.StrokeCircle(img, float32(x), float32(y), 8, 2, colWallEdge, true)
		}
	}
	return img
}

// crateSprite returns (building it once) the image of a crate of the given
// size and shade, with a transparent margin so rotated edges are smooth.
func (r *renderer) crateSprite(c *game.Crate) *ebiten.Image {
	k := crateKey{int(math.Round(c.W)), int(math.Round(c.H)), c.Shade % 3}
	if img, ok := r.sprites[k]; ok {
		return img
	}
	const pad = 2
	w, h := float32(k.w), float32(k.h)
	img := ebiten.NewImage(k.w+2*pad, k.h+2*pad)
	vector.FillRect(img, pad, pad, w, h, colCrate[k.shade], false)
	// planks
	for i := 1; i < 3; i++ {
		y := pad + h*float32(i)/3
		vector.StrokeLine(img, pad+4, y, pad+w-4, y, 1, colCrateBrace, false)
	}
	// diagonal brace
	vector.StrokeLine(img, pad+5, pad+h-5, pad+w-5, pad+5, 5, colCrateBrace, true)
	// frame
	vector.StrokeRect(img, pad+2, pad+2, w-4, h-4, 4, colCrateEdge, false)
	// nails
	for _, p := range [][2]float32{{5, 5}, {w - 5, 5}, {5, h - 5}, {w - 5, h - 5}} {
		vector.FillCircle(img, pad+p[0], pad+p[1], 1.5, colCrateBrace, true)
	}
	r.sprites[k] = img
	return img
}

func (r *renderer) drawCrate(screen *ebiten.Image, p ecs.Transform, c *game.Crate, shadow bool) {
	img := r.crateSprite(c)
	b := img.Bounds()
	op := &ebiten.DrawImageOptions{Filter: ebiten.FilterLinear}
	op.GeoM.Translate(-float64(b.Dx())/2, -float64(b.Dy())/2)
	op.GeoM.Rotate(p.Angle)
	op.GeoM.Translate(p.X, p.Y)
	if shadow {
		op.GeoM.Translate(4, 6)
		op.ColorScale.Scale(0, 0, 0, 0.33)
	}
	screen.DrawImage(img, op)
}

func (r *renderer) drawBall(screen *ebiten.Image, p ecs.Transform, rad float64) {
	x, y, R := float32(p.X), float32(p.Y), float32(rad)
	vector.FillCircle(screen, x, y, R, colBall, true)
	// Spots turn with the ball.
	for i := range 3 {
		a := p.Angle + float64(i)*2*math.Pi/3
		sx := x + float32(math.Cos(a)*rad*0.52)
		sy := y + float32(math.Sin(a)*rad*0.52)
		vector.FillCircle(screen, sx, sy, R*0.26, colBallSpot, true)
	}
	vector.FillCircle(screen, x, y, R*0.22, colBallSpot, true)
	vector.StrokeCircle(screen, x, y, R, 1.5, colBallSpot, true)
}

func (r *renderer) drawPlayer(screen *ebiten.Image, it *playerItem) {
	p, pl, v := it.pose, &it.player, it.vel
	x, y := float32(p.X), float32(p.Y)
	R := float32(r.scene.playerSize)
	tc := game.TeamColors[pl.Team]
	if it.local {
		vector.StrokeCircle(screen, x, y, R+5, 2, color.RGBA{0xff, 0xff, 0xff, 0xb0}, true)
	}
	vector.FillCircle(screen, x, y, R, tc, true)
	vector.FillCircle(screen, x, y, R-4, pl.Color, true)
	// An eye looking where the disc goes.
	if s := math.Hypot(v.X, v.Y); s > 5 {
		ex := x + float32(v.X/s)*R*0.45
		ey := y + float32(v.Y/s)*R*0.45
		vector.FillCircle(screen, ex, ey, 4, color.RGBA{0x1a, 0x1d, 0x24, 0xff}, true)
	}
	// Dash charge: a ring filling up.
	if charge := it.charge; charge < 1 {
		r.path.Reset()
		start := -math.Pi / 2
		r.path.Arc(x, y, R+9, float32(start), float32(start+2*math.Pi*charge), vector.Clockwise)
		op := &vector.StrokeOptions{Width: 3, LineCap: vector.LineCapRound}
		dp := &vector.DrawPathOptions{AntiAlias: true}
		dp.ColorScale.ScaleWithColor(withAlpha(tc, 0xd0))
		vector.StrokePath(screen, &r.path, op, dp)
	}
}

// drawName draws a player's name under its disc, cut to nameWidth; the
// local player's stands out.
func (r *renderer) drawName(screen *ebiten.Image, it *playerItem) {
	col := colText
	if it.local {
		col = game.LocalColor
	}
	x, y := float32(it.pose.X), float32(it.pose.Y+r.scene.playerSize)+8
	r.text.draw(screen, r.text.cut(it.name, styleName, nameWidth), x, y, styleName, col, alignCenter)
}

// withAlpha returns c with alpha a, premultiplied as Ebiten expects.
func withAlpha(c color.RGBA, a uint8) color.RGBA {
	f := func(v uint8) uint8 { return uint8(uint16(v) * uint16(a) / 0xff) }
	return color.RGBA{f(c.R), f(c.G), f(c.B), a}
}

// rgb returns an opaque colour from its channels (the fourth is ignored).
func rgb(c [4]uint8) color.RGBA { return color.RGBA{c[0], c[1], c[2], 0xff} }
