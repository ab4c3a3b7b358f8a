package quicnet

import (
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tandem-go/tandem/net/transport"
)

// lane is one lane's state in both directions. Guarded by Conn.mu.
type lane struct {
	// Sending: SendMessage appends framed messages to pending; the lane's
	// writer takes its chunks in order and writes them to the stream.
	pending   chunkQueue
	sendBytes int  // framed bytes in pending and in the write under way
	writing   bool // the writer goroutine was started
	wake      chan struct{}
	// What QUIC took and may not have delivered yet (InFlight): the
	// framed bytes written since the lane last settled, and when the
	// last of them were.
	flight  int
	wroteAt time.Time

	// Receiving: the lane's reader reserves room (the message's cost and a
	// queue slot) before it allocates a message, and waits on room while
	// there is none.
	recv     msgRing
	recvCost int  // transport.MessageCost of the messages in recv and the one being read
	reading  bool // the reader holds a reserved buffer it is filling
	waiting  bool // the reader waits for room (or for Admit), holding nothing
	room     chan struct{}
	claimed  bool // the peer opened this lane's stream
}

// SendMessage frames a copy of msg for lane and queues it for the lane's
// writer goroutine, which opens the lane's stream on first use. It never
// blocks: past Config.LaneSendBytes it returns transport.ErrLaneQueueFull
// and queues nothing.
func (c *Conn) SendMessage(ln transport.Lane, msg []byte) error {
	if ln >= transport.NumLanes {
		return transport.ErrBadLane
	}
	if len(msg) > c.cfg.MaxMessageSize {
		return transport.ErrMessageTooLarge
	}
	size := framedSize(len(msg))
	c.mu.Lock()
	if c.closedLocked() {
		c.mu.Unlock()
		return transport.ErrClosed
	}
	l := &c.lanes[ln]
	if l.sendBytes > 0 && l.sendBytes+size > c.cfg.LaneSendBytes {
		c.mu.Unlock()
		return transport.ErrLaneQueueFull
	}
	if !l.writing {
		l.writing = true
		l.pending.write([]byte{byte(ln)})
		l.sendBytes++
		c.wg.Add(1) // under mu with the connection open: supervise has not begun waiting
		go c.writeLane(ln)
	}
	var head [maxLengthBytes]byte
	l.pending.write(appendLength(head[:0], len(msg)))
	l.pending.write(msg)
	l.sendBytes += size
	c.stats.MessagesSent++
	c.stats.BytesSent += uint64(len(msg))
	c.mu.Unlock()
	signal(l.wake)
	return nil
}

