package session

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// Resume, the host's side. A peer whose connection breaks after its join
// finished is parked: its replication ends (a resume joins it again), but
// its known-peer record keeps its peer id, its slot and its entities for
// HostConfig.Grace. A Resume on a new connection that names the peer id with
// the right token binds the peer to that connection (closing one the host
// still held for it), and the join of the world starts over, which the
// client applies to the world it holds (a new process with a kept ticket,
// wire.ResumeKeptTicket, holds none of it: the join brings all). The window
// running out makes the peer leave as any peer does.

// ErrGraceExpired is the Err of the PeerLeft of a peer whose connection broke
// and that did not resume within the host's grace window.
var ErrGraceExpired = errors.New("session: the peer's connection broke and it did not resume within the grace window")

// ErrResumedElsewhere is the Err of the PeerDisconnected of a peer that
// resumed on a new connection while the host still held its old one (the
// client noticed the break first): the event comes right before its
// PeerResumed, so that every resume follows a PeerDisconnected.
var ErrResumedElsewhere = errors.New("session: the peer's connection broke and it resumed on a new one before the host noticed")

// resumable reports whether a connection that ended with err may be resumed:
// it broke (the peer stopped answering, the transport failed, a reset),
// rather than being ended on purpose by either side (a leave, a kick, a
// shutdown) or for breaking the rules (malformed, a limit). A client also
// resumes after hostRestarting.
func resumable(err error) bool {
	switch {
	case errors.Is(err, conn.ErrLimit), errors.Is(err, conn.ErrProtocol), errors.Is(err, transport.ErrMalformed):
		return false
	case errors.Is(err, conn.ErrUnresponsive):
		return true
	}
	var ce *transport.CloseError
	if errors.As(err, &ce) {
		return ce.Code == transport.CloseTimeout
	}
	return err != nil // the path broke: a reset, a socket error
}

// hostShutdown reports whether err is the host's closing the connection
// because it shuts down (CloseHostShutdown).
func hostShutdown(err error) bool {
	var ce *transport.CloseError
	return errors.As(err, &ce) && ce.Remote && ce.Code == transport.CloseHostShutdown
}

// busyReason begins the reason of the host's closing a connection in its
// handshake as one too many (CloseLimit): a crowd arriving at once, which
// the client answers by dialing again. A limit an admitted peer broke is
// CloseLimit too, with another reason: that one ends the session.
const busyReason = "host busy: "

// hostBusy reports whether err is the host's closing the connection as one
// handshake too many (busyReason).
func hostBusy(err error) bool {
	var ce *transport.CloseError
	return errors.As(err, &ce) && ce.Remote && ce.Code == transport.CloseLimit && strings.HasPrefix(ce.Reason, busyReason)
}

// hostRestarting reports whether err is the host's closing the connection
// to start again from its save (CloseHostRestarting): its client comes back
// as after a break.
func hostRestarting(err error) bool {
	var ce *transport.CloseError
	return errors.As(err, &ce) && ce.Remote && ce.Code == transport.CloseHostRestarting
}

// holdsWorld reports whether the peer on connection p holds the whole world:
// its join finished, or it is a resumed peer being joined again (it held the
// whole world before, and the join brings all of it again).
func (p *hostPeer) holdsWorld() bool {
	return p.rp != nil && (!p.rp.Joining() || p.resumed)
}

// park keeps the known peer of p, whose connection broke with err, for the
// grace window. It reports whether it did: not if the host resumes no one,
// or the peer's first join had not finished, or err says the connection was
// ended on purpose.
func (h *Host) park(p *hostPeer, err error) bool {
	k := p.kp
	if k == nil || !h.keeps(p, err) {
		return false
	}
	h.repl.ParkPeer(p.id)
	k.conn = nil
	k.until = h.cfg.Clock.Now().Add(h.cfg.Grace)
	h.stats.Disconnected++
	h.emit(Event{Kind: PeerDisconnected, Peer: p.id, Name: p.name, Err: err})
	return true
}

