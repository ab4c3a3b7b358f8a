// Package session is the facade a game uses to network its world: a Host
// that admits peers and replicates to them, and a Client that joins a host and
// holds its world.
//
// It sits on top of the stack. A Host takes connections from any
// transport.Listener (QUIC, or in memory for tests), wraps each in a
// net/conn.Conn, runs the handshake (protocol version, player name → peer id,
// session token, tick rate, frame), hands admitted peers to the replicator
// (net/replicate), which joins them in paged rounds and then keeps them
// current, and drops peers that break the rules. A Client dials, says hello,
// applies the join and the state that follows.
//
// Both install their work as systems of the game's ecs.Schedule: receiving in
// ecs.StageInput, replication and sending in ecs.StageOutput. Everything that
// touches the world happens on the simulation goroutine; the network's
// goroutines (the transport's, and the host's accept loop) only move bytes
// through bounded queues.
package session
