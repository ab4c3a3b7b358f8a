package session

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// errHelloTwice is a peer's protocol error: one handshake per connection.
var errHelloTwice = errors.New("session: second Hello or Resume on one connection; a connection gets one handshake")

// errUnexpected is a peer's protocol error: a message before the handshake,
// or one the host never accepts from a client.
var errUnexpected = errors.New("session: message not allowed at this point of the session")

// errNoTaker is a peer's protocol error: a message of a kind nothing on
// this side takes (an engine kind never sent this way, or the game's own
// with no hook to take it).
var errNoTaker = errors.New("session: a message of a kind nothing here takes")

// gameDatagram and gameLane report whether kind is one of the game's own
// datagram kinds (0x40–0x7f) or lane kinds (0xc0–0xff).
func gameDatagram(kind wire.Kind) bool {
	return kind >= wire.KindGameDatagram && kind < wire.KindHello
}

func gameLane(kind wire.Kind) bool { return kind >= wire.KindGameLane }

// forHooks reports whether a peer's datagram message of kind goes to the
// host's OnMessage: input and the game's own datagram kinds.
func forHooks(kind wire.Kind) bool { return kind == wire.KindInput || gameDatagram(kind) }

// forLaneHooks reports whether a peer's lane message of kind goes to the
// host's OnLaneMessage: commands and the game's own lane kinds.
func forLaneHooks(kind wire.Kind) bool { return kind == wire.KindCommand || gameLane(kind) }

// hostPeer is one connection on the host: handshake, then an admitted peer.
// It is the connection's handler and the replicator's Out.
type hostPeer struct {
	h         *Host
	c         *conn.Conn
	addr      string // what per-address limits count by
	stage     stage
	id        ecs.PeerID // offered in the Welcome, then the peer's
	token     [wire.TokenLen]byte
	name      string
	spectator bool // the Hello asked to watch
	ready     bool
	resumed   bool       // bound by a Resume: its join is the world joined again
	kp        *knownPeer // its known-peer record, once admitted
	rp        *replicate.HostPeer
	since     time.Time // when the host took the connection
	joinStart time.Time
	topUp     bool // Handshake queues more of its join's first pages as the lane drains
	acked     bool // its WelcomeAck waits its turn in the host's admitQueue

	// closedFirst: its connection had ended on its own when the host
	// closed; Dismiss lets it go with that connection's reason.
	closedFirst bool
	// heldResume is a Resume answered at the next step: one taken between
	// steps that names a peer whose connection is open (answered after
	// that one is read), still pending (HandshakeTimeout and MaxPending
	// hold it), or one past the step's admissions (AdmitPerStep), waiting
	// its turn (inLine).
	heldResume *wire.Resume
	// inLine: its Resume, with the peer's token, waits its turn. Like a
	// WelcomeAck in the admitQueue it has finished its handshake: neither
	// HandshakeTimeout nor MaxPending closes it. The host holds at most
	// MaxPeers+MaxSpectators such (resumesWaiting), one a peer (leaveLine),
	// each no longer than a client waits for its answer (answerTimeout).
	inLine bool
	// ended is the host's own reason for ending this admitted peer (a
	// kick, a join too slow), which wins over whatever the transport said
	// of the connection's end first (endFor).
	ended error

	// A rejected connection: when, and how it closes after the linger.
	rejectedAt time.Time
	closeCode  transport.CloseCode
	refusal    *RejectError

	// Lane messages that overtook the WelcomeAck on another lane, held for
	// the game until the peer is admitted.
	early      []earlyMessage
	earlyBytes int
}

// earlyMessage is a lane message held until its peer is admitted.
type earlyMessage struct {
	lane transport.Lane
	msg  []byte
}

// What a host holds of a welcomed peer's messages that overtake its
// WelcomeAck (its other lanes are separate streams); more is a protocol
// violation.
const (
	maxEarlyHeld      = 64
	maxEarlyHeldBytes = 64 << 10
)

// admitted reports whether the peer finished its handshake.
func (p *hostPeer) admitted() bool { return p.stage == stageAdmitted }