// keeps reports whether the host keeps the peer of connection p, which
// ended with err, for a resume: it resumes peers at all (Grace), the peer
// held the world, and err is a broken link, not an end on purpose.
func (h *Host) keeps(p *hostPeer, err error) bool {
	return h.cfg.Grace > 0 && p.holdsWorld() && resumable(err)
}

// expire makes the away peers whose window ran out by now leave.
func (h *Host) expire(now time.Time) {
	for i := 0; i < len(h.knownPeers); i++ {
		k := h.knownPeers[i]
		if !k.away() || !now.After(k.until) {
			continue
		}
		h.forgetKnown(k)
		i--
		h.stats.Expired++
		h.gone(k.Peer, k.Name, ErrGraceExpired)
	}
}

// resume answers a Resume on the new connection p: Resumed, or Reject. A
// Resume taken from the line (fromLine) was in line before any other
// waiting now; another waits behind those in line, as a WelcomeAck waits
// behind the admitQueue.
func (h *Host) resume(p *hostPeer, m wire.Resume, fromLine bool) {
	now := h.cfg.Clock.Now()
	cfg := &h.cfg
	if m.Version != wire.Version {
		h.reject(p, wire.RejectVersion, transport.CloseVersion,
			fmt.Sprintf("host speaks protocol %d, client %d; update the older side", wire.Version, m.Version))
		return
	}
	if cfg.Schema != 0 && m.Schema != cfg.Schema {
		// A host restarted on another build: the peer cannot come back.
		h.reject(p, wire.RejectSchema, transport.CloseVersion, h.schemaReason(m.Schema))
		return
	}
	if cfg.Grace <= 0 {
		h.stats.ResumeRefused++
		h.reject(p, wire.RejectResume, transport.CloseNormal, "this host keeps no one for a resume (no grace window); join afresh")
		return
	}
	// One hash and one constant-time comparison, whatever the peer id names,
	// before any limit is spent: a Resume without the token costs the host
	// that hash (its connection's handshake, limited per address, cost
	// more), so a stranger's Resumes cannot use up the resumes the host
	// allows a second and lock real players out.
	sum := sha256.Sum256(m.Token[:])
	k := h.known(ecsPeer(m.PeerID))
	kept := m.Flags&wire.ResumeKeptTicket != 0
	taken := (&knownPeer{KnownPeer: KnownPeer{TokenHash: h.noHash}}).takes(sum, kept) // the same work for a stranger
	if k != nil {
		taken = k.takes(sum, kept)
	}
	if !taken || k == nil {
		h.stats.ResumeRefused++
		h.reject(p, wire.RejectResume, transport.CloseNormal,
			"no session to resume: it ended (its grace window ran out, or the peer left) or the token is not its; join afresh")
		return
	}
	if m.Flags&(wire.ResumeHoldsWorld|wire.ResumeKeptTicket) == 0 || (k.conn != nil && !k.conn.holdsWorld()) {
		// It held part of a world at most, and is not a kept ticket of a
		// peer that finished its join (a parked peer had: a peer is kept
		// only then): it joins afresh, and the peer it was is over.
		h.stats.ResumeRefused++
		h.end(k, "the peer joins afresh: its join had not finished")
		h.reject(p, wire.RejectResume, transport.CloseNormal, "the join had not finished when the connection broke; join afresh")
		return
	}
	if old := k.conn; old != nil && old.c.Closed() && !h.keeps(old, old.cause()) {
		// The host closed the old connection for what the peer did (a
		// kick, a broken rule or limit, a join too slow) and has not
		// reaped it yet: the reap ends the peer, as it would have had
		// this Resume come a step later.
		h.stats.ResumeRefused++
		why := "the host ended it"
		if old.ended == nil {
			why = "its connection ended" // closed by the peer, on purpose
		}
		h.reject(p, wire.RejectResume, transport.CloseNormal, "no session to resume: "+why+" ("+old.cause().Error()+"); join afresh")
		return
	}
	if h.heldFrom(p.addr)-k.from(p.addr) >= cfg.MaxPeersPerAddress {
		h.reject(p, wire.RejectFull, transport.CloseNormal,
			fmt.Sprintf("host full for your address (%d players from one address); try again later, or have the host allow more (HostConfig.MaxPeersPerAddress; -per-address with package launch)", cfg.MaxPeersPerAddress))
		return
	}
	// The two bounds are looked at first and spent only on a resume that
	// is taken: one refused spends neither, so a player resending Resumes
	// with its own token, past its own bound, cannot use up the host's and
	// keep the others from coming back.
	peerRate, hostRate := float64(cfg.MaxResumesPerPeer), float64(cfg.MaxResumesPerSecond)
	if !k.resumes.has(now, peerRate, peerRate/60) {
		h.stats.ResumeLimited++
		h.reject(p, wire.RejectFull, transport.CloseNormal, "this peer resumed too often; try again in a few seconds")
		return
	}
	if !h.resumeRate.has(now, hostRate, hostRate) {
		h.stats.ResumeLimited++
		h.reject(p, wire.RejectFull, transport.CloseNormal, "host busy: too many resumes at once; try again")
		return
	}
	if limit := cfg.AdmitPerStep; limit > 0 && (h.admissions >= limit || !fromLine && h.inLine() > 0) {
		// A resume rejoins its peer as an admission joins one: past the
		// step's admissions, or behind others in line, it waits its turn,
		// answered at a later step (the crowd of a restart is taken back a
		// few a step, each at its first try, in the order it came, not all
		// in one long step), or refused when more wait than the host has
		// places. A peer has one place in line: its newest connection's.
		h.leaveLine(m.PeerID, p)
		if h.resumesWaiting() >= cfg.MaxPeers+max(cfg.MaxSpectators, 0) {
			h.stats.ResumeLimited++
			h.reject(p, wire.RejectFull, transport.CloseNormal, "host busy: more are coming back than it has places; try again")
			return
		}
		p.heldResume, p.inLine = &m, true
		return
	}
	h.leaveLine(m.PeerID, p)
	if cfg.Admit != nil {
		if err := cfg.Admit(Arrival{Name: k.Name, Addr: p.c.Transport().RemoteAddr(), Resume: true, Peer: k.Peer, Spectator: k.Spectator}); err != nil {
			h.reject(p, wire.RejectDenied, transport.CloseNormal, err.Error())
			return
		}
	}
	k.resumes.take(now, peerRate, peerRate/60)
	h.resumeRate.take(now, hostRate, hostRate)
	h.admissions++
	if old := k.conn; old != nil {
		// The host still held the old connection: it is over, and its
		// in-flight datagrams are reported lost before the peer moves. The
		// break is told as if the host had seen it first.
		old.c.Close(transport.CloseReplaced, "the peer resumed on a newer connection")
		old.stage = stageReplaced
		old.kp = nil
		h.repl.ParkPeer(k.Peer)
		k.conn = nil
		h.stats.Disconnected++
		h.emit(Event{Kind: PeerDisconnected, Peer: k.Peer, Name: k.Name, Err: ErrResumedElsewhere})
		if h.known(k.Peer) != k {
			// An observer of the break ended the peer (a kick): it is
			// over, and this connection joins afresh if it wants in.
			h.stats.ResumeRefused++
			h.reject(p, wire.RejectResume, transport.CloseNormal, "no session to resume: the peer was ended when its connection broke; join afresh")
			return
		}
	}
	token := m.Token
	if !kept {
		// It says the newest token (only that one takes a Resume without
		// the flag): an old one is over.
		k.PrevHash = [sha256.Size]byte{}
	}
	if kept {
		// A new token: the process the player left behind holds the old
		// one, and must not take the place back from this one (it joins
		// afresh when it tries). The old one stays good for a kept
		// ticket's Resume until the client acknowledges the new one
		// (hostPeer.tookToken).
		k.PrevHash = sum
		rand.Read(token[:])
		k.TokenHash = sha256.Sum256(token[:])
	}
	k.conn, k.addr = p, p.addr
	p.kp, p.id, p.name, p.spectator = k, k.Peer, k.Name, k.Spectator
	p.stage = stageAdmitted
	p.resumed = true
	p.c.Admit()
	p.rp = h.repl.AddPeer(p.id, p)
	p.joinStart = now
	h.stats.Resumed++
	f := h.w.Frame()
	tick, send := h.rates()
	p.c.SendLane(transport.LaneControl, wire.Resumed{PeerID: uint32(p.id), TickRate: tick, SendRate: send, Frame: uint64(f), GraceMillis: h.graceMillis(), Token: token, Runs: h.lineage()}.Encode(nil))
	clear(token[:])
	h.emit(Event{Kind: PeerResumed, Peer: p.id, Name: p.name, Frame: f})
}

