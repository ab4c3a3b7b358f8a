// Package netplay puts the demo's match on the network: a Host that runs the
// match and lets up to eight people join it, and a Client that joins one and
// plays in it with its own disc predicted. It has no Ebiten import, so a
// headless host, headless bot clients and tests run it without a display;
// the demo's window only feeds a Client the keyboard and draws what it holds.
//
// It is where a game meets Tandem's network stack, and reads as the template
// for that part of a new game:
//
//   - codecs.go: the game's replicated components (Player, Ball, Crate, Score
//     and Teleports beside the engine's Transform and Velocity), registered in
//     the same order on both sides by NewRegistry; the prediction tolerances,
//     and how prediction treats each component;
//   - input.go: the wire encoding of game.Input;
//   - host.go: the Host: a peer that joins gets a player of its own colour on
//     the smaller team; its stamped inputs (net/predict) drive that player,
//     one per host frame;
//   - teleports.go: the host counts each entity's teleports so clients draw
//     them as jumps;
//   - client.go: the Client: joins, predicts its own player with the game's
//     own control and physics systems, and draws everything through the
//     interpolator (interp);
//   - remote.go: how a client's physics treats the bodies it does not own;
//   - rest.go: a client's player at rest stays where the host has it;
//   - corrections.go, stats.go: the figures of the demo's net graph.
//
// Remote bodies on a client. A client simulates only its own player, but that
// player must collide with everything else. Every replicated player, ball and
// crate therefore gets a dynamic physics body on the client (game.Embody).
// The client keeps each one on the host's state: when a state arrives, and
// after every local step that moved it, the body is put where the host had
// it, carried forward at its velocity to the client's frame (the client runs
// ahead of the host; at most 250 ms). A remote body so has its real mass for
// the one step in which the predicted player meets it, so a push slows the
// player as it does on the host, and it never wanders off on the client's
// own account. A ball or crate the predicted player touches is held: the
// client simulates it on its own until a host state from after the touch
// arrives, so the player can dribble the ball without the host's late view
// of it getting in the way. Kinematic bodies would be simpler and wrong: their
// infinite mass would stop the predicted player dead on every crate and ball,
// and the host would correct it each time. Remote players are never held:
// someone else's inputs drive them, and the client cannot guess those. What
// remains mispredicted (another player's turn, a crate the host's ball hit)
// is what the corrections on the net graph show.
//
// The Transform and Velocity components of a remote entity keep the host's
// state between steps, whatever its body does: the interpolator and the
// game's systems read them there.
//
// Threads: a Host or Client belongs to the goroutine that steps its game's
// schedule; nothing here is safe for concurrent use except where noted.
package netplay
