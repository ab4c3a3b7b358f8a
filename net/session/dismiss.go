package session

import "errors"

// ErrHostShutDown is the Err of the PeerLeft (and OnLeave) of a peer the
// host let go as it shut down (Dismiss): its session ended with the host's.
var ErrHostShutDown = errors.New("session: the host shut down and ended the peer's session")

// Dismiss ends, for good, every peer the host knows, after Close: each
// connected peer (its connection closed already) and each away one leaves
// as a peer whose connection ended does — its owned entities removed (or
// given to the host, with KeepEntities or Keep), then PeerLeft and OnLeave with
// ErrHostShutDown — so that the world, saved afterwards, holds no one its
// host told it was shutting down, and a host restoring that save holds no
// slot for them. A peer whose connection had ended on its own before Close
// (it left or was kicked, and no step saw it yet) leaves with that
// connection's reason, as a step would have let it go; one whose link broke
// is first parked as a step would (PeerDisconnected, with a grace window),
// then let go with ErrHostShutDown; one still in its handshake is rejected
// (PeerRejected). After
// CloseRestarting, and before Close, it does nothing: those peers come
// back, or were not told. It returns how many peers it let go (PeerLeft
// events). Call it on the simulation goroutine (or once the simulation has
// stopped); a second call finds no one.
func (h *Host) Dismiss() int {
	h.mu.Lock()
	ends := h.closed && !h.restarting
	h.mu.Unlock()
	if !ends {
		return 0
	}
	before := h.left
	for _, p := range h.peers {
		switch {
		case p.closedFirst:
			h.leave(p) // its own reason; an away one is dismissed below
		case p.admitted():
			h.repl.RemovePeer(p.id)
		}
	}
	clear(h.peers)
	h.peers = h.peers[:0]
	known := h.knownPeers
	h.knownPeers = nil
	for _, k := range known {
		h.gone(k.Peer, k.Name, ErrHostShutDown)
	}
	return h.left - before
}