// tokenOf reports whether Resume m carries the token of the known peer it
// names (one hash and a constant-time comparison, as resume makes).
func (h *Host) tokenOf(m wire.Resume) bool {
	k := h.known(ecsPeer(m.PeerID))
	if k == nil {
		return false
	}
	sum := sha256.Sum256(m.Token[:])
	return k.takes(sum, m.Flags&wire.ResumeKeptTicket != 0)
}

// takes reports whether a Resume whose token hashes to sum (a kept
// ticket's: kept) carries the peer's token, in constant time: the one
// the host gave last, or, for a kept ticket, the one before until the
// client acknowledged the new one (PrevHash).
func (k *knownPeer) takes(sum [32]byte, kept bool) bool {
	cur := subtle.ConstantTimeCompare(sum[:], k.TokenHash[:])
	old := subtle.ConstantTimeCompare(sum[:], k.PrevHash[:])
	if !kept || !k.prevGood() {
		old = 0
	}
	return cur|old == 1
}

// liveConnection reports whether known peer id is bound to a connection the
// host has not closed.
func (h *Host) liveConnection(id ecs.PeerID) bool {
	k := h.known(id)
	return k != nil && k.conn != nil && !k.conn.c.Closed()
}

// from counts the places k holds from addr (0 or 1): its own, which a
// resume from addr takes again.
func (k *knownPeer) from(addr string) int {
	if k.addr == addr {
		return 1
	}
	return 0
}

