package game

import "math"

// InputAxisMax is the value of a fully pressed thrust axis.
const InputAxisMax = 127

// Input is what a player asks for in one frame. It is small and fixed-size
// so the network can send several of them in every datagram.
type Input struct {
	// MoveX, MoveY is the thrust direction and strength, each in
	// -InputAxisMax..InputAxisMax (+x right, +y down). A keyboard gives
	// the extremes; a stick or a bot anything between. The vector is
	// clamped to length InputAxisMax.
	MoveX, MoveY int8
	// Dash asks for a dash; it happens when the player's cooldown allows.
	// Holding it dashes again as soon as the cooldown ends.
	Dash bool
}

// Thrust returns the thrust as a vector of length at most 1.
func (in Input) Thrust() (x, y float64) {
	x, y = float64(in.MoveX)/InputAxisMax, float64(in.MoveY)/InputAxisMax
	if l := math.Hypot(x, y); l > 1 {
		x, y = x/l, y/l
	}
	return x, y
}

// InputToward returns an Input thrusting along (dx, dy) at full strength, or
// no thrust if the vector is zero.
func InputToward(dx, dy float64) Input {
	l := math.Hypot(dx, dy)
	if l == 0 {
		return Input{}
	}
	return Input{
		MoveX: int8(math.Round(dx / l * InputAxisMax)),
		MoveY: int8(math.Round(dy / l * InputAxisMax)),
	}
}
