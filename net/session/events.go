package session

import (
	"fmt"

	"github.com/tandem-go/tandem/ecs"
)

// EventKind says what happened to a peer or to the session.
type EventKind uint8

const (
	// PeerJoined: a peer was admitted (host), or this client was (client).
	PeerJoined EventKind = iota + 1
	// PeerReady: a peer's join finished: it holds the world (host and
	// client). The host tells it once a peer; a client also after each
	// resume, once the world is joined again.
	PeerReady
	// PeerLeft: a peer left or was dropped; Err says why.
	PeerLeft
	// PeerRejected: a connection was refused at the handshake, told when
	// the host sends its refusal (the connection lingers a moment after,
	// for the client to read it), or one ended before its handshake did;
	// Err says why.
	// On a client: a resume was refused (the client joins afresh).
	PeerRejected
	// PeerDisconnected: a peer's connection broke; Err says why. On the host
	// the peer is kept for the grace window (its id, its entities, neutral
	// input) and may resume; on a client the session reconnects by itself
	// (with Peer 0 and no PeerJoined before it when the connection broke
	// before the host's Welcome: the client dials again to join).
	// Every PeerResumed on the host follows one: when the client resumed
	// before the host saw the break, it comes right before the PeerResumed,
	// with ErrResumedElsewhere.
	PeerDisconnected
	// PeerResumed: a peer whose connection broke is bound to a new one
	// (host), or this client resumed its peer (client). Frame is the
	// resume's frame; the world is joined again after it.
	PeerResumed
)

// String returns the kind's name.
func (k EventKind) String() string {
	switch k {
	case PeerJoined:
		return "joined"
	case PeerReady:
		return "ready"
	case PeerLeft:
		return "left"
	case PeerRejected:
		return "rejected"
	case PeerDisconnected:
		return "disconnected"
	case PeerResumed:
		return "resumed"
	}
	return fmt.Sprintf("event(%d)", uint8(k))
}

// Event is something that happened to a peer, delivered on the simulation
// goroutine (for the peers Host.Dismiss lets go, on the goroutine calling
// it).
type Event struct {
	Kind EventKind
	Peer ecs.PeerID
	Name string
	// Err says why a peer left, was rejected or disconnected: a
	// *transport.CloseError for a closed connection, ErrGraceExpired for a
	// peer that did not resume in time, ErrHostShutDown for one the host
	// let go as it shut down (Dismiss), nil for an orderly leave.
	Err error
	// Frame is, for PeerResumed, the resume's frame: the host takes the
	// peer's inputs for the frames after it only.
	Frame ecs.Frame
}

// String describes the event for logs: "peer 3 (ann) joined", or for a
// connection never admitted (no peer id) "a connection (ann) rejected:
// ...".
func (e Event) String() string {
	who := fmt.Sprintf("peer %d (%s)", e.Peer, e.Name)
	switch {
	case e.Peer == 0 && e.Name == "":
		who = "a connection"
	case e.Peer == 0:
		who = fmt.Sprintf("a connection (%s)", e.Name)
	}
	if e.Err != nil {
		return fmt.Sprintf("%s %s: %v", who, e.Kind, e.Err)
	}
	return fmt.Sprintf("%s %s", who, e.Kind)
}
