package game

import (
	"math"

	"github.com/tandem-go/tandem/ecs"
)

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

// StampedInput is an Input for one frame: the frame at which the control
// system applies it.
type StampedInput struct {
	Frame ecs.Frame
	Input
}

// inputQueueLen bounds the inputs a player may have waiting: at 60 Hz, about
// a second ahead.
const inputQueueLen = 64

// InputQueue is a player's store of stamped inputs, a component of every
// player entity. Push adds inputs as they arrive (from the window, a bot or
// the network), in any order, repeats included; the control system takes
// them by frame. It is fixed-size and allocates nothing.
type InputQueue struct {
	pending [inputQueueLen]StampedInput // sorted by Frame, oldest first
	n       int
	// Last is the input applied last, and its frame. It repeats while no
	// newer input has arrived.
	Last StampedInput
	// Dropped counts pushes refused because they were stale (for a frame
	// already applied) or the queue was full.
	Dropped int
}

// Push stores in. An input for a frame already applied is dropped; one for a
// frame already waiting replaces it (the newer sample wins). When the queue
// is full the input furthest ahead is dropped. Reports whether in was kept.
func (q *InputQueue) Push(in StampedInput) bool {
	if in.Frame <= q.Last.Frame {
		q.Dropped++
		return false
	}
	i := q.n
	for i > 0 && q.pending[i-1].Frame >= in.Frame {
		i--
	}
	if i < q.n && q.pending[i].Frame == in.Frame {
		q.pending[i] = in
		return true
	}
	if q.n == inputQueueLen {
		if i == q.n {
			q.Dropped++
			return false
		}
		q.n-- // drop the furthest ahead to make room
		q.Dropped++
	}
	copy(q.pending[i+1:q.n+1], q.pending[i:q.n])
	q.pending[i] = in
	q.n++
	return true
}

// Take returns the input to apply at frame f: the newest input stamped f or
// earlier (a late input is applied at once), which becomes Last; with none,
// Last's input repeats. Inputs stamped f or earlier are consumed.
func (q *InputQueue) Take(f ecs.Frame) Input {
	k := 0
	for k < q.n && q.pending[k].Frame <= f {
		k++
	}
	if k > 0 {
		q.Last = q.pending[k-1]
		copy(q.pending[:], q.pending[k:q.n])
		q.n -= k
	}
	return q.Last.Input
}

// Len returns how many inputs are waiting.
func (q *InputQueue) Len() int { return q.n }
