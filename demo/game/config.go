package game

import (
	"image/color"
	"time"
)

// Config describes a match: the arena, what is in it, and how things move.
// Start from DefaultConfig; every machine of a session must use the same
// arena and tuning, since each builds the static arena itself.
//
// Units: world units (one per pixel of the demo's 1280×720 view), seconds,
// and the game's mass unit.
type Config struct {
	// Step is the fixed simulation step.
	Step time.Duration
	// Field is the playing area inside the walls.
	Field Rect
	// GoalMouth is the height of each goal's opening; GoalDepth how far the
	// goal reaches behind the wall line.
	GoalMouth, GoalDepth float64
	// Crates is how many crates Populate scatters; Seed makes their layout.
	Crates int
	Seed   uint64
	// Props is how many static props (decor) Populate scatters over the
	// grounds: a square of PropsSpan units a side centred on the field. The
	// default span keeps every prop within the engine's default interest
	// radius (4,096 units) of any player on the field, so a joiner receives
	// them all.
	Props     int
	PropsSpan float64

	// PlayerRadius, PlayerMass: the players' discs.
	PlayerRadius, PlayerMass float64
	// Accel is the players' thrust acceleration (units/s²), up to
	// MaxSpeed (units/s); thrust never pushes a player faster than that.
	Accel, MaxSpeed float64
	// DashSpeed is the speed a dash adds along the thrust (units/s), up to
	// DashMaxSpeed; DashCooldown is the time between dashes.
	DashSpeed, DashMaxSpeed float64
	DashCooldown            time.Duration

	// BallRadius, BallMass: the ball.
	BallRadius, BallMass float64
	// CrateMin, CrateMax bound a crate's side; CrateDensity gives its mass
	// per square unit.
	CrateMin, CrateMax, CrateDensity float64

	// Floor friction (units/s² of lost speed) of players, ball and crates,
	// and the space's damping (fraction of speed kept per second).
	PlayerFloor, BallFloor, CrateFloor, Damping float64
}

// DefaultConfig returns the demo's match: a 1152×628 field at 60 Hz with 30
// crates, tuned to be fun to push about.
func DefaultConfig() Config {
	return Config{
		Step:         time.Second / 60,
		Field:        Rect{MinX: 64, MinY: 72, MaxX: 1216, MaxY: 700},
		GoalMouth:    190,
		GoalDepth:    46,
		Crates:       30,
		Seed:         7,
		PropsSpan:    6400,
		PlayerRadius: 18,
		PlayerMass:   5,
		Accel:        1800,
		MaxSpeed:     330,
		DashSpeed:    520,
		DashMaxSpeed: 760,
		DashCooldown: time.Second,
		BallRadius:   14,
		BallMass:     1.2,
		CrateMin:     34,
		CrateMax:     54,
		CrateDensity: 0.0022,
		PlayerFloor:  600,
		BallFloor:    110,
		CrateFloor:   650,
		Damping:      0.75,
	}
}

// MaxPlayers is the most people in one networked match, the host's own
// player included; computer players come on top.
const MaxPlayers = 8

// Team and player colours.
var (
	// TeamColors are the teams' colours: goals and players' rims.
	TeamColors = [2]color.RGBA{Left: {0x3d, 0x9b, 0xff, 0xff}, Right: {0xff, 0x5a, 0x4f, 0xff}}
	// LocalColor is the disc colour of the player at the keyboard.
	LocalColor = color.RGBA{0xff, 0xd2, 0x3f, 0xff}
	// PlayerColors are the disc colours of a networked match's players, one
	// each: the host's own player takes the first (LocalColor), each peer
	// that joins the first one free.
	PlayerColors = [MaxPlayers]color.RGBA{
		LocalColor,
		{0x4d, 0xe0, 0x8a, 0xff}, // green
		{0xc0, 0x6b, 0xff, 0xff}, // violet
		{0xff, 0x8c, 0x1a, 0xff}, // orange
		{0x2e, 0xe6, 0xe6, 0xff}, // cyan
		{0xff, 0x5c, 0xc8, 0xff}, // pink
		{0xa8, 0xe0, 0x3a, 0xff}, // lime
		{0xb8, 0xbf, 0xcc, 0xff}, // silver
	}
	// botColors are the bots' disc colours by team: lighter team shades.
	botColors = [2]color.RGBA{Left: {0x8c, 0xc6, 0xff, 0xff}, Right: {0xff, 0xa0, 0x96, 0xff}}
)
