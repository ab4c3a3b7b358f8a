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

// Admission. A connection the host takes is pending until it finishes its
// handshake: Hello (answered by Welcome, which offers a peer id and a token)
// and WelcomeAck (which takes them). Only then is it admitted: it gets a
// player slot, the game's OnJoin, the raised limits of its transport
// (conn.Conn.Admit) and the join. A pending connection holds nothing else:
// it is closed when its handshake is overdue (HostConfig.HandshakeTimeout),
// and to make room for a newer one (MaxPending, MaxPendingPerAddress; the
// oldest silent one goes first, then refused ones, then those welcomed), so
// silent connections can neither fill the host's slots nor keep a real
// player out. A refused connection gets a Reject and stays open
// for rejectLinger, so the Reject reaches the client before the close.

// rejectLinger is how long a rejected connection stays open for its Reject
// to arrive; the client closes it as soon as it has read it.
const rejectLinger = 2 * time.Second

// stage is where a connection is in its handshake.
type stage uint8

const (
	stageHello    stage = iota // waiting for Hello
	stageWelcomed              // Welcome sent, waiting for WelcomeAck
	stageAdmitted              // admitted: a peer
	stageRejected              // Reject sent, waiting for the client to close
	stageReplaced              // its peer resumed on another connection
)

// take makes a pending peer of a new connection, closing the oldest pending
// ones past MaxPendingPerAddress and MaxPending to make room.
func (h *Host) take(tc transport.Conn, now time.Time) {
	h.stats.Accepted++
	addr := transport.AddressKey(tc.RemoteAddr())
	if oldest := h.oldestPending(addr); oldest != nil && h.pending(addr) >= h.cfg.MaxPendingPerAddress {
		h.evict(oldest, busyReason+"too many connections from your address are handshaking; try again")
	}
	if oldest := h.oldestPending(""); oldest != nil && h.pending("") >= h.cfg.MaxPending {
		h.evict(oldest, busyReason+"too many connections are handshaking; try again")
	}
	p := &hostPeer{h: h, since: now, addr: addr}
	c, err := conn.New(tc, h.cfg.Clock, p, h.cfg.Conn)
	if err != nil {
		tc.Close(transport.CloseProtocol, "host misconfigured")
		return
	}
	p.c = c
	h.peers = append(h.peers, p)
}

// evict closes a pending connection to make room for a newer one.
func (h *Host) evict(p *hostPeer, reason string) {
	h.stats.Evicted++
	p.c.Close(transport.CloseLimit, reason)
}

// pending counts the open connections from addr ("" for any) whose
// handshake has not finished (rejected ones lingering included; those
// whose WelcomeAck or Resume waits its turn have finished theirs).
func (h *Host) pending(addr string) int {
	n := 0
	for _, p := range h.peers {
		if !p.admitted() && !p.acked && !p.inLine && !p.c.Closed() && (addr == "" || p.addr == addr) {
			n++
		}
	}
	return n
}

// oldestPending returns the pending connection from addr ("" for any) to
// evict first, or nil: the oldest that has not said Hello, else the oldest
// refused one, else the oldest welcomed one. A connection that has spoken is
// kept over silent ones, so a flood of silent connections cannot push out a
// client whose handshake is under way, however slow; one whose WelcomeAck
// or Resume waits its turn (AdmitPerStep) is not pending.
func (h *Host) oldestPending(addr string) *hostPeer {
	var rejected, welcomed *hostPeer
	for _, p := range h.peers { // in the order the host took them
		if p.admitted() || p.acked || p.inLine || p.c.Closed() || (addr != "" && p.addr != addr) {
			continue
		}
		switch {
		case p.stage == stageHello && p.heldResume == nil:
			return p
		case p.stage == stageRejected:
			if rejected == nil {
				rejected = p
			}
		case p.stage == stageWelcomed, p.stage == stageHello:
			// Welcomed, or its Resume held for the step (Handshake): it has
			// spoken.
			if welcomed == nil {
				welcomed = p
			}
		}
	}
	if rejected != nil {
		return rejected
	}
	return welcomed
}

// heldFrom counts the places held from addr: the known peers, connected or
// away within their window, whose last connection came from it. An away
// peer holds its place, so one address cannot park peers and join again
// past MaxPeersPerAddress.
func (h *Host) heldFrom(addr string) int {
	n := 0
	for _, k := range h.knownPeers {
		if k.addr == addr {
			n++
		}
	}
	return n
}

// holding counts the known peers, connected or away, that watch (spectator
// set) or play: the places they hold.
func (h *Host) holding(spectator bool) int {
	n := 0
	for _, k := range h.knownPeers {
		if k.Spectator == spectator {
			n++
		}
	}
	return n
}

