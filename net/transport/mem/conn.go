package mem

import (
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// pipe is what the two ends of a connection share: one lock and one clock.
type pipe struct {
	mu    sync.Mutex
	clk   clock.Clock
	cfg   Config
	cut   bool      // the link went dark (Cut)
	cutAt time.Time // when
}

// idledOut closes end c, whose link was cut IdleTimeout ago or more, as its
// transport's idle timeout would. The pipe is locked.
func (c *Conn) idledOut() {
	if c.err != nil || !c.p.cut || c.p.cfg.IdleTimeout < 0 || c.p.clk.Now().Sub(c.p.cutAt) < c.p.cfg.IdleTimeout {
		return
	}
	c.err = &transport.CloseError{Code: transport.CloseTimeout, Reason: fmt.Sprintf("idle timeout: nothing heard from the peer for %v", c.p.cfg.IdleTimeout)}
	c.closedAt = c.p.clk.Now()
	close(c.done)
}

// Conn is one end of an in-memory connection. It implements transport.Conn.
//
// Delivery is pulled: RecvDatagram and RecvMessage return what is due at the
// clock's Now. A close reaches the peer at once (its Err and Done change in
// the same call); after it neither end receives datagrams. The end that
// closed receives the lane messages that were due when it closed (they had
// arrived); the peer every lane message the closing end sent, those still
// in flight too: they went before the close, as a QUIC connection's stream
// data goes before its CONNECTION_CLOSE (over QUIC they may still be lost
// unless the sender waits for them to settle: transport.InFlighter).
//
// An end a Listener accepted starts unadmitted: its lanes hold only the
// small bounds of transport.UnadmittedMaxMessageSize and the constants beside
// it, and the peer's SendMessage returns transport.ErrLaneQueueFull past
// them, until Admit.
//
// Concurrency: safe for concurrent use; the two ends share one lock.
// Buffers: Send methods copy; Recv slices are valid until the next call of the
// same method.
type Conn struct {
	p      *pipe
	peer   *Conn
	in     *condition.Link // datagrams on their way to this end
	lanes  [transport.NumLanes]laneQueue
	local  Addr
	remote Addr

	stats    transport.Stats
	err      error
	closedAt time.Time // when err was set; once closed, lane messages due by then are still taken
	done     chan struct{}
	admitted bool // the configured lane limits apply to what this end receives
	// darkFrom and darkUntil bound this end's last blackout (Blackout).
	darkFrom, darkUntil time.Time
	// muteFrom and muteUntil bound this end's last mute (Mute).
	muteFrom, muteUntil time.Time
}

// dark reports whether a blackout of this end holds at t. The pipe is
// locked.
func (c *Conn) dark(t time.Time) bool { return !t.Before(c.darkFrom) && t.Before(c.darkUntil) }

// muted reports whether what this end sends at t is lost: a blackout or a
// mute of it holds. The pipe is locked.
func (c *Conn) muted(t time.Time) bool {
	return c.dark(t) || !t.Before(c.muteFrom) && t.Before(c.muteUntil)
}

// silentUntil is when what this end sends at t, muted, gets through again.
// The pipe is locked.
func (c *Conn) silentUntil(t time.Time) time.Time {
	until := t
	if c.dark(t) {
		until = c.darkUntil
	}
	if !t.Before(c.muteFrom) && t.Before(c.muteUntil) && c.muteUntil.After(until) {
		until = c.muteUntil
	}
	return until
}

var _ transport.Conn = (*Conn)(nil)

// newPair makes both ends of a connection.
func newPair(clk clock.Clock, cfg Config, toHost, toClient condition.Config, clientAddr, hostAddr Addr) (client, host *Conn) {
	p := &pipe{clk: clk, cfg: cfg}
	// The configs were validated by NewNetwork.
	toHostLink, _ := condition.NewLink(toHost)
	toClientLink, _ := condition.NewLink(toClient)
	client = &Conn{p: p, in: toClientLink, local: clientAddr, remote: hostAddr, done: make(chan struct{}), admitted: true}
	host = &Conn{p: p, in: toHostLink, local: hostAddr, remote: clientAddr, done: make(chan struct{})}
	client.peer, host.peer = host, client
	return client, host
}

// SendDatagram pushes a copy of p into the link toward the peer. It returns
// transport.ErrDatagramTooLarge past transport.MaxDatagramSize and
// transport.ErrClosed once closed.
func (c *Conn) SendDatagram(p []byte) error {
	if len(p) > transport.MaxDatagramSize {
		return transport.ErrDatagramTooLarge
	}
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	if c.err != nil {
		return transport.ErrClosed
	}
	if c.p.cut || c.muted(c.p.clk.Now()) {
		c.stats.DatagramsSent++
		return nil // into the dark
	}
	c.peer.in.Push(c.p.clk.Now(), p, nil)
	c.stats.DatagramsSent++
	c.stats.BytesSent += uint64(len(p))
	return nil
}

// RecvDatagram returns the next datagram due now, if any.
func (c *Conn) RecvDatagram() ([]byte, bool) {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	c.idledOut()
	if c.err != nil || c.p.cut {
		return nil, false
	}
	now := c.p.clk.Now()
	var p []byte
	for {
		due, ok := c.in.Next()
		if !ok || due.After(now) {
			return nil, false
		}
		p, _, _ = c.in.Pop(now)
		if !c.dark(due) {
			break
		}
		// Due in a blackout of this end: lost.
	}
	c.stats.DatagramsReceived++
	c.stats.BytesReceived += uint64(len(p))
	return p, true
}

// SendMessage queues a copy of msg on lane, due at the peer after the
// direction's Latency and never before the lane's previous message. The
// peer's lane holds its messages at transport.MessageCost each: past
// Config.LaneQueueBytes or LaneQueueMessages (or the unadmitted bounds, while
// the peer is not admitted) it returns transport.ErrLaneQueueFull and queues
// nothing; a message into an empty lane of an admitted peer is always taken.
func (c *Conn) SendMessage(lane transport.Lane, msg []byte) error {
	if lane >= transport.NumLanes {
		return transport.ErrBadLane
	}
	if len(msg) > c.p.cfg.MaxMessageSize {
		return transport.ErrMessageTooLarge
	}
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	if c.err != nil {
		return transport.ErrClosed
	}
	if c.p.cut {
		c.stats.MessagesSent++
		return nil // into the dark
	}
	q := &c.peer.lanes[lane]
	size, msgs, cost := c.p.cfg.MaxMessageSize, c.p.cfg.LaneQueueMessages, c.p.cfg.LaneQueueBytes
	if !c.peer.admitted {
		size, msgs, cost = transport.UnadmittedMaxMessageSize, transport.UnadmittedLaneMessages, transport.UnadmittedLaneCost
	}
	mc := transport.MessageCost(len(msg))
	if len(msg) > size || q.n >= msgs || (q.cost+mc > cost && (!c.peer.admitted || q.n > 0)) {
		return transport.ErrLaneQueueFull
	}
	now := c.p.clk.Now()
	if c.muted(now) {
		now = c.silentUntil(now) // sent again once the blackout or mute ends
	}
	due := now.Add(c.peer.in.Config().Latency + c.p.cfg.LaneDelay[lane])
	if due.Before(q.lastDue) {
		due = q.lastDue
	}
	q.push(due, append([]byte(nil), msg...))
	c.stats.MessagesSent++
	c.stats.BytesSent += uint64(len(msg))
	return nil
}

// RecvMessage returns the next lane message due now, lowest lane first.
// Once closed, it returns the messages that were due at the close, and
// after the peer's close every message the peer sent before it.
func (c *Conn) RecvMessage() (transport.Lane, []byte, bool) {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	now := c.p.clk.Now()
	if c.err != nil {
		now = c.closedAt
	}
	if c.p.cut || c.err == nil && c.dark(now) {
		return 0, nil, false
	}
	for i := range c.lanes {
		if msg, ok := c.lanes[i].pop(now); ok {
			c.stats.MessagesReceived++
			c.stats.BytesReceived += uint64(len(msg))
			return transport.Lane(i), msg, true
		}
	}
	return 0, nil, false
}

// Buffered returns the message bytes sent on lane that the peer has not yet
// taken with RecvMessage (in flight or waiting); 0 for a bad lane.
func (c *Conn) Buffered(lane transport.Lane) int {
	if lane >= transport.NumLanes {
		return 0
	}
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	return c.peer.lanes[lane].bytes
}

// Close closes both ends now: this end's Err becomes a CloseError with
// Remote false, the peer's the same with Remote true, and the lane messages
// this end sent that are still in flight become due to the peer at once
// (they went before the close), while those on their way to this end are
// dropped. After Cut only this end closes: the peer is not told.
func (c *Conn) Close(code transport.CloseCode, reason string) error {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	if c.err != nil {
		return nil
	}
	c.err = &transport.CloseError{Code: code, Reason: reason}
	c.closedAt = c.p.clk.Now()
	close(c.done)
	if c.p.cut || c.peer.err != nil {
		return nil
	}
	c.peer.err = &transport.CloseError{Code: code, Reason: reason, Remote: true}
	// The peer takes what this end sent before the close, in flight
	// or not: each lane's last message is due at its lastDue.
	c.peer.closedAt = c.closedAt
	for i := range c.peer.lanes {
		if q := &c.peer.lanes[i]; q.n > 0 && q.lastDue.After(c.peer.closedAt) {
			c.peer.closedAt = q.lastDue
		}
	}
	close(c.peer.done)
	return nil
}

// Cut makes the link go dark, as a network that drops a connection
// without a word: from now on nothing passes either way (what is in flight
// is lost, what is sent vanishes), and a Close of either end no longer
// reaches the other, so each end learns of the break only by its own
// timeouts: each closes by itself Config.IdleTimeout after the cut (as
// QUIC's idle timeout closes a connection whose keepalives go unanswered),
// when it next receives or is asked for its error, unless closed before.
func (c *Conn) Cut() {
	c.p.mu.Lock()
	if !c.p.cut {
		c.p.cut, c.p.cutAt = true, c.p.clk.Now()
	}
	c.p.mu.Unlock()
}

// Blackout makes this end's link carry nothing for d from now, as a
// network that drops everything for a while (a Wi-Fi hand-over, a burst of
// loss) and then carries again: the datagrams this end sends meanwhile are
// lost, and so are those that would reach it meanwhile; lane messages
// either way wait and arrive once it ends (a reliable stream sends them
// again). Neither end is told: each finds out by its own timeouts if d
// outlasts them (a client's ack timeout; the transport's idle timeout,
// which this transport does not apply to a blackout: a longer break is a
// Cut). A blackout that ends before the current one does nothing.
func (c *Conn) Blackout(d time.Duration) {
	c.p.mu.Lock()
	now := c.p.clk.Now()
	if until := now.Add(d); until.After(c.darkUntil) {
		if !c.dark(now) {
			c.darkFrom = now
		}
		c.darkUntil = until
	}
	c.p.mu.Unlock()
}

// Mute makes what this end sends lost for d from now, while what reaches
// it still arrives: a link dark one way (an uplink that fails, a firewall
// that drops one direction). Lane messages it sends meanwhile wait and
// arrive once it ends (a reliable stream sends them again). Neither end is
// told; the peer finds out by its own timeouts if d outlasts them. A mute
// that ends before the current one does nothing.
func (c *Conn) Mute(d time.Duration) {
	c.p.mu.Lock()
	now := c.p.clk.Now()
	if until := now.Add(d); until.After(c.muteUntil) {
		if now.Before(c.muteFrom) || !now.Before(c.muteUntil) {
			c.muteFrom = now // not muted now: a new mute
		}
		c.muteUntil = until
	}
	c.p.mu.Unlock()
}

// Admit raises the lane limits of what this end receives from the unadmitted
// bounds to the Config's. Ends that dialed are admitted from the start.
func (c *Conn) Admit() {
	c.p.mu.Lock()
	c.admitted = true
	c.p.mu.Unlock()
}

// Done is closed when this end closes, or the peer does (before Cut).
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns nil while open, then a *transport.CloseError.
func (c *Conn) Err() error {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	c.idledOut()
	return c.err
}

// Stats returns the counters. RTT is the configured Latency of both
// directions; wire bytes equal payload bytes (there is no framing);
// DatagramsDropped counts datagrams dropped because this end's incoming link
// held its Limit.
func (c *Conn) Stats() transport.Stats {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	s := c.stats
	s.RTT = c.in.Config().Latency + c.peer.in.Config().Latency
	s.DatagramsDropped = c.in.Stats().LimitDropped
	s.WireBytesSent, s.WireBytesReceived = s.BytesSent, s.BytesReceived
	s.WirePacketsSent = s.DatagramsSent + s.MessagesSent
	return s
}

// RemoteAddr returns the peer's Addr.
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// LocalAddr returns this end's Addr.
func (c *Conn) LocalAddr() net.Addr { return c.local }

// SetConditions changes the conditions of the datagrams this end sends from
// now on (those in flight keep their delivery times). Seed is ignored.
func (c *Conn) SetConditions(cfg condition.Config) error {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	return c.peer.in.SetConfig(cfg)
}

// SetReceiveConditions changes the conditions of the datagrams sent to
// this end from now on (those in flight keep their delivery times): with
// SetConditions, one connection's link both ways, from either end. Seed is
// ignored.
func (c *Conn) SetReceiveConditions(cfg condition.Config) error {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	return c.in.SetConfig(cfg)
}

// LinkStats returns the conditioner's counters for the datagrams this end
// sent (out) and those sent to it (in).
func (c *Conn) LinkStats() (out, in condition.Stats) {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	return c.peer.in.Stats(), c.in.Stats()
}

// laneQueue holds one lane's messages in one direction, in order, in a ring
// that grows by doubling and is released once it empties while large.
type laneQueue struct {
	msgs    []laneMsg
	head, n int
	bytes   int       // message bytes held
	cost    int       // their transport.MessageCost
	lastDue time.Time // due time of the last message pushed
}

type laneMsg struct {
	due time.Time
	msg []byte
}

// keepQueueSlots is the ring size kept when a lane's queue empties.
const keepQueueSlots = 16

func (q *laneQueue) push(due time.Time, msg []byte) {
	if q.n == len(q.msgs) {
		grown := make([]laneMsg, max(keepQueueSlots/2, 2*len(q.msgs)))
		for i := range q.n {
			grown[i] = q.msgs[(q.head+i)%len(q.msgs)]
		}
		q.msgs, q.head = grown, 0
	}
	q.msgs[(q.head+q.n)%len(q.msgs)] = laneMsg{due: due, msg: msg}
	q.n++
	q.bytes += len(msg)
	q.cost += transport.MessageCost(len(msg))
	q.lastDue = due
}

func (q *laneQueue) pop(now time.Time) ([]byte, bool) {
	if q.n == 0 || q.msgs[q.head].due.After(now) {
		return nil, false
	}
	m := q.msgs[q.head]
	q.msgs[q.head] = laneMsg{}
	q.head = (q.head + 1) % len(q.msgs)
	q.n--
	if q.n == 0 {
		q.head = 0
		if len(q.msgs) > keepQueueSlots {
			q.msgs = nil
		}
	}
	q.bytes -= len(m.msg)
	q.cost -= transport.MessageCost(len(m.msg))
	return m.msg, true
}
