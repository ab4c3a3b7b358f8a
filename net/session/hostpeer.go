package session

import (
	"errors"
	"time"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// errHelloTwice is a peer's protocol error: one handshake per connection.
var errHelloTwice = errors.New("session: second Hello on one connection; a connection gets one handshake")

// errUnexpected is a peer's protocol error: a message before the handshake,
// or one the host never accepts from a client.
var errUnexpected = errors.New("session: message not allowed at this point of the session")

// hostPeer is one connection on the host: handshake, then an admitted peer.
// It is the connection's handler and the replicator's Out.
type hostPeer struct {
	h         *Host
	c         *conn.Conn
	id        ecs.PeerID
	name      string
	admitted  bool
	ready     bool
	rp        *replicate.HostPeer
	since     time.Time
	lastAck   time.Time
	joinStart time.Time
}

// Message implements conn.Handler.
func (p *hostPeer) Message(kind wire.Kind, payload []byte) {
	if !p.admitted {
		p.c.ReportMalformed(errUnexpected)
		return
	}
	switch kind {
	case wire.KindState, wire.KindAuthState:
		p.c.ReportMalformed(errUnexpected)
		return
	}
	if p.h.cfg.OnMessage != nil {
		p.h.cfg.OnMessage(p.id, kind, payload)
	}
}

// LaneMessage implements conn.Handler.
func (p *hostPeer) LaneMessage(lane transport.Lane, msg []byte) {
	kind, err := wire.MessageKind(msg)
	if err != nil {
		p.c.ReportMalformed(err)
		return
	}
	if kind == wire.KindHello {
		if p.admitted || p.id != 0 {
			p.c.Close(transport.CloseProtocol, errHelloTwice.Error())
			return
		}
		var hello wire.Hello
		if err := hello.Decode(msg); err != nil || lane != transport.LaneControl {
			msg, _ := wire.Reject{Code: wire.RejectProtocol, Version: wire.Version, Reason: "first message must be a valid Hello on the control lane"}.Encode(nil)
			p.c.SendLane(transport.LaneControl, msg)
			p.c.Close(transport.CloseProtocol, "malformed Hello")
			return
		}
		p.h.admit(p, hello)
		return
	}
	if !p.admitted {
		p.c.Close(transport.CloseProtocol, "the first message must be Hello")
		return
	}
	switch kind {
	case wire.KindWelcome, wire.KindReject, wire.KindJoinPage, wire.KindJoinFinal:
		p.c.ReportMalformed(errUnexpected)
		return
	}
	if p.h.cfg.OnLaneMessage != nil {
		p.h.cfg.OnLaneMessage(p.id, lane, msg)
	}
}

// Notice implements conn.Handler: each token is a replication record.
func (p *hostPeer) Notice(n conn.Notice) {
	if n.Delivered {
		p.lastAck = p.h.cfg.Clock.Now()
	}
	if !p.admitted {
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
	switch {
	case !p.admitted:
		if now.Sub(p.since) > cfg.HandshakeTimeout {
			p.c.Close(transport.CloseTimeout, "no Hello in time")
		}
		return
	case p.c.InFlight() == 0:
		// Nothing outstanding, nothing to acknowledge: the clock restarts
		// when the next datagram goes out.
		p.lastAck = now
	case now.Sub(p.lastAck) > cfg.AckTimeout:
		p.c.Close(transport.CloseTimeout, "peer acknowledged nothing in time")
		return
	}
	if p.rp == nil {
		return
	}
	if p.rp.Joining() {
		if now.Sub(p.joinStart) > cfg.JoinTimeout {
			p.c.Close(transport.CloseJoinTooSlow, "join did not finish in time")
		}
		return
	}
	if !p.ready {
		p.ready = true
		p.h.emit(Event{Kind: PeerReady, Peer: p.id, Name: p.name})
	}
}