// full returns why a new peer from addr, a spectator or a player, cannot be
// admitted now, and the Reject code that says so, or "". The places of away
// peers are held for them; spectators take no player slot.
func (h *Host) full(addr string, spectator bool) (wire.RejectCode, string) {
	switch {
	case spectator && h.cfg.MaxSpectators <= 0:
		return wire.RejectDenied, "this host takes no spectators; join as a player"
	case spectator && h.holding(true) >= h.cfg.MaxSpectators:
		return wire.RejectFull, fmt.Sprintf("no room to watch (spectator places: %d, all taken); try again later", h.cfg.MaxSpectators)
	case !spectator && h.holding(false) >= h.cfg.MaxPeers:
		return wire.RejectFull, fmt.Sprintf("host full (%s); try again later", count(h.cfg.MaxPeers, "player", "players"))
	case h.heldFrom(addr) >= h.cfg.MaxPeersPerAddress:
		return wire.RejectFull, fmt.Sprintf("host full for your address (%s from one address); try again later, or have the host allow more (HostConfig.MaxPeersPerAddress; -per-address with package launch)", count(h.cfg.MaxPeersPerAddress, "peer", "peers"))
	}
	return 0, ""
}

// holds reports whether peer id is held: by an open connection (admitted
// or offered it in a Welcome) or a known peer (away ones included).
func (h *Host) holds(id ecs.PeerID) bool { return h.connected(id) || h.known(id) != nil }

// rates returns the tick and send rates a Welcome or Resumed announces.
func (h *Host) rates() (tick, send uint16) {
	step := h.sched.StepDuration()
	tick = uint16(time.Second / step)
	send = uint16(max(1, int(tick)/max(1, h.repl.Config().SendEvery)))
	return tick, send
}

// ecsPeer returns the peer id a message's u32 names, 0 for one out of range.
func ecsPeer(id uint32) ecs.PeerID {
	if id > uint32(^ecs.PeerID(0)) {
		return 0
	}
	return ecs.PeerID(id)
}

// schemaReason is the reason of a RejectSchema for a client of schema got.
func (h *Host) schemaReason(got uint64) string {
	return fmt.Sprintf("the host runs another game, or another build of it (schema %016x, the client's %016x): their components, commands or input differ; run the host's version", h.cfg.Schema, got)
}

// hello answers a Hello: Welcome, or Reject.
func (h *Host) hello(p *hostPeer, hello wire.Hello) {
	switch {
	case hello.Version != wire.Version:
		h.reject(p, wire.RejectVersion, transport.CloseVersion,
			fmt.Sprintf("host speaks protocol %d, client %d; update the older side", wire.Version, hello.Version))
		return
	case h.cfg.Schema != 0 && hello.Schema != h.cfg.Schema:
		h.reject(p, wire.RejectSchema, transport.CloseVersion, h.schemaReason(hello.Schema))
		return
	}
	if err := wire.CheckName(hello.Name); err != nil {
		h.reject(p, wire.RejectName, transport.CloseNormal, strings.TrimPrefix(err.Error(), "wire: "))
		return
	}
	if code, why := h.full(p.addr, hello.Spectator); why != "" {
		h.reject(p, code, transport.CloseNormal, why)
		return
	}
	if !h.joinsLeft(p.addr, h.cfg.Clock.Now()) {
		h.refuseJoins(p)
		return
	}
	if h.cfg.Admit != nil {
		if err := h.cfg.Admit(Arrival{Name: hello.Name, Addr: p.c.Transport().RemoteAddr(), Spectator: hello.Spectator}); err != nil {
			h.reject(p, wire.RejectDenied, transport.CloseNormal, err.Error())
			return
		}
	}
	id := h.ids.take(h.holds, h.cfg.Clock.Now())
	if id == 0 {
		h.reject(p, wire.RejectFull, transport.CloseNormal, "host full: no peer id free; try again later")
		return
	}
	p.id = id
	p.name = hello.Name
	p.spectator = hello.Spectator
	rand.Read(p.token[:])
	tick, send := h.rates()
	p.stage = stageWelcomed
	p.c.SendLane(transport.LaneControl, wire.Welcome{PeerID: uint32(p.id), Token: p.token, TickRate: tick, SendRate: send, Frame: uint64(h.w.Frame()), GraceMillis: h.graceMillis(), Runs: h.lineage()}.Encode(nil))
}

// errAckMismatch is a peer's protocol error: its WelcomeAck does not answer
// the Welcome it was sent.
var errAckMismatch = errors.New("session: the WelcomeAck does not carry the Welcome's peer id and token")