// Buffered returns the bytes of lane queued by SendMessage and not yet taken
// by QUIC (framing included; a write blocked by flow control counts until
// QUIC has packed it). Data QUIC took and the peer may not have
// acknowledged is not counted here (bulk senders pace by what waits for
// QUIC): InFlight counts it.
func (c *Conn) Buffered(ln transport.Lane) int {
	if ln >= transport.NumLanes {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lanes[ln].sendBytes
}

// InFlight returns the bytes of lane that QUIC took and that may not have
// reached the peer yet (transport.InFlighter); 0 once the connection
// closed. quic-go does not tell when the peer acknowledged stream data, so
// they count until QUIC would have delivered them through two losses in a
// row: for settleAfter from the lane's last write. A close before Buffered
// and InFlight fall to 0 may lose the data: QUIC stops sending it again,
// and the peer's quic-go drops what its reader had not read yet when the
// close arrives.
func (c *Conn) InFlight(ln transport.Lane) int {
	if ln >= transport.NumLanes {
		return 0
	}
	settle := c.settleAfter()
	c.mu.Lock()
	defer c.mu.Unlock()
	l := &c.lanes[ln]
	if l.flight > 0 && (c.closedLocked() || time.Since(l.wroteAt) >= settle) {
		l.flight = 0
	}
	return l.flight
}

var _ transport.InFlighter = (*Conn)(nil)

// settleAfter is how long after QUIC took a lane's bytes they count as in
// flight: one round trip and three probe timeouts (RFC 9002's PTO, from
// QUIC's RTT estimate, 100 ms before its first sample, and the peer's
// default max_ack_delay), long enough for a first loss to be probed after
// one PTO and a second after two more (the timeout doubles), and for the
// data to reach the peer and be acknowledged. About 0.8 s at a 150 ms round
// trip, 0.1 s on a LAN. An estimate: a connection already backing off its
// probes (a link gone dark) may take longer.
func (c *Conn) settleAfter() time.Duration {
	s := c.qc.ConnectionStats()
	pto := s.SmoothedRTT + max(4*s.MeanDeviation, time.Millisecond) + maxAckDelay
	return s.SmoothedRTT + 3*pto
}

// maxAckDelay is the max_ack_delay a quic-go peer announces (QUIC's
// default).
const maxAckDelay = 25 * time.Millisecond

// RecvMessage returns the next received message, lowest lane first.
// Messages received before the connection closed are still returned after
// it (a Reject before a close, say); then ok is false.
func (c *Conn) RecvMessage() (transport.Lane, []byte, bool) {
	c.mu.Lock()
	if c.lastMsg != nil { // the caller is done with it
		c.recycleLocked(c.lastMsg)
		c.lastMsg = nil
	}
	for i := range c.lanes {
		l := &c.lanes[i]
		msg, ok := l.recv.pop()
		if !ok {
			continue
		}
		l.recvCost -= bufferCost(msg)
		c.lastMsg = msg
		c.stats.MessagesReceived++
		c.stats.BytesReceived += uint64(len(msg))
		c.mu.Unlock()
		signal(l.room)
		return transport.Lane(i), msg, true
	}
	c.mu.Unlock()
	return 0, nil, false
}

// Admit raises the lanes' receive limits from the unadmitted bounds to the
// configured ones and wakes the readers waiting for them.
func (c *Conn) Admit() {
	c.mu.Lock()
	was := c.admitted
	c.admitted = true
	c.mu.Unlock()
	if !was {
		for i := range c.lanes {
			signal(c.lanes[i].room)
		}
	}
}

// receiveLimits are the bounds of one lane's received messages.
type receiveLimits struct {
	size, messages, cost int
}

// limitsLocked returns the receive limits that apply now.
func (c *Conn) limitsLocked() receiveLimits {
	if !c.admitted {
		return receiveLimits{transport.UnadmittedMaxMessageSize, transport.UnadmittedLaneMessages, transport.UnadmittedLaneCost}
	}
	return receiveLimits{c.cfg.MaxMessageSize, c.cfg.LaneReceiveMessages, c.cfg.LaneReceiveBytes}
}

// writeLane opens the lane's stream and writes what SendMessage queues, in
// order, until the connection closes.
func (c *Conn) writeLane(ln transport.Lane) {
	defer c.wg.Done()
	st, err := c.qc.OpenUniStreamSync(c.ctx)
	if err != nil {
		return // the connection closed
	}
	l := &c.lanes[ln]
	for {
		c.mu.Lock()
		for l.pending.empty() {
			c.mu.Unlock()
			select {
			case <-l.wake:
			case <-c.ctx.Done():
				return
			}
			c.mu.Lock()
		}
		chunk := l.pending.take()
		c.mu.Unlock()

		_, err := st.Write(chunk)
		settle := c.settleAfter()

		c.mu.Lock()
		l.sendBytes -= len(chunk)
		if err == nil {
			now := time.Now()
			if now.Sub(l.wroteAt) >= settle {
				l.flight = 0 // what went before has settled
			}
			l.flight += len(chunk)
			l.wroteAt = now
		}
		l.pending.recycle(chunk)
		c.mu.Unlock()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) && c.ctx.Err() == nil {
				c.violate(transport.CloseProtocol, fmt.Errorf("%w: the peer stopped reading lane %s: %v", transport.ErrMalformed, ln, err))
			}
			return
		}
	}
}

// acceptLanes starts a reader for each lane stream the peer opens.
func (c *Conn) acceptLanes() {
	defer c.wg.Done()
	for {
		st, err := c.qc.AcceptUniStream(c.ctx)
		if err != nil {
			return // the connection closed
		}
		c.mu.Lock()
		if c.closedLocked() {
			c.mu.Unlock()
			return
		}
		c.wg.Add(1)
		c.mu.Unlock()
		go c.readLane(st)
	}
}

