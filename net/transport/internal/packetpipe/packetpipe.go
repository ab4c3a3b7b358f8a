// Package packetpipe connects two in-memory net.PacketConns, so real QUIC can
// run inside testing/synctest, where time is virtual and a goroutine blocked on
// a real socket would stop the clock. Put the link conditioner
// (net/transport/condition) on top for latency and loss. Test support for the
// transport packages.
package packetpipe

import (
	"net"
	"os"
	"sync"
	"time"
)

// queueLen is how many packets a conn holds unread before it drops more, as
// a UDP socket's receive buffer would.
const queueLen = 4096

// New returns two connected conns, at 10.0.0.1:1 and 10.0.0.2:1 (UDP
// addresses, as QUIC expects): what one writes, to any address, the other
// reads, from the writer's address.
func New() (a, b *Conn) {
	a = newConn(&net.UDPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 1})
	b = newConn(&net.UDPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 1})
	a.peer, b.peer = b, a
	return a, b
}

// Conn is one end of a pipe. Safe for concurrent use; WriteTo copies p and
// never blocks (a full peer queue drops the packet).
type Conn struct {
	addr *net.UDPAddr
	peer *Conn
	in   chan []byte

	mu        sync.Mutex
	deadline  time.Time
	dlChanged chan struct{}

	closeOnce sync.Once
	closed    chan struct{}
}

func newConn(addr *net.UDPAddr) *Conn {
	return &Conn{addr: addr, in: make(chan []byte, queueLen), dlChanged: make(chan struct{}, 1), closed: make(chan struct{})}
}

// WriteTo sends a copy of p to the peer.
func (c *Conn) WriteTo(p []byte, _ net.Addr) (int, error) {
	select {
	case <-c.closed:
		return 0, net.ErrClosed
	default:
	}
	select {
	case c.peer.in <- append([]byte(nil), p...):
	default: // the peer's queue is full: lost
	}
	return len(p), nil
}

// ReadFrom waits for the next packet, the read deadline or Close.
func (c *Conn) ReadFrom(p []byte) (int, net.Addr, error) {
	for {
		c.mu.Lock()
		dl := c.deadline
		c.mu.Unlock()
		var timer *time.Timer
		var expired <-chan time.Time
		if !dl.IsZero() {
			d := time.Until(dl)
			if d <= 0 {
				return 0, nil, os.ErrDeadlineExceeded
			}
			timer = time.NewTimer(d)
			expired = timer.C
		}
		select {
		case pkt := <-c.in:
			stop(timer)
			return copy(p, pkt), c.peer.addr, nil
		case <-c.closed:
			stop(timer)
			return 0, nil, net.ErrClosed
		case <-c.dlChanged:
		case <-expired:
		}
		stop(timer)
	}
}

// Close makes reads and writes fail with net.ErrClosed.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// LocalAddr returns the conn's address.
func (c *Conn) LocalAddr() net.Addr { return c.addr }

// SetDeadline sets the read deadline.
func (c *Conn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

// SetReadDeadline makes ReadFrom return os.ErrDeadlineExceeded after t.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	select {
	case c.dlChanged <- struct{}{}:
	default:
	}
	return nil
}

// SetWriteDeadline does nothing: writes never block.
func (c *Conn) SetWriteDeadline(time.Time) error { return nil }

func stop(t *time.Timer) {
	if t != nil {
		t.Stop()
	}
}
