// Package game is the demo's simulation: a top-down arena where players drive
// discs with thrust and a dash, push crates and a ball, and score in the
// opponent's goal. It has no Ebiten import: a headless host, bots and tests
// run it without a display, and the demo's window only feeds it input and
// draws its world.
//
// It is written as the template for a new game on Tandem:
//
//   - components.go: the game's components (Player, Crate, Ball, Goal, Score,
//     Bot) beside the engine's Transform, Velocity, NetworkIdentity and
//     Interpolated;
//   - input.go: Input, the per-frame control value, StampedInput, an Input
//     stamped with the frame it is for, and InputQueue, each player's store
//     of stamped inputs;
//   - config.go and arena.go: the arena and what is spawned in it;
//   - control.go, goals.go, bots.go: the systems, run by an ecs.Schedule at the
//     fixed step in the order bots, control, physics, goals, stats;
//   - game.go: Game, which wires world, physics and schedule.
//
// Inputs never come from a keyboard here. Whoever controls a player (the
// window, a bot, the network) pushes StampedInputs into that player's
// InputQueue with PushInput; the control system takes, at frame F, the newest
// input stamped F or earlier. The same systems therefore run on a host, for
// every player, and on a client predicting its own.
//
// Threads: like the world it runs, a Game belongs to one goroutine.
package game