// welcomeAck admits a peer that answered its Welcome, if there is still room.
func (h *Host) welcomeAck(p *hostPeer, ack wire.WelcomeAck) {
	if ack.PeerID != uint32(p.id) || subtle.ConstantTimeCompare(ack.Token[:], p.token[:]) != 1 {
		h.reject(p, wire.RejectProtocol, transport.CloseProtocol, errAckMismatch.Error())
		return
	}
	h.admitQueued() // those waiting first
	if limit := h.cfg.AdmitPerStep; limit > 0 && (h.admissions >= limit || len(h.admitQueue) > 0) {
		if len(h.admitQueue) >= h.cfg.MaxPeers+h.cfg.MaxSpectators {
			// More are waiting than the host has places: this one could
			// only be refused when its turn came.
			h.reject(p, wire.RejectFull, transport.CloseNormal, "host full: more are joining than it has places; try again later")
			return
		}
		p.acked = true
		h.admitQueue = append(h.admitQueue, p)
		return
	}
	h.admit(p)
}

// admitQueued admits the peers whose WelcomeAck waits its turn, oldest
// first, as many as AdmitPerStep leaves room for. One whose connection
// closed meanwhile is dropped from the queue. A peer admitted here between
// steps (Handshake) begins its join there.
func (h *Host) admitQueued() {
	q := h.admitQueue
	n := 0
	for ; n < len(q) && (h.cfg.AdmitPerStep <= 0 || h.admissions < h.cfg.AdmitPerStep); n++ {
		p := q[n]
		p.acked = false
		if !p.c.Closed() && p.stage == stageWelcomed {
			h.admit(p)
			p.topUp = p.admitted()
		}
	}
	// The rest wait on, those whose connection closed meanwhile dropped:
	// they hold no place in the queue.
	kept := q[:0]
	for _, p := range q[n:] {
		if !p.c.Closed() && p.stage == stageWelcomed {
			kept = append(kept, p)
		} else {
			p.acked = false
		}
	}
	clear(q[len(kept):])
	h.admitQueue = kept
}

// admit admits a peer that answered its Welcome, if there is still room.
func (h *Host) admit(p *hostPeer) {
	if code, why := h.full(p.addr, p.spectator); why != "" {
		h.reject(p, code, transport.CloseNormal, why)
		return
	}
	now := h.cfg.Clock.Now()
	if !h.joinsLeft(p.addr, now) {
		h.refuseJoins(p) // others from its address were let in meanwhile
		return
	}
	if h.cfg.OnJoin != nil {
		if err := h.cfg.OnJoin(p.id, p.name); err != nil {
			// Whatever the hook gave the peer goes with the refusal.
			h.removeOwned(p.id)
			h.reject(p, wire.RejectDenied, transport.CloseNormal, err.Error())
			return
		}
	}
	h.spendJoin(p.addr, now)
	p.stage = stageAdmitted
	p.c.Admit()
	h.stats.Admitted++
	h.admissions++
	p.kp = &knownPeer{KnownPeer: KnownPeer{Peer: p.id, Name: p.name, TokenHash: sha256.Sum256(p.token[:]), Spectator: p.spectator}, conn: p, addr: p.addr}
	clear(p.token[:]) // only its hash is kept
	h.knownPeers = append(h.knownPeers, p.kp)
	p.rp = h.repl.AddPeer(p.id, p)
	p.joinStart = h.cfg.Clock.Now()
	h.emit(Event{Kind: PeerJoined, Peer: p.id, Name: p.name})
	early := p.early
	p.early, p.earlyBytes = nil, 0
	for _, m := range early {
		if p.c.Closed() {
			break
		}
		p.LaneMessage(m.lane, m.msg)
	}
}

// reject sends a Reject and lets the connection linger until the client
// closes it or rejectLinger passes; then it closes with code.
func (h *Host) reject(p *hostPeer, code wire.RejectCode, close transport.CloseCode, reason string) {
	if len(reason) > wire.MaxReasonLen {
		reason = strings.ToValidUTF8(reason[:wire.MaxReasonLen], "")
	}
	msg, err := wire.Reject{Code: code, Version: wire.Version, Reason: reason}.Encode(nil)
	if err == nil {
		p.c.SendLane(transport.LaneControl, msg)
	}
	p.stage = stageRejected
	p.rejectedAt = h.cfg.Clock.Now()
	p.closeCode = close
	p.refusal = &RejectError{Code: code, Version: wire.Version, Reason: reason}
	h.refused(p, p.refusal)
}

// refused counts a connection refused at its handshake and tells the
// observers (PeerRejected): when the Reject is sent, or when a connection
// that was never admitted ends without one.
func (h *Host) refused(p *hostPeer, err error) {
	h.stats.Rejected++
	h.emit(Event{Kind: PeerRejected, Peer: p.id, Name: p.name, Err: err})
}

// count writes n and the noun that goes with it: "1 player", "2 players".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