// readLane decodes one lane stream from the peer into the lane's incoming
// queue. Any framing error closes the connection.
func (c *Conn) readLane(st *quic.ReceiveStream) {
	defer c.wg.Done()
	lr := newLaneReader(st, c.cfg.MaxMessageSize)
	ln, err := lr.readLane()
	if err != nil {
		c.streamFailed(err)
		return
	}
	c.mu.Lock()
	l := &c.lanes[ln]
	dup := l.claimed
	l.claimed = true
	c.mu.Unlock()
	if dup {
		c.violate(transport.CloseProtocol, fmt.Errorf("%w: the peer opened a second stream for lane %s", transport.ErrMalformed, ln))
		return
	}
	for {
		n, err := lr.readLength()
		if err != nil {
			c.streamFailed(laneErr(ln, err))
			return
		}
		msg, ok := c.reserve(l, n)
		if !ok {
			return // the connection closed
		}
		if err := lr.readPayload(msg); err != nil {
			c.streamFailed(laneErr(ln, err))
			return
		}
		c.mu.Lock()
		l.recv.push(msg)
		l.reading = false
		c.mu.Unlock()
		signal(c.arrived)
	}
}

// laneErr names the lane in a stream error, keeping its type.
func laneErr(ln transport.Lane, err error) error {
	return fmt.Errorf("lane %s: %w", ln, err)
}

// reserve waits until lane l may take a message of n bytes (the peer is
// admitted or n is within the unadmitted bounds, and the lane's queue has a
// slot and room for the message's cost), charges it and returns a buffer of
// n bytes for it; false when the connection closed first. Nothing is
// allocated while it waits: the peer's bytes wait in QUIC's flow control.
func (c *Conn) reserve(l *lane, n int) ([]byte, bool) {
	for {
		c.mu.Lock()
		if c.closedLocked() {
			c.mu.Unlock()
			return nil, false
		}
		lim := c.limitsLocked()
		if n <= lim.size && l.recv.len() < lim.messages {
			i, cost := c.freeBufferLocked(n)
			// A message into an empty lane of an admitted peer is always
			// taken, so a message larger than the lane's limit still passes.
			if l.recvCost+cost <= lim.cost || (c.admitted && l.recvCost == 0) {
				l.recvCost += cost
				l.reading = true
				if i < 0 {
					// A fresh buffer is made after the lock is let go: an
					// allocation may assist the collector or fault pages
					// in for milliseconds, and the game's frame takes this
					// lock to read what arrived (RecvMessage).
					c.mu.Unlock()
					return make([]byte, n), true
				}
				buf := c.takeBufferLocked(i, n)
				c.mu.Unlock()
				return buf, true
			}
		}
		l.waiting = true
		c.mu.Unlock()
		select {
		case <-l.room:
		case <-c.ctx.Done():
			return nil, false
		}
		c.mu.Lock()
		l.waiting = false
		c.mu.Unlock()
	}
}

// bufferCost is what a received message buffer holds while queued.
func bufferCost(b []byte) int { return transport.AllocSize(cap(b)) + transport.MessageSlotBytes }

// Received message buffers are reused once the caller is done with them
// (at its next RecvMessage): a few of them, of at most keepMessageBytes in
// all. A buffer is reused for a message only when it is at most a quarter
// larger than a fresh one would be, so reuse never inflates what a message
// holds by much.
const (
	keepMessageBuffers = 4
	keepMessageBytes   = 64 << 10
)

// freeBufferLocked picks the smallest kept buffer that holds n bytes
// economically, or -1 for a fresh one, and returns what the message will
// cost in it.
func (c *Conn) freeBufferLocked(n int) (int, int) {
	want := transport.AllocSize(n)
	best := -1
	for i, b := range c.msgFree {
		if cap(b) >= n && cap(b) <= want+want/4 && (best < 0 || cap(b) < cap(c.msgFree[best])) {
			best = i
		}
	}
	if best < 0 {
		return -1, want + transport.MessageSlotBytes
	}
	return best, bufferCost(c.msgFree[best])
}

// takeBufferLocked returns the kept buffer i cut to n bytes.
func (c *Conn) takeBufferLocked(i, n int) []byte {
	b := c.msgFree[i]
	last := len(c.msgFree) - 1
	c.msgFree[i] = c.msgFree[last]
	c.msgFree[last] = nil
	c.msgFree = c.msgFree[:last]
	c.msgFreeBytes -= cap(b)
	return b[:n]
}

