// Package game is the demo's simulation: a top-down arena where players drive
// discs with thrust and a dash, push crates and a ball, and score in the
// opponent's goal. It has no Ebiten import: a headless host, bots and tests
// run it without a display, and the demo's window only feeds it input and
// draws its world.
//
// It is written as the template for a new game on Tandem (its networking is
// in demo/netplay):
//
//   - components.go: the game's components (Player, Crate, Ball, Goal, Score,
//     Bot) beside the engine's Transform, Velocity, NetworkIdentity and
//     Interpolated;
//   - input.go: Input, the per-frame control value;
//   - config.go and arena.go: the arena and what is spawned in it;
//   - control.go, goals.go, bots.go: the systems, run by an ecs.Schedule at the
//     fixed step in the order bots, control, physics, goals, stats;
//   - game.go: Game, which wires world, physics and schedule.
//
// Inputs never come from a keyboard here. Every player entity has a
// tandem.Input[Input] component: the engine writes into it, each frame, the
// input of the player's owner for that frame (the keyboard's on this
// machine, a peer's on the host); a bot writes its own. The control system
// reads it. The same systems therefore run on a host, for every player, and
// on a client predicting its own.
//
// Threads: like the world it runs, a Game belongs to one goroutine.
package game
