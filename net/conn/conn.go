package conn

import (
	"errors"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// MaxMessageSize is the largest datagram message payload, in bytes: what fits
// one datagram beside the largest header and the message's own framing.
const MaxMessageSize = transport.MaxDatagramSize - wire.MaxHeaderSize - 3

// PreferredMessageSize is the largest payload that always fits a datagram
// together with the largest acknowledgement frame. Callers that build
// messages as large as they can should stop here, so no datagram goes
// without its acknowledgement.
const PreferredMessageSize = MaxMessageSize - wire.MaxAckFrameSize

// ackRepeats is how many flushes after the last new acknowledgement the
// ack frame keeps riding in numbered datagrams, so that one lost datagram
// does not hold up the peer's verdicts until its probe timer fires.
const ackRepeats = 2

// maxProbeBackoff caps the doubling of the probe timeout.
const maxProbeBackoff = 6

// Conn is one peer's connection over a transport.Conn. See the package
// documentation for the per-tick cycle and the concurrency rules.
type Conn struct {
	tc    transport.Conn
	clk   clock.Clock
	h     Handler
	cfg   Config
	start time.Time

	closed bool
	err    error

	// Messages queued since the last Flush: their encoded bytes (kind,
	// varint length, payload) back to back, and one entry per message.
	queue     []byte
	msgs      []queuedMsg
	open      bool // a message is begun and not committed
	openStart int
	openTok   Token
	w         wire.Writer
	estDgrams int // datagrams the queued messages will take (Budget's estimate)
	estFill   int // bytes in the last of those

	// Sending: numbered datagrams and what became of them.
	next         uint32 // next packet number
	floor        uint32 // oldest packet whose fate is unknown (next when none)
	reorderFloor uint32 // oldest packet sent within the reorder window of now
	sent         [wire.AckWindow]sentPacket
	toks         tokenRing
	inFlight     int
	largestAcked uint32
	anyAcked     bool
	// answeredPN is the newest packet the peer acknowledged (answered set):
	// what UnansweredSince counts from.
	answeredPN     uint32
	answered       bool
	lastNumberedAt time.Duration
	probes         int
	dgram          []byte
	hdr            wire.Header // scratch for building headers
	lastAckSize    int         // bytes of the last ack frame sent

	// Receiving.
	recv    recvWindow
	heardAt time.Duration // when the last datagram from the peer that decoded came
	inTop   uint32        // the newest numbered packet accepted (inAny)
	inAny   bool
	inLoss  float64     // InLossRate
	rhdr    wire.Header // scratch for parsing headers

	rtt       rttEstimator
	loss      float64
	budget    budget
	malformed int
	fullPolls int // polls in a row that ended at a datagram bound
	inRate    inboundRate
	laneRate  [transport.NumLanes]inboundRate
	counts    counters
	bytesIn   rateMeter
	bytesOut  rateMeter
	pktsIn    rateMeter
	pktsOut   rateMeter
}

// queuedMsg is a queued message: where its bytes end in queue, its token.
type queuedMsg struct {
	end int
	tok Token
}

// sentPacket is what a Conn remembers of a numbered datagram it sent, in a
// ring indexed by packet number modulo wire.AckWindow.
type sentPacket struct {
	state        packetState
	sentAt       time.Duration // since the Conn started
	reorderFloor uint32        // the header's ReorderFloor
	size         int
	tokStart     int // its tokens in the token ring
	tokLen       int
}

type packetState uint8

const (
	stateNone packetState = iota
	stateInFlight
	stateSettled
)

// New returns a Conn over tc that reads time from clk and hands what arrives
// to h (nil ignores it; see SetHandler). The Conn owns tc from now on: close
// it with Conn.Close. It allocates its buffers here, so that polling and
// flushing allocate nothing in steady state.
func New(tc transport.Conn, clk clock.Clock, h Handler, cfg Config) (*Conn, error) {
	if tc == nil || clk == nil {
		return nil, errors.New("conn: New needs a transport.Conn and a clock.Clock")
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if h == nil {
		h = HandlerFuncs{}
	}
	c := &Conn{
		tc:    tc,
		clk:   clk,
		h:     h,
		cfg:   cfg,
		start: clk.Now(),
		queue: make([]byte, 0, cfg.MaxQueuedBytes+MaxMessageSize+8),
		msgs:  make([]queuedMsg, 0, 256),
		dgram: make([]byte, 0, transport.MaxDatagramSize),
		toks:  tokenRing{buf: make([]Token, initialTokens)},
	}
	c.rtt.init(cfg.InitialRTT)
	c.budget.configure(cfg.BitsPerSecond, cfg.BudgetBurst, cfg.DatagramOverhead)
	return c, nil
}

// SetHandler replaces the Handler (nil ignores what arrives). Call it between
// ticks, not from a Handler method.
func (c *Conn) SetHandler(h Handler) {
	if h == nil {
		h = HandlerFuncs{}
	}
	c.h = h
}

// Admit tells the transport that the peer is admitted: its receive limits
// rise from the small bounds of an unadmitted peer to the configured ones
// (see transport.Conn.Admit). The host's session calls it once the peer has
// proven itself in the handshake.
func (c *Conn) Admit() {
	if !c.closed {
		c.tc.Admit()
	}
}

// Transport returns the transport.Conn under c.
func (c *Conn) Transport() transport.Conn { return c.tc }

// now returns the time since the Conn started.
func (c *Conn) now() time.Duration { return c.clk.Now().Sub(c.start) }

// Err returns nil while the connection is open. Once closed it returns why: a
// *LimitError, a *ProtocolError or ErrUnresponsive when this side closed it
// for the peer's behaviour, else the transport's error (a
// *transport.CloseError for a close by either side).
func (c *Conn) Err() error { return c.err }

// Closed reports whether the connection is closed.
func (c *Conn) Closed() bool { return c.closed }

// Ended reports whether the connection has ended, by either side: Closed,
// or its transport closed by the peer (or broken) before a Poll saw it.
// The next Poll or Close records that end's cause as Err.
func (c *Conn) Ended() bool { return c.closed || c.tc.Err() != nil }

// Close closes the connection with code and reason, which the peer sees.
// Every datagram whose fate is unknown is reported lost, and queued messages
// are dropped. Later calls do nothing and return nil.
func (c *Conn) Close(code transport.CloseCode, reason string) error {
	if c.closed {
		return nil
	}
	c.shutdown(code, reason, nil)
	return nil
}

// fail closes the connection because of the peer, with cause as Err.
func (c *Conn) fail(cause error) {
	if c.closed {
		return
	}
	if errors.Is(cause, ErrLimit) {
		c.counts.LimitClosures++
	}
	c.shutdown(closeCode(cause), cause.Error(), cause)
}

// shutdown closes the transport (unless it is already closed), records the
// cause, drops the queue and reports every datagram in flight as not
// delivered (abandoned: the loss figures leave them out).
func (c *Conn) shutdown(code transport.CloseCode, reason string, cause error) {
	c.closed = true
	if c.tc.Err() == nil {
		_ = c.tc.Close(code, reason)
	}
	if cause == nil {
		cause = c.tc.Err()
		if cause == nil {
			cause = &transport.CloseError{Code: code, Reason: reason}
		}
	}
	c.err = cause
	c.queue, c.msgs = c.queue[:0], c.msgs[:0]
	c.open = false
	c.estDgrams, c.estFill = 0, 0
	for pn := c.floor; pn != c.next; pn++ {
		if c.sent[pn%wire.AckWindow].state == stateInFlight {
			c.abandon(pn)
		}
	}
	c.floor = c.next
	c.releaseTokens()
}

// closedErr is what methods return on a closed Conn.
func (c *Conn) closedErr() error {
	if c.err != nil {
		return errors.Join(ErrClosed, c.err)
	}
	return ErrClosed
}

// ReportMalformed counts a malformed input from the peer that a layer above
// found (a message body that does not decode, say). Past
// Config.MaxMalformed the connection closes with transport.CloseProtocol.
func (c *Conn) ReportMalformed(err error) {
	if c.closed {
		return
	}
	c.counts.Malformed++
	c.malformed++
	if c.malformed > c.cfg.MaxMalformed {
		c.fail(&ProtocolError{Count: c.malformed, Last: err})
	}
}
