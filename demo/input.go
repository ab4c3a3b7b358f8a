package main

import (
	"github.com/hajimehoshi/ebiten/v2"

	"github.com/tandem-go/tandem/demo/game"
)

// Keys: each action and the keys that do it.
var (
	keysLeft  = []ebiten.Key{ebiten.KeyA, ebiten.KeyArrowLeft}
	keysRight = []ebiten.Key{ebiten.KeyD, ebiten.KeyArrowRight}
	keysUp    = []ebiten.Key{ebiten.KeyW, ebiten.KeyArrowUp}
	keysDown  = []ebiten.Key{ebiten.KeyS, ebiten.KeyArrowDown}
	keysDash  = []ebiten.Key{ebiten.KeySpace}
)

func pressed(keys []ebiten.Key) bool {
	for _, k := range keys {
		if ebiten.IsKeyPressed(k) {
			return true
		}
	}
	return false
}

// readKeyboard samples the keyboard into the game's input value. It is the
// only place the game's controls meet the keyboard: the window hands the
// result to the match (SetInput), which holds it for every frame until the
// next.
func readKeyboard() game.Input {
	var x, y int8
	if pressed(keysLeft) {
		x -= game.InputAxisMax
	}
	if pressed(keysRight) {
		x += game.InputAxisMax
	}
	if pressed(keysUp) {
		y -= game.InputAxisMax
	}
	if pressed(keysDown) {
		y += game.InputAxisMax
	}
	return game.Input{MoveX: x, MoveY: y, Dash: pressed(keysDash)}
}
