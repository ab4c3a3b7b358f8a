package session

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// KnownPeer is a peer's identity as the host keeps it across connections:
// its peer id, name, and the SHA-256 of its session token, never the token
// itself. A save stores the host's known peers (Host.KnownPeers) beside the
// world, so that a host restoring it can let those players resume into it
// (Host.RestorePeers) with the tokens their clients kept.
type KnownPeer struct {
	Peer ecs.PeerID
	Name string
	// TokenHash is the SHA-256 of the peer's session token: what a Resume's
	// token is checked against.
	TokenHash [sha256.Size]byte
	// Spectator: the peer watches (its Hello asked to). It holds a
	// spectator's place (HostConfig.MaxSpectators), not a player slot.
	Spectator bool
	// PrevHash, if not zero, is the SHA-256 of the token a kept ticket's
	// Resume took the peer back with, before the new one (TokenHash) its
	// Resumed gave: still good for a kept ticket's Resume until the client
	// acknowledges the new one, so a new process whose Resumed never came
	// (its connection broke, or the host stopped and was restored from a
	// save) takes the place still. Keep it in a save beside TokenHash.
	PrevHash [sha256.Size]byte
}

// prevGood reports whether the peer's PrevHash is still good.
func (k *KnownPeer) prevGood() bool { return k.PrevHash != [sha256.Size]byte{} }

// knownPeer is a peer the host holds a slot for across its connections:
// admitted once and not gone. While it is away (its connection broke, or it
// was restored from a save) its peer id stays reserved until its window
// runs out.
type knownPeer struct {
	KnownPeer
	conn    *hostPeer // its connection; nil while away
	addr    string    // its last connection's address (per-address limits); "" for one restored from a save
	until   time.Time // away: when its window runs out
	resumes bucket    // resumes accepted (MaxResumesPerPeer a minute)
}

// away reports whether the peer has no connection.
func (k *knownPeer) away() bool { return k.conn == nil }

// bucket is a token bucket on the host's clock: capacity tokens, refilled
// at rate a second. It starts full.
type bucket struct {
	tokens float64
	at     time.Time
	init   bool
}

// take takes one token at now, reporting whether there was one.
func (b *bucket) take(now time.Time, capacity, rate float64) bool {
	if !b.has(now, capacity, rate) {
		return false
	}
	b.tokens--
	return true
}

// has reports whether a token is there at now, taking none.
func (b *bucket) has(now time.Time, capacity, rate float64) bool {
	if !b.init {
		b.tokens, b.at, b.init = capacity, now, true
	}
	if d := now.Sub(b.at); d > 0 {
		b.tokens = min(capacity, b.tokens+d.Seconds()*rate)
	}
	b.at = now
	return b.tokens >= 1
}

// known returns the known peer id, or nil.
func (h *Host) known(id ecs.PeerID) *knownPeer {
	for _, k := range h.knownPeers {
		if k.Peer == id {
			return k
		}
	}
	return nil
}

// forgetKnown drops k from the known peers. Its peer id is free once no
// connection holds it either.
func (h *Host) forgetKnown(k *knownPeer) {
	h.repl.DropParked(k.Peer)
	for i, x := range h.knownPeers {
		if x == k {
			h.knownPeers = append(h.knownPeers[:i], h.knownPeers[i+1:]...)
			break
		}
	}
	h.ids.release(k.Peer, h.holds, h.cfg.Clock.Now())
}

// KnownPeers appends to dst every peer the host knows, connected or away
// within its window, in the order they were admitted, and returns the
// extended slice: what a save keeps so that these players can resume into
// the world restored from it (RestorePeers). Call it on the simulation
// goroutine.
func (h *Host) KnownPeers(dst []KnownPeer) []KnownPeer {
	for _, k := range h.knownPeers {
		dst = append(dst, k.KnownPeer)
	}
	return dst
}

// Away returns the peers whose connection broke and whose window has not run
// out yet, in the order they were admitted. The slice is new. Call it on the
// simulation goroutine.
func (h *Host) Away() []ecs.PeerID { return h.AppendAway(nil) }

// AppendAway appends the ids Away returns to dst and returns the extended
// slice: Away without allocating, for a caller that keeps its buffer.
func (h *Host) AppendAway(dst []ecs.PeerID) []ecs.PeerID {
	for _, k := range h.knownPeers {
		if k.away() {
			dst = append(dst, k.Peer)
		}
	}
	return dst
}

// ErrPeerTaken: RestorePeers was given a peer id the host holds already
// (a connected or away peer, or one given twice).
var ErrPeerTaken = errors.New("session: the peer id is held already; restore known peers into a host before it admits anyone")

// RestorePeers reserves peers, the known peers of a saved world the host
// restored (KnownPeers of the host that saved it), as away: each peer id is
// held and counts against MaxPeers (a spectator against MaxSpectators), and its player may resume with the token
// its client kept, for window from now (HostConfig.Grace if window is 0).
// The resumed peer is joined to the world as the host holds it. Past the
// window the peer leaves as any away peer does: PeerLeft with
// ErrGraceExpired, OnLeave, its owned entities removed (or kept, with
// KeepEntities or Keep). The world's entities owned by a restored peer are the
// caller's to restore. A peer id held already, 0, or given twice refuses
// the whole call (ErrPeerTaken); a name that breaks wire.CheckName too. Call
// it on the simulation goroutine.
func (h *Host) RestorePeers(peers []KnownPeer, window time.Duration) error {
	if window <= 0 {
		window = h.cfg.Grace
	}
	if window <= 0 {
		return errors.New("session: the host resumes no peers (HostConfig.Grace is negative): give RestorePeers a window")
	}
	for i, p := range peers {
		if p.Peer == ecs.HostPeer || h.known(p.Peer) != nil || h.connected(p.Peer) {
			return fmt.Errorf("%w: peer %d", ErrPeerTaken, p.Peer)
		}
		for _, q := range peers[:i] {
			if q.Peer == p.Peer {
				return fmt.Errorf("%w: peer %d is given twice", ErrPeerTaken, p.Peer)
			}
		}
		if err := wire.CheckName(p.Name); err != nil {
			return fmt.Errorf("session: restoring peer %d: %w", p.Peer, err)
		}
	}
	until := h.cfg.Clock.Now().Add(window)
	for _, p := range peers {
		h.knownPeers = append(h.knownPeers, &knownPeer{KnownPeer: p, until: until})
		h.ids.claim(p.Peer)
	}
	return nil
}

// connected reports whether an open connection holds peer id (admitted, or
// offered it in a Welcome).
func (h *Host) connected(id ecs.PeerID) bool {
	for _, p := range h.peers {
		if p.id == id && !p.c.Closed() {
			return true
		}
	}
	return false
}
