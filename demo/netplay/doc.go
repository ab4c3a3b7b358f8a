// Package netplay is what the demo's match tells the engine (package tandem):
// the replicated components and their codecs, the input's wire encoding,
// and the teams and spawns of players who join. Everything generic (input
// routing, prediction, reconciliation, interpolation, remote bodies, the
// rest lock, teleports, statistics) is the engine's.
//
// It reads as the template for that part of a new game:
//
//   - codecs.go: the game's replicated components (Player, Ball, Crate and
//     Score beside the engine's Transform and Velocity), in wire order, with
//     the prediction tolerances;
//   - input.go: the wire encoding of game.Input;
//   - game.go: New, the tandem.Game of the match: the world (package game),
//     who joins which team with which colour, and the bodies a client gives
//     what it receives.
//
// It has no Ebiten import: a headless host, headless bot clients and tests
// run it without a display.
package netplay