// Message implements conn.Handler.
func (p *hostPeer) Message(kind wire.Kind, payload []byte) {
	switch {
	case p.stage == stageRejected:
		p.h.stats.AfterReject++
		return
	case !p.admitted():
		p.c.ReportMalformed(errUnexpected)
		return
	}
	if !forHooks(kind) || p.h.cfg.OnMessage == nil {
		p.c.ReportMalformed(errNoTaker)
		return
	}
	p.h.cfg.OnMessage(p.id, kind, payload)
}

// LaneMessage implements conn.Handler.
func (p *hostPeer) LaneMessage(lane transport.Lane, msg []byte) {
	if p.stage == stageRejected {
		p.h.stats.AfterReject++ // the client is on its way out
		return
	}
	kind, err := wire.MessageKind(msg)
	if err != nil {
		p.c.ReportMalformed(err)
		return
	}
	switch {
	case (kind == wire.KindHello || kind == wire.KindResume) && p.heldResume != nil:
		p.c.Close(transport.CloseProtocol, errHelloTwice.Error())
		return
	case kind == wire.KindHello && p.stage == stageHello:
		var hello wire.Hello
		if err := hello.Decode(msg); err != nil || lane != transport.LaneControl {
			p.h.reject(p, wire.RejectProtocol, transport.CloseProtocol, "the first message must be a valid Hello or Resume on the control lane")
			return
		}
		p.h.hello(p, hello)
		return
	case kind == wire.KindResume && p.stage == stageHello:
		var m wire.Resume
		if err := m.Decode(msg); err != nil || lane != transport.LaneControl {
			p.h.reject(p, wire.RejectProtocol, transport.CloseProtocol, "the first message must be a valid Hello or Resume on the control lane")
			return
		}
		if p.h.between && p.h.liveConnection(ecsPeer(m.PeerID)) && p.h.tokenOf(m) {
			// Between steps, admitted connections are not read: one that
			// broke the rules is closed at the step, which polls it before
			// this one. The Resume is answered there.
			p.heldResume = &m
			return
		}
		p.h.resume(p, m, false)
		return
	case kind == wire.KindHello || kind == wire.KindResume:
		p.c.Close(transport.CloseProtocol, errHelloTwice.Error())
		return
	case kind == wire.KindWelcomeAck && p.stage == stageWelcomed && p.acked:
		p.c.Close(transport.CloseProtocol, "the Welcome was answered twice")
		return
	case kind == wire.KindWelcomeAck && p.stage == stageAdmitted && p.resumed:
		// A kept ticket's client took the new token its Resumed gave: the
		// old one is over.
		var ack wire.WelcomeAck
		if err := ack.Decode(msg); err != nil || lane != transport.LaneControl || !p.tookToken(ack) {
			p.c.Close(transport.CloseProtocol, "the answer to a Resumed must be a WelcomeAck of its peer and new token, on the control lane, once")
			return
		}
		p.kp.PrevHash = [sha256.Size]byte{}
		return
	case kind == wire.KindWelcomeAck && p.stage == stageWelcomed:
		var ack wire.WelcomeAck
		if err := ack.Decode(msg); err != nil || lane != transport.LaneControl {
			p.h.reject(p, wire.RejectProtocol, transport.CloseProtocol, "the answer to the Welcome must be a valid WelcomeAck on the control lane")
			return
		}
		p.h.welcomeAck(p, ack)
		return
	case p.stage == stageHello:
		p.c.Close(transport.CloseProtocol, "the first message must be Hello or Resume")
		return
	case p.stage == stageWelcomed && lane == transport.LaneControl && !p.acked:
		p.c.Close(transport.CloseProtocol, "the answer to the Welcome must be WelcomeAck")
		return
	case p.stage == stageWelcomed:
		// Sent after the WelcomeAck on another lane, it may overtake it;
		// or the WelcomeAck waits its turn (AdmitPerStep).
		if len(p.early) >= maxEarlyHeld || p.earlyBytes+len(msg) > maxEarlyHeldBytes {
			p.c.Close(transport.CloseProtocol, "too many messages before the host let the peer in")
			return
		}
		p.early = append(p.early, earlyMessage{lane, append([]byte(nil), msg...)})
		p.earlyBytes += len(msg)
		return
	}
	if !forLaneHooks(kind) || p.h.cfg.OnLaneMessage == nil {
		p.c.ReportMalformed(errNoTaker)
		return
	}
	p.h.cfg.OnLaneMessage(p.id, lane, msg)
}

