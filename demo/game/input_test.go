package game_test

import (
	"testing"

	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
)

func stamped(f ecs.Frame, x int8) game.StampedInput {
	return game.StampedInput{Frame: f, Input: game.Input{MoveX: x}}
}

func TestInputQueueTakesNewestDueInput(t *testing.T) {
	var q game.InputQueue
	// Out of order, with a repeat that replaces.
	for _, in := range []game.StampedInput{stamped(3, 3), stamped(1, 1), stamped(2, 2), stamped(5, 5), stamped(2, 22)} {
		if !q.Push(in) {
			t.Fatalf("Push(%+v) refused", in)
		}
	}
	if q.Len() != 4 {
		t.Fatalf("Len = %d, want 4 (frame 2 replaced, not added)", q.Len())
	}
	want := []struct {
		frame ecs.Frame
		x     int8
	}{
		{1, 1},
		{2, 22}, // the later sample for frame 2 won
		{3, 3},
		{4, 3}, // nothing for 4: frame 3's input holds
		{5, 5},
		{6, 5},
	}
	for _, w := range want {
		if got := q.Take(w.frame).MoveX; got != w.x {
			t.Fatalf("Take(%d).MoveX = %d, want %d", w.frame, got, w.x)
		}
	}
	if q.Push(stamped(5, 9)) || q.Push(stamped(4, 9)) {
		t.Fatal("an input for a frame already applied was accepted")
	}
	if q.Dropped != 2 {
		t.Fatalf("Dropped = %d, want 2", q.Dropped)
	}
}

func TestInputQueueAppliesLateInputAtOnce(t *testing.T) {
	var q game.InputQueue
	q.Push(stamped(1, 1))
	q.Take(1)
	q.Take(2)
	q.Take(3)
	// Inputs for frames 2 and 3 arrive late, at frame 4: the newest applies.
	q.Push(stamped(2, 2))
	q.Push(stamped(3, 3))
	if got := q.Take(4).MoveX; got != 3 {
		t.Fatalf("late inputs: Take(4).MoveX = %d, want 3 (the newest late input, at once)", got)
	}
	if q.Len() != 0 {
		t.Fatalf("%d inputs left after they were due", q.Len())
	}
}

func TestInputQueueIsBounded(t *testing.T) {
	var q game.InputQueue
	for f := ecs.Frame(1); f <= 200; f++ {
		q.Push(stamped(f, 1))
	}
	if q.Len() != 64 {
		t.Fatalf("Len = %d after 200 pushes, want the bound 64", q.Len())
	}
	if q.Dropped != 200-64 {
		t.Fatalf("Dropped = %d, want %d", q.Dropped, 200-64)
	}
	// The nearest inputs are the ones kept.
	if got := q.Take(1).MoveX; got != 1 || q.Len() != 63 {
		t.Fatalf("Take(1) = %d with %d left; the queue must keep the earliest frames", got, q.Len())
	}
}

func TestInputThrustIsClampedToOne(t *testing.T) {
	x, y := game.Input{MoveX: 127, MoveY: 127}.Thrust()
	if l := x*x + y*y; l < 0.999 || l > 1.001 {
		t.Fatalf("diagonal thrust has length² %v, want 1", l)
	}
	if in := game.InputToward(0, 0); in != (game.Input{}) {
		t.Fatalf("InputToward(0, 0) = %+v, want no thrust", in)
	}
	if in := game.InputToward(-3, 0); in.MoveX != -127 || in.MoveY != 0 {
		t.Fatalf("InputToward(-3, 0) = %+v", in)
	}
}
