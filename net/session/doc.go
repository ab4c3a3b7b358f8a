// Package session is the session layer under package tandem (the facade a
// game is built on: tandem.Host and tandem.Client wire this for it): a Host
// that admits peers and replicates to them, and a Client that joins a host and
// holds its world.
//
// It sits above replication and the connections, below package tandem. A
// Host takes connections from any
// transport.Listener (QUIC, or in memory for tests), wraps each in a
// net/conn.Conn and runs the handshake: Hello (protocol version, player name)
// is answered by Welcome (peer id, session token, tick rate, frame), which
// the client takes with a WelcomeAck. Only then is the peer admitted: it gets
// a player slot, the game's OnJoin, its transport's full limits, and the
// replicator (net/replicate), which joins it in paged rounds and then keeps
// it current. A crowd that answers at once is admitted HostConfig.AdmitPerStep
// a step, in the order it answered; one whose WelcomeAck waits its turn has
// finished its handshake. Until then a connection holds nothing but a bounded pending
// slot: it is dropped when its handshake is overdue and evicted, oldest
// first, by newer ones (per address and in all), so silent connections can
// neither fill the host nor keep a real player out. A refusal is a Reject
// the client reads before the connection closes (RejectError). The host
// drops peers that break the rules, with the reason. A Client dials, says
// Hello, answers the Welcome, applies the join, checks at its end that it
// holds everything the host sent, then applies the state that follows.
//
// A connection that breaks does not end the peer. The host keeps a peer
// whose connection broke after its join finished for HostConfig.Grace: its
// peer id, its slot, its entities (PeerDisconnected). A client with a
// ClientConfig.Dial reconnects by itself (Reconnecting): on a new connection
// it says Resume, with the peer id and token of its Welcome, in place of
// Hello. The host answers Resumed and joins it again, into the world the
// client holds (replicate.ClientReplicator.Rejoin: the entities held stay
// the same, those gone are removed at FINAL; those held under an id that
// may name another entity in the host's run of its world, when the client
// held another run, are removed at once: Welcome's and Resumed's Runs, the
// world's lineage, ecs.KeptBelow), or Reject RejectResume, and the
// client joins afresh as a new peer. The first answer of a connection is its
// answer; a connection gets one join. Tokens are kept as hashes and compared
// in constant time; resumes are bounded per connection, per peer and per
// second. A client's peer id and token are its Ticket (Client.Ticket): a
// game that keeps it past its process gives it to a new client
// (ClientConfig.Ticket), whose first connection says Resume with
// wire.ResumeKeptTicket and takes the peer back, the whole world joined
// into its empty one. Past its window a peer leaves (PeerLeft, ErrGraceExpired). The
// known peers (KnownPeers, RestorePeers) carry those identities across a
// save. The Admit hook, and OnJoin returning an error, refuse a peer with a
// Reject before it takes a slot.
//
// Both install their work as systems of the game's ecs.Schedule: receiving in
// ecs.StageInput, replication and sending in ecs.StageOutput. Between steps a
// host's loop may call Host.Handshake, which answers Hello, Resume and
// WelcomeAck as they arrive (a WelcomeAck past AdmitPerStep waits for the
// next step) and starts an admitted peer's join at once, so a join does not
// wait for the host's next steps. Everything that
// touches the world happens on the simulation goroutine; the network's
// goroutines (the transport's, and the host's accept loop) only move bytes
// through bounded queues.
package session