// tookToken reports whether ack, on the connection of a peer a kept
// ticket resumed, names the peer and the token its Resumed gave, while the
// old one is still good (one answer a Resumed).
func (p *hostPeer) tookToken(ack wire.WelcomeAck) bool {
	k := p.kp
	if k == nil || !k.prevGood() || ack.PeerID != uint32(p.id) {
		return false
	}
	sum := sha256.Sum256(ack.Token[:])
	return subtle.ConstantTimeCompare(sum[:], k.TokenHash[:]) == 1
}

// Notice implements conn.Handler: each token is a replication record.
func (p *hostPeer) Notice(n conn.Notice) {
	if !p.admitted() {
		return
	}
	for _, t := range n.Tokens {
		if n.Delivered {
			p.h.repl.Delivered(p.id, uint32(t))
		} else {
			p.h.repl.Lost(p.id, uint32(t))
		}
	}
}

// QueueDatagram implements replicate.Out.
func (p *hostPeer) QueueDatagram(kind wire.Kind, payload []byte, token uint32) error {
	return p.c.Queue(kind, payload, conn.Token(token))
}

// SendLane implements replicate.Out.
func (p *hostPeer) SendLane(lane transport.Lane, msg []byte) error {
	return p.c.SendLane(lane, msg)
}

// LaneBuffered implements replicate.Out.
func (p *hostPeer) LaneBuffered(lane transport.Lane) int { return p.c.LaneBuffered(lane) }

// check enforces the timeouts and notes a finished join.
func (p *hostPeer) check(now time.Time) {
	if p.c.Closed() {
		return
	}
	cfg := &p.h.cfg
	switch p.stage {
	case stageHello, stageWelcomed:
		if p.inLine && now.Sub(p.since) > answerTimeout {
			// Its client has given up on the answer and dialed again (its
			// newer connection takes the place: leaveLine), or is gone.
			p.heldResume, p.inLine = nil, false
			p.c.Close(transport.CloseTimeout, fmt.Sprintf("the Resume waited in line longer than a client waits for its answer (%v)", answerTimeout))
			return
		}
		if now.Sub(p.since) > cfg.HandshakeTimeout && !p.acked && !p.inLine {
			what := "no Hello"
			if p.stage == stageWelcomed {
				what = "no WelcomeAck for the Welcome"
			}
			p.c.Close(transport.CloseTimeout, fmt.Sprintf("handshake not finished in %v: %s", cfg.HandshakeTimeout, what))
		}
		return
	case stageRejected:
		if now.Sub(p.rejectedAt) > rejectLinger {
			p.c.Close(p.closeCode, p.refusal.Reason)
		}
		return
	}
	if sent, ok := p.c.OldestInFlight(); ok && now.Sub(sent) > cfg.AckTimeout {
		p.c.Close(transport.CloseTimeout, fmt.Sprintf("peer left a datagram unacknowledged for %v", cfg.AckTimeout))
		return
	}
	if p.rp == nil {
		return
	}
	if p.rp.Joining() {
		if now.Sub(p.joinStart) > cfg.JoinTimeout {
			p.endFor(transport.CloseJoinTooSlow, "join did not finish in time")
		}
		return
	}
	if !p.ready {
		p.ready = true
		if !p.resumed {
			p.h.emit(Event{Kind: PeerReady, Peer: p.id, Name: p.name})
		}
	}
}

// FateAfter returns how long the connection takes to learn a datagram's
// fate: the replicator sends a removal again for as long.
func (p *hostPeer) FateAfter() time.Duration { return p.c.FateAfter() }

// endFor ends the admitted peer for what it did, or failed to do (code and
// reason): its connection closes, if it has not already, and the peer is
// not kept for a resume even if the transport saw the link break first
// (cause).
func (p *hostPeer) endFor(code transport.CloseCode, reason string) {
	if p.ended == nil {
		p.ended = &transport.CloseError{Code: code, Reason: reason}
	}
	p.c.Close(code, reason)
}

// cause is why the peer's connection ended: the host's own reason if it
// ended the peer (endFor), else the connection's.
func (p *hostPeer) cause() error {
	if p.ended != nil {
		return p.ended
	}
	return p.c.Err()
}