// end ends known peer k now: its connection, if any, closes and it leaves
// when reaped; an away peer leaves at once.
func (h *Host) end(k *knownPeer, reason string) {
	h.forgetKnown(k)
	if k.conn != nil {
		k.conn.kp = nil
		k.conn.c.Close(transport.CloseReplaced, reason)
		return
	}
	h.gone(k.Peer, k.Name, errors.New("session: "+reason))
}

// graceMillis is the grace window as Welcome and Resumed carry it.
func (h *Host) graceMillis() uint32 {
	if h.cfg.Grace <= 0 {
		return 0
	}
	return uint32(min(h.cfg.Grace/time.Millisecond, 1<<32-1))
}

// inLine counts the open connections whose Resume waits its turn
// (AdmitPerStep).
func (h *Host) inLine() int {
	n := 0
	for _, q := range h.peers {
		if q.inLine && !q.c.Closed() {
			n++
		}
	}
	return n
}

// leaveLine closes every connection but keep whose Resume for peer waits
// in line: the peer came back on a newer one, which takes its place (a
// client that gave up on an answer dialed again), so an older one can
// never be answered after it and take the peer from it.
func (h *Host) leaveLine(peer uint32, keep *hostPeer) {
	for _, q := range h.peers {
		if q != keep && q.inLine && !q.c.Closed() && q.heldResume.PeerID == peer {
			q.heldResume, q.inLine = nil, false
			q.c.Close(transport.CloseNormal, "a newer connection of this peer resumes in its place")
		}
	}
}

// resumesWaiting counts the connections whose Resume waits its turn
// (AdmitPerStep) or its step (taken between steps).
func (h *Host) resumesWaiting() int {
	n := 0
	for _, p := range h.peers {
		if p.heldResume != nil && !p.c.Closed() {
			n++
		}
	}
	return n
}
