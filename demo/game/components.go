package game

import (
	"image/color"

	"github.com/tandem-go/tandem/ecs"
)

// Team is a side of the match. Left defends the goal at the left of the arena
// and scores in the right one; Right the other way round.
type Team uint8

// The two teams.
const (
	Left Team = iota
	Right
)

// Opponent returns the other team.
func (t Team) Opponent() Team { return 1 - t }

// String names the team.
func (t Team) String() string {
	if t == Left {
		return "left"
	}
	return "right"
}

// Player is a disc driven by its owner's input. Its entity also has
// tandem.Input[Input], a physics.Body, and the engine's Transform, Velocity,
// NetworkIdentity (owned by the controlling peer) and Interpolated.
type Player struct {
	Team Team
	// Color is the disc's colour (opaque sRGB).
	Color color.RGBA
	// DashReady is the first frame at which the player may dash again.
	DashReady ecs.Frame
	// Goals counts the goals this player scored: the ball entered the
	// opponent's goal with this player the last to touch it.
	Goals int
	// BotNumber numbers a computer player (1, 2, ...) so that every machine
	// names it alike; 0 for a person.
	BotNumber uint8
}

// Bot marks a player whose input the host computes (see the bots system).
// It is host-side state, not meant to be replicated.
type Bot struct {
	// Side (±1) is the way the bot goes round the ball when it is on the
	// wrong side of it.
	Side float64
	// Stuck counts frames of thrust without progress; past a limit the bot
	// steps aside.
	Stuck int
	// Aim is a small offset, in world units, of the point the bot aims for
	// in the goal mouth, so bots do not all line up on the same spot.
	Aim float64
}

// Crate is a box that players push about. W and H are its size in world
// units; Home is where it is put back when it is pushed into a goal.
type Crate struct {
	W, H  float64
	Home  ecs.Transform
	Shade uint8 // 0..2, a variation of the wood colour for drawing
}

// Prop is a piece of decor on the grounds around the field (and on the
// field's turf): networked, never moving, never touched; Kind picks its look
// (0..3). Props show what a big world costs: a joiner receives them all,
// and afterwards they cost nothing a tick, since nothing about them changes.
type Prop struct {
	Kind uint8
}

// Ball is the ball; R is its radius in world units.
type Ball struct {
	R float64
}

// Goal is a goal mouth (static, not networked: every machine builds the
// arena from the same Config). Team is the team that defends it; a ball that
// enters Rect scores for the opponent.
type Goal struct {
	Team Team
	Rect Rect
}

// Score is the match score, held by one networked entity owned by the host.
type Score struct {
	Left, Right int
	// LastGoal is the frame of the last goal (0 before the first) and
	// LastTeam the team that scored it.
	LastGoal ecs.Frame
	LastTeam Team
}

// Of returns team t's goals.
func (s Score) Of(t Team) int {
	if t == Left {
		return s.Left
	}
	return s.Right
}

// Rect is an axis-aligned rectangle in world units.
type Rect struct {
	MinX, MinY, MaxX, MaxY float64
}

// W returns the width.
func (r Rect) W() float64 { return r.MaxX - r.MinX }

// H returns the height.
func (r Rect) H() float64 { return r.MaxY - r.MinY }

// Center returns the centre point.
func (r Rect) Center() (x, y float64) { return (r.MinX + r.MaxX) / 2, (r.MinY + r.MaxY) / 2 }

// Contains reports whether (x, y) is inside r (edges included).
func (r Rect) Contains(x, y float64) bool {
	return x >= r.MinX && x <= r.MaxX && y >= r.MinY && y <= r.MaxY
}
