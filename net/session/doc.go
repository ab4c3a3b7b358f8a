// Package session is the facade a game uses to network its world: a Host
// that admits peers and replicates to them, and a Client that joins a host and
// holds its world.
//
// It sits on top of the stack. A Host takes connections from any
// transport.Listener (QUIC, or in memory for tests), wraps each in a
// net/conn.Conn and runs the handshake: Hello (protocol version, player name)
// is answered by Welcome (peer id, session token, tick rate, frame), which
// the client takes with a WelcomeAck. Only then is the peer admitted: it gets
// a player slot, the game's OnJoin, its transport's full limits, and the
// replicator (net/replicate), which joins it in paged rounds and then keeps
// it current. Until then a connection holds nothing but a bounded pending
// slot: it is dropped when its handshake is overdue and evicted, oldest
// first, by newer ones (per address and in all), so silent connections can
// neither fill the host nor keep a real player out. A refusal is a Reject
// the client reads before the connection closes (RejectError). The host
// drops peers that break the rules, with the reason. A Client dials, says
// Hello, answers the Welcome, applies the join, checks at its end that it
// holds everything the host sent, then applies the state that follows.
//
// Both install their work as systems of the game's ecs.Schedule: receiving in
// ecs.StageInput, replication and sending in ecs.StageOutput. Everything that
// touches the world happens on the simulation goroutine; the network's
// goroutines (the transport's, and the host's accept loop) only move bytes
// through bounded queues.
package session
