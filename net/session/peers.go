package session

import (
	"crypto/sha256"
	"errors"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
)

// What the layer above asks of the host's peers: to send them lane
// messages of its own (receipts), who joined to watch, and what it keeps of
// their session tokens.

// ErrNoPeer: no admitted peer has that id.
var ErrNoPeer = errors.New("session: no admitted peer has that id")

// peer returns admitted peer id's connection, or nil.
func (h *Host) peer(id ecs.PeerID) *hostPeer {
	for _, p := range h.peers {
		if p.id == id && p.admitted() && !p.c.Closed() {
			return p
		}
	}
	return nil
}

// Send sends msg, a lane message (its first byte a lane kind), reliably on
// lane to admitted peer id: ErrNoPeer if there is none, else what
// conn.Conn.SendLane says.
func (h *Host) Send(id ecs.PeerID, lane transport.Lane, msg []byte) error {
	p := h.peer(id)
	if p == nil {
		return ErrNoPeer
	}
	return p.c.SendLane(lane, msg)
}

// Buffered returns the bytes sent on lane to admitted peer id that its
// transport has not yet passed on (0 if there is no such peer).
func (h *Host) Buffered(id ecs.PeerID, lane transport.Lane) int {
	if p := h.peer(id); p != nil {
		return p.c.LaneBuffered(lane)
	}
	return 0
}

// Unsettled returns the bytes sent on lane to admitted peer id that may
// not have reached it yet (conn.Conn.LaneUnsettled; 0 if there is no such
// peer): a close that must not lose them waits for it to fall to 0.
func (h *Host) Unsettled(id ecs.PeerID, lane transport.Lane) int {
	if p := h.peer(id); p != nil {
		return p.c.LaneUnsettled(lane)
	}
	return 0
}

// Spectator reports whether peer id watches: a connection that holds the id
// (admitted, or about to be: OnJoin may ask) asked to in its Hello, or the
// known peer it names, away or restored, did.
func (h *Host) Spectator(id ecs.PeerID) bool {
	for _, p := range h.peers {
		if p.id == id && (p.admitted() || p.stage == stageWelcomed) && !p.c.Closed() {
			return p.spectator
		}
	}
	k := h.known(id)
	return k != nil && k.Spectator
}

// TokenHash returns the SHA-256 of peer id's session token: a known peer's
// (admitted, or away within its window), or that of the connection about to
// be admitted as id (OnJoin may ask). It is what a host keeps of a token (in
// a save, say), never the token itself.
func (h *Host) TokenHash(id ecs.PeerID) ([sha256.Size]byte, bool) {
	if k := h.known(id); k != nil {
		return k.TokenHash, true
	}
	for _, p := range h.peers {
		if p.id == id && p.stage == stageWelcomed && !p.c.Closed() {
			return sha256.Sum256(p.token[:]), true
		}
	}
	return [sha256.Size]byte{}, false
}

// PrevTokenHash returns known peer id's KnownPeer.PrevHash: the SHA-256 of
// the token before the one a kept ticket's Resumed gave, while it is still
// good (zero otherwise, and false for a peer the host does not know). A
// host that saves its peers keeps it beside TokenHash until it is zero.
func (h *Host) PrevTokenHash(id ecs.PeerID) ([sha256.Size]byte, bool) {
	if k := h.known(id); k != nil {
		return k.PrevHash, true
	}
	return [sha256.Size]byte{}, false
}

// Connections returns how many connections the host holds: admitted peers,
// handshakes under way, refusals lingering, and those accepted and not yet
// taken by the simulation.
func (h *Host) Connections() int {
	n := len(h.incoming)
	for _, p := range h.peers {
		if !p.c.Closed() {
			n++
		}
	}
	return n
}
