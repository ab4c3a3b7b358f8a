package quicnet

import (
	"errors"
	"net"

	"github.com/tandem-go/tandem/net/transport"
)

// SendDatagram copies p into the outgoing queue; the sender goroutine hands
// it to QUIC. It never blocks: with the queue full (Config.DatagramQueue) the
// datagram is dropped, counted, and transport.ErrSendQueueFull returned.
// Steady state allocates nothing here (quic-go copies once more).
func (c *Conn) SendDatagram(p []byte) error {
	if len(p) > transport.MaxDatagramSize {
		return transport.ErrDatagramTooLarge
	}
	c.mu.Lock()
	if c.closedLocked() {
		c.mu.Unlock()
		return transport.ErrClosed
	}
	if c.dgOut.full() {
		c.stats.DatagramsDropped++
		c.mu.Unlock()
		return transport.ErrSendQueueFull
	}
	c.dgOut.pushCopy(p)
	c.mu.Unlock()
	signal(c.dgWake)
	return nil
}

// RecvDatagram returns the next received datagram, or ok == false.
func (c *Conn) RecvDatagram() ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closedLocked() {
		return nil, false
	}
	p, ok := c.dgIn.pop()
	if !ok {
		return nil, false
	}
	c.stats.DatagramsReceived++
	c.stats.BytesReceived += uint64(len(p))
	return p, true
}

// receiveDatagrams moves datagrams from quic-go (which keeps only 128 and
// drops the rest silently) into the bounded incoming queue, dropping and
// counting what does not fit or is larger than transport.MaxDatagramSize.
func (c *Conn) receiveDatagrams() {
	defer c.wg.Done()
	for {
		p, err := c.qc.ReceiveDatagram(c.ctx)
		if err != nil {
			return // the connection closed
		}
		c.mu.Lock()
		if len(p) > transport.MaxDatagramSize || c.dgIn.full() {
			c.stats.DatagramsDropped++
			c.mu.Unlock()
			continue
		}
		c.dgIn.push(p)
		c.mu.Unlock()
		signal(c.arrived)
	}
}

// sendDatagrams hands queued datagrams to quic-go, whose SendDatagram blocks
// while its own 32-datagram queue is full (congestion): this goroutine waits
// there, not the caller.
func (c *Conn) sendDatagrams() {
	defer c.wg.Done()
	scratch := make([]byte, transport.MaxDatagramSize)
	for {
		select {
		case <-c.dgWake:
		case <-c.ctx.Done():
			return
		}
		for {
			c.mu.Lock()
			n, ok := c.dgOut.popInto(scratch)
			c.mu.Unlock()
			if !ok {
				break
			}
			err := c.qc.SendDatagram(scratch[:n])
			c.mu.Lock()
			if err == nil {
				c.stats.DatagramsSent++
				c.stats.BytesSent += uint64(n)
			} else {
				// Too large for the path right now (quic-go's estimate shrank), or
				// the connection closed: the datagram is lost.
				c.stats.DatagramsDropped++
			}
			c.mu.Unlock()
			if err != nil && (errors.Is(err, net.ErrClosed) || c.ctx.Err() != nil) {
				return
			}
		}
	}
}

// ring is a bounded FIFO of datagrams. Not safe for concurrent use.
type ring struct {
	slots     [][]byte
	head, len int
}

func newRing(capacity int) ring { return ring{slots: make([][]byte, capacity)} }

func (r *ring) full() bool { return r.len == len(r.slots) }

// push stores p itself (the ring takes it over).
func (r *ring) push(p []byte) {
	r.slots[(r.head+r.len)%len(r.slots)] = p
	r.len++
}

// pushCopy copies p into the slot's own buffer, reusing it.
func (r *ring) pushCopy(p []byte) {
	i := (r.head + r.len) % len(r.slots)
	buf := r.slots[i]
	if cap(buf) < len(p) {
		buf = make([]byte, 0, transport.MaxDatagramSize)
	}
	r.slots[i] = append(buf[:0], p...)
	r.len++
}

// pop removes and returns the oldest datagram, forgetting it.
func (r *ring) pop() ([]byte, bool) {
	if r.len == 0 {
		return nil, false
	}
	p := r.slots[r.head]
	r.slots[r.head] = nil
	r.head = (r.head + 1) % len(r.slots)
	r.len--
	return p, true
}

// popInto copies the oldest datagram into dst and keeps the slot's buffer.
func (r *ring) popInto(dst []byte) (int, bool) {
	if r.len == 0 {
		return 0, false
	}
	n := copy(dst, r.slots[r.head])
	r.head = (r.head + 1) % len(r.slots)
	r.len--
	return n, true
}
