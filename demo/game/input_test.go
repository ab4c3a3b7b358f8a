package game_test

import (
	"testing"

	"github.com/tandem-go/tandem/demo/game"
)

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
