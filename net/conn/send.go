package conn

import (
	"errors"
	"fmt"
	"time"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

var errWriterTruncated = errors.New("conn: the message writer was truncated below the message's start; write only after Begin")

// Queue adds a message of kind (a datagram kind) to this tick's datagrams; it
// leaves at the next Flush. payload is copied. tok (0 for none) is listed in
// the Notice of the datagram that carries the message. It returns
// ErrBadKind, ErrMessageTooLarge (payload over MaxMessageSize), ErrQueueFull
// (past Config.MaxQueuedBytes), ErrMessageOpen or ErrClosed, and queues
// nothing then.
func (c *Conn) Queue(kind wire.Kind, payload []byte, tok Token) error {
	switch {
	case c.closed:
		return c.closedErr()
	case c.open:
		return ErrMessageOpen
	case !kind.IsDatagram():
		return ErrBadKind
	case len(payload) > MaxMessageSize:
		return ErrMessageTooLarge
	}
	size := wire.MessageOverhead(len(payload)) + len(payload)
	if len(c.queue)+size > c.cfg.MaxQueuedBytes {
		c.counts.QueueFull++
		return ErrQueueFull
	}
	c.queue = wire.AppendMessage(c.queue, kind, payload)
	c.addMsg(size, tok)
	return nil
}

// Begin starts a message of kind whose payload the caller writes straight
// into the tick's queue with the returned Writer, then ends with Commit (or
// Abort). Nothing is copied and nothing allocated while the payload stays
// within MaxMessageSize. The Writer is valid until Commit or Abort; only
// append to it. Errors as for Queue.
func (c *Conn) Begin(kind wire.Kind, tok Token) (*wire.Writer, error) {
	switch {
	case c.closed:
		return nil, c.closedErr()
	case c.open:
		return nil, ErrMessageOpen
	case !kind.IsDatagram():
		return nil, ErrBadKind
	}
	c.open = true
	c.openStart = len(c.queue)
	c.openTok = tok
	// Kind and two bytes for the length; Commit packs short lengths in one.
	c.queue = append(c.queue, byte(kind), 0, 0)
	c.w.Reset(c.queue)
	return &c.w, nil
}

// Commit ends the message begun with Begin and queues it. A payload over
// MaxMessageSize (ErrMessageTooLarge) or a queue past
// Config.MaxQueuedBytes (ErrQueueFull) drops the message.
func (c *Conn) Commit() error {
	if !c.open {
		return ErrNoMessage
	}
	c.open = false
	buf := c.w.Bytes()
	c.w.Reset(nil)
	start := c.openStart
	n := len(buf) - start - 3
	switch {
	case n < 0:
		c.queue = buf[:min(start, len(buf))]
		return errWriterTruncated
	case n > MaxMessageSize:
		c.queue = buf[:start]
		return ErrMessageTooLarge
	}
	size := wire.MessageOverhead(n) + n
	if start+size > c.cfg.MaxQueuedBytes {
		c.queue = buf[:start]
		c.counts.QueueFull++
		return ErrQueueFull
	}
	if n < 0x80 {
		buf[start+1] = byte(n)
		copy(buf[start+2:], buf[start+3:])
	} else {
		buf[start+1] = byte(n) | 0x80
		buf[start+2] = byte(n >> 7)
	}
	c.queue = buf[:start+size]
	c.addMsg(size, c.openTok)
	return nil
}

// Abort drops the message begun with Begin.
func (c *Conn) Abort() error {
	if !c.open {
		return ErrNoMessage
	}
	c.open = false
	buf := c.w.Bytes()
	c.w.Reset(nil)
	c.queue = buf[:min(c.openStart, len(buf))]
	return nil
}

// addMsg records a message of size bytes just appended to the queue and
// updates the estimate of the datagrams the queue takes.
func (c *Conn) addMsg(size int, tok Token) {
	c.msgs = append(c.msgs, queuedMsg{end: len(c.queue), tok: tok})
	const room = transport.MaxDatagramSize - wire.MaxHeaderSize
	if c.estDgrams == 0 || c.estFill+size > room {
		c.estDgrams++
		c.estFill = size
	} else {
		c.estFill += size
	}
}

// QueuedBytes returns the bytes of messages queued since the last Flush,
// framing included.
func (c *Conn) QueuedBytes() int { return len(c.queue) }

// QueuedMessages returns the number of messages queued since the last Flush.
func (c *Conn) QueuedMessages() int { return len(c.msgs) }

// reorderWindow returns the current reorder window: 4 × RTT variance within
// the configured bounds.
func (c *Conn) reorderWindow() time.Duration {
	return min(max(4*c.rtt.variance, c.cfg.MinReorderWindow), c.cfg.MaxReorderWindow)
}

// probeTimeout returns how long after the last numbered datagram a probe
// goes when datagrams are in flight: srtt + 4·rttvar + the peer's ack delay,
// never less than the reorder window (so a probe can settle what came
// before it), doubled for each probe since the last progress.
func (c *Conn) probeTimeout() time.Duration {
	return c.answerTime() << min(c.probes, maxProbeBackoff)
}

// answerTime is the longest the peer's answer to a datagram should take:
// a round trip, its variance, the peer's ack delay and the reorder window.
func (c *Conn) answerTime() time.Duration {
	pto := c.rtt.smoothed + max(4*c.rtt.variance, time.Millisecond) + c.cfg.PeerAckDelay
	return max(pto, c.reorderWindow()+time.Millisecond)
}

// silentPad is the size numbered datagrams are padded to while the peer is
// silent (nothing from it for answerTime): a QUIC packet carrying one is
// then past the 42 bytes under which a QUIC stack sends no stateless reset,
// so a host restarted on the same address with the same reset key ends the
// old connection at its next datagram, however small the game's messages
// (a held input, with version 9's repeats, is a few bytes).
const silentPad = 48

// padding is silentPad zero bytes: a datagram's padding (PROTOCOL.md §3.3).
var padding [silentPad]byte

// SetKeepAlive sets Config.KeepAlive from now on: d > 0 probes after d with
// nothing numbered sent, 0 stops it. (A session spectator sets it once it
// plays.)
func (c *Conn) SetKeepAlive(d time.Duration) { c.cfg.KeepAlive = max(d, 0) }

// Flush sends the messages queued since the last Flush in as few datagrams
// as fit, each numbered and the first carrying the acknowledgement of what
// this side received. With nothing queued it sends an ack-only datagram if
// something arrived that is not yet acknowledged (after Config.AckDelay), a
// probe if datagrams are in flight and nothing was sent for the probe
// timeout (or, with Config.KeepAlive, nothing numbered for that long), and
// otherwise nothing. Call it once per tick.
//
// A full transport send queue drops the datagram (it is reported lost in due
// course) and is not an error. It returns ErrMessageOpen while a message is
// begun, and the close cause when the connection closes.
func (c *Conn) Flush() error {
	if c.closed {
		return c.closedErr()
	}
	if c.open {
		return ErrMessageOpen
	}
	now := c.now()
	c.budget.refill(now)
	c.advanceReorderFloor(now)

	h := &c.hdr
	hasAck := c.recv.frame(&h.Ack, now)
	ackWanted := hasAck && (c.recv.pending || c.recv.repeats > 0)
	ackPlaced := false
	probe := len(c.msgs) == 0 && c.inFlight > 0 && now-c.lastNumberedAt >= c.probeTimeout()
	if ka := c.cfg.KeepAlive; ka > 0 && len(c.msgs) == 0 && now-c.lastNumberedAt >= ka {
		probe = true
	}

	for i := 0; i < len(c.msgs) || probe; {
		if c.next-c.floor >= wire.AckWindow {
			c.fail(ErrUnresponsive)
			return c.err
		}
		if c.next >= packetLimit {
			c.fail(&LimitError{Limit: "packet numbers", Max: packetLimit, Got: int(c.next)})
			return c.err
		}
		h.Numbered = true
		h.Packet = c.next
		h.Floor = c.floor
		h.ReorderFloor = max(c.reorderFloor, c.next-min(c.next, wire.AckWindow-1))
		h.HasAck = false
		base := h.Size()
		room := transport.MaxDatagramSize - base
		if ackWanted && !ackPlaced {
			h.HasAck = true
			ackSize := h.Size() - base
			if i == len(c.msgs) || c.msgSize(i) <= room-ackSize {
				room -= ackSize
				ackPlaced = true
				c.lastAckSize = ackSize
			} else {
				h.HasAck = false
			}
		}
		b, err := h.Append(c.dgram[:0])
		if err != nil { // unreachable: the header is built within its limits
			c.fail(fmt.Errorf("conn: internal error, a header out of its limits: %w", err))
			return c.err
		}
		j, ntok := i, 0
		for j < len(c.msgs) && c.msgSize(j) <= room && j-i < c.cfg.MaxMessagesPerDatagram {
			room -= c.msgSize(j)
			if c.msgs[j].tok != 0 {
				ntok++
			}
			j++
		}
		slot := &c.sent[c.next%wire.AckWindow]
		slot.tokStart = c.reserveTokens(ntok)
		slot.tokLen = ntok
		toks := c.toks.buf[slot.tokStart : slot.tokStart+ntok]
		for k, n := i, 0; k < j; k++ {
			if t := c.msgs[k].tok; t != 0 {
				toks[n] = t
				n++
			}
		}
		b = append(b, c.queue[c.msgStart(i):c.msgStart(j)]...)
		if i == j {
			c.counts.ProbesSent++
			c.probes++
		}
		if len(b) < silentPad && now-c.heardAt >= c.answerTime() {
			b = append(b, padding[:silentPad-len(b)]...)
			c.counts.PaddedSent++
		}
		slot.state = stateInFlight
		slot.sentAt = now
		slot.reorderFloor = h.ReorderFloor
		slot.size = len(b)
		c.next++
		c.inFlight++
		c.counts.PacketsSent++
		c.lastNumberedAt = now
		i = j
		probe = false
		if !c.send(b, now) {
			return c.err
		}
	}
	c.queue, c.msgs = c.queue[:0], c.msgs[:0]
	c.estDgrams, c.estFill = 0, 0

	if c.recv.pending && !ackPlaced && hasAck && now-c.recv.pendingSince >= c.cfg.AckDelay {
		h.Numbered = false
		h.HasAck = true
		b, err := h.Append(c.dgram[:0])
		if err != nil { // unreachable: the frame is built within its limits
			c.fail(fmt.Errorf("conn: internal error, an ack frame out of its limits: %w", err))
			return c.err
		}
		ackPlaced = true
		c.lastAckSize = len(b) - 1
		c.counts.AckOnlySent++
		if !c.send(b, now) {
			return c.err
		}
	}
	if ackPlaced {
		if c.recv.pending {
			c.recv.pending = false
			c.recv.repeats = ackRepeats
		} else if c.recv.repeats > 0 {
			c.recv.repeats--
		}
	}
	return nil
}

// msgStart returns where message i starts in the queue.
func (c *Conn) msgStart(i int) int {
	if i == 0 {
		return 0
	}
	return c.msgs[i-1].end
}

// msgSize returns the encoded size of message i.
func (c *Conn) msgSize(i int) int { return c.msgs[i].end - c.msgStart(i) }

// advanceReorderFloor moves the reorder floor past every packet sent more
// than the reorder window before now. It only ever moves forward, so the
// ReorderFloor of successive packets never decreases.
func (c *Conn) advanceReorderFloor(now time.Duration) {
	win := c.reorderWindow()
	if lo := c.next - min(c.next, wire.AckWindow-1); c.reorderFloor < lo {
		c.reorderFloor = lo
	}
	for c.reorderFloor < c.next && c.sent[c.reorderFloor%wire.AckWindow].sentAt < now-win {
		c.reorderFloor++
	}
}

// send hands a datagram to the transport and counts it. It returns false
// when the transport is closed (the Conn is closed then).
func (c *Conn) send(b []byte, now time.Duration) bool {
	err := c.tc.SendDatagram(b)
	switch {
	case err == nil:
		c.counts.DatagramsSent++
		c.counts.BytesSent += uint64(len(b))
		c.counts.WireBytesSent += uint64(len(b) + c.cfg.DatagramOverhead)
		c.bytesOut.add(now, uint64(len(b)))
		c.pktsOut.add(now, 1)
		c.budget.spend(len(b))
		return true
	case errors.Is(err, transport.ErrClosed):
		c.shutdown(transport.CloseNormal, "", nil)
		return false
	}
	// Queue full (or refused): the datagram is dropped; a numbered one is
	// settled as lost by the acknowledgement rules like any other loss.
	c.counts.SendDropped++
	return true
}
