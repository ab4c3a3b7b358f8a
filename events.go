package tandem

import "github.com/tandem-go/tandem/net/session"

// EventKind says what an Event is (Host.OnEvent, Client.OnEvent): the
// session package's, named here so that a game switches on it without
// importing that package.
type EventKind = session.EventKind

// The kinds of Event, on the host about a peer, on a client about itself
// (see session.EventKind).
const (
	// PeerJoined: a peer was admitted (host), or this client was.
	PeerJoined = session.PeerJoined
	// PeerReady: a join finished: the peer holds the world. The host tells
	// it once a peer; a client also after each resume, once it holds the
	// world again (its own entities are brought current by the host's next
	// word on them, a step or two later: ClientState Playing says so).
	PeerReady = session.PeerReady
	// PeerLeft: a peer left or was dropped, or this client's session
	// ended; Event.Err says why (nil for an orderly leave: a peer's own,
	// on the host; this client's Close, on the client).
	PeerLeft = session.PeerLeft
	// PeerRejected: a connection was refused at its handshake (the host
	// tells it when it sends the refusal), or one ended before its
	// handshake did; on a client, a resume (or a kept ticket) was refused
	// and the client joins afresh.
	PeerRejected = session.PeerRejected
	// PeerDisconnected: a connection broke; the host keeps the peer for its
	// grace window, a client with ClientConfig.Dial reconnects. On the host
	// every PeerResumed follows one: when the client noticed the break
	// first and resumed while the host still held its old connection, it
	// comes right before the PeerResumed (Err: session.ErrResumedElsewhere).
	PeerDisconnected = session.PeerDisconnected
	// PeerResumed: a peer came back on a new connection (host), or this
	// client resumed its peer (also the first admission of a client given
	// a kept ClientConfig.Ticket).
	PeerResumed = session.PeerResumed
)
