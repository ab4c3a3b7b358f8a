package session

import "errors"

// ErrHostShutDown is the Err of the PeerLeft (and OnLeave) of a peer the
// host let go as it shut down (Dismiss): its session ended with the host's.
var ErrHostShutDown = errors.New("session: the host shut down and ended the peer's session")

// Dismiss ends, for good, every peer the host knows, after Close: each
// connected peer (its connection closed already) and each away one leaves
// as a peer whose connection ended does — its owned entities removed (or
// given to the host, with KeepEntities), then PeerLeft and OnLeave with
// ErrHostShutDown — so that the world, saved afterwards, holds no one its
// host told it was shutting down, and a host restoring that save holds no
// slot for them. A host that closes for a restart (CloseRestarting) keeps
// its peers instead: they come back. Before Close it does nothing: a peer
// is dismissed only once told. It returns how many peers it let go. Call it
// on the simulation goroutine (or once the simulation has stopped).
func (h *Host) Dismiss() int {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if !closed {
		return 0
	}
	for _, p := range h.peers {
		if p.admitted() {
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
	return len(known)
}