// recycleLocked keeps a message buffer the caller is done with, within
// keepMessageBuffers and keepMessageBytes.
func (c *Conn) recycleLocked(b []byte) {
	if cap(b) == 0 || cap(b) > keepMessageBytes {
		return
	}
	for len(c.msgFree) >= keepMessageBuffers || c.msgFreeBytes+cap(b) > keepMessageBytes {
		// Drop the smallest kept buffer if b is larger, else b.
		small := 0
		for i, f := range c.msgFree {
			if cap(f) < cap(c.msgFree[small]) {
				small = i
			}
		}
		if len(c.msgFree) == 0 || cap(c.msgFree[small]) >= cap(b) {
			return
		}
		c.takeBufferLocked(small, 0)
	}
	c.msgFree = append(c.msgFree, b)
	c.msgFreeBytes += cap(b)
}

// streamFailed closes the connection with the code a lane stream error
// calls for, unless the error only says the connection is closing.
func (c *Conn) streamFailed(err error) {
	switch {
	case errors.Is(err, net.ErrClosed) || c.ctx.Err() != nil:
		// The connection is closing; its own error says why.
	case errors.Is(err, transport.ErrMessageTooLarge):
		c.violate(transport.CloseLimit, err)
	case errors.Is(err, transport.ErrBadLane), errors.Is(err, transport.ErrMalformed):
		c.violate(transport.CloseProtocol, err)
	case errors.Is(err, io.EOF):
		c.violate(transport.CloseProtocol, fmt.Errorf("%w: %w: a lane stream ended; lanes last as long as the connection", transport.ErrMalformed, err))
	case errors.Is(err, io.ErrUnexpectedEOF):
		c.violate(transport.CloseProtocol, fmt.Errorf("%w: %w: a lane stream ended inside a message", transport.ErrMalformed, err))
	default: // the peer reset the stream, or another stream error
		c.violate(transport.CloseProtocol, fmt.Errorf("%w: %w", transport.ErrMalformed, err))
	}
}

// msgRing is a FIFO of received messages in a ring that grows by doubling
// and is released once it empties while large, so a burst's memory goes back.
// Not safe for concurrent use.
type msgRing struct {
	buf  [][]byte
	head int
	n    int
}

// keepRingSlots is the ring size kept when the ring empties.
const keepRingSlots = 16

func (q *msgRing) len() int { return q.n }

func (q *msgRing) push(m []byte) {
	if q.n == len(q.buf) {
		grown := make([][]byte, max(keepRingSlots/2, 2*len(q.buf)))
		for i := range q.n {
			grown[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = m
	q.n++
}

func (q *msgRing) pop() ([]byte, bool) {
	if q.n == 0 {
		return nil, false
	}
	m := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	if q.n == 0 {
		q.head = 0
		if len(q.buf) > keepRingSlots {
			q.buf = nil
		}
	}
	return m, true
}

// chunkSize is the size of the buffers a lane's outgoing bytes are queued in.
const chunkSize = 32 << 10

// keepChunks is how many spare chunks a lane keeps for reuse.
const keepChunks = 8

// chunkQueue is a FIFO of bytes kept in fixed-size chunks, so queuing and
// writing reuse the same buffers instead of growing one. Not safe for
// concurrent use.
type chunkQueue struct {
	chunks [][]byte // chunks[head:] in order; only the last is still being filled
	head   int
	free   [][]byte
}

func (q *chunkQueue) empty() bool { return q.head == len(q.chunks) }

// write appends p.
func (q *chunkQueue) write(p []byte) {
	for len(p) > 0 {
		n := len(q.chunks)
		if q.empty() || len(q.chunks[n-1]) == cap(q.chunks[n-1]) {
			q.chunks = append(q.chunks, q.newChunk())
			n++
		}
		last := q.chunks[n-1]
		k := min(len(p), cap(last)-len(last))
		q.chunks[n-1] = append(last, p[:k]...)
		p = p[k:]
	}
}

// take removes and returns the oldest chunk; the caller gives it back with
// recycle once written.
func (q *chunkQueue) take() []byte {
	c := q.chunks[q.head]
	q.chunks[q.head] = nil
	q.head++
	if q.empty() {
		q.chunks, q.head = q.chunks[:0], 0
	}
	return c
}

// recycle keeps a written chunk for reuse.
func (q *chunkQueue) recycle(c []byte) {
	if len(q.free) < keepChunks {
		q.free = append(q.free, c[:0])
	}
}

func (q *chunkQueue) newChunk() []byte {
	if n := len(q.free); n > 0 {
		c := q.free[n-1]
		q.free = q.free[:n-1]
		return c
	}
	return make([]byte, 0, chunkSize)
}
