package tandem

import "github.com/tandem-go/tandem/net/session"

// ClientState is where a client is in its session (Client.State): the
// session package's, named here so that a game compares it without
// importing that package.
type ClientState = session.ClientState

// A client's states, in the order a session goes through them (see
// session.ClientState).
const (
	// Connecting: the client asked to come in; no answer yet.
	Connecting = session.Connecting
	// Joining: admitted; the world is arriving (NetStats.Received of
	// NetStats.Total).
	Joining = session.Joining
	// Playing: the world is current; the client predicts and draws.
	Playing = session.Playing
	// Reconnecting: the connection broke, or the host restarts
	// (Host.CloseForRestart); the client dials again to resume its peer,
	// its world held still meanwhile (or, when the first connection broke
	// before the host let it in, to join: for 10 s, Peer still 0).
	Reconnecting = session.Reconnecting
	// Closed: the session ended; Client.Err says why (nil for an orderly
	// end). Advance and Step run nothing from then on (View and Do look at
	// the world as the session left it).
	Closed = session.Closed
)

// Ticket is what takes a player's place back from a new process of the game:
// the peer id and session token the host gave (Client.Ticket,
// ClientConfig.Ticket). Secret as a password. Its MarshalText and
// UnmarshalText are "peer:token", the token in hex.
type Ticket = session.Ticket
