package condition

import (
	"errors"
	"net"
	"os"
	"sync"
	"time"
)

// PacketConn is a net.PacketConn whose packets go through a Link in each
// direction: put it under QUIC (quicnet's Config.WrapPacketConn, or
// quic.Transport{Conn: pc}) and the real protocol, congestion control
// included, meets the configured latency, loss and the rest.
//
// Writes: WriteTo never blocks; it pushes the packet into the outgoing Link,
// and a goroutine writes it to the underlying conn when it is due, on real
// timers (virtual under testing/synctest). Reads, when the incoming Config is
// not zero: a goroutine reads the underlying conn into the incoming Link and
// ReadFrom returns packets once they are due. With a zero Config a direction
// passes straight through.
//
// Conditioning one end only: a client that wraps its own socket and wants a
// round trip of R should either delay both directions by R/2 (out and in
// Configs with Latency R/2) or delay only its writes by R. Loss given on both
// Configs applies to each direction independently.
//
// Concurrency: safe for concurrent use. Buffers: WriteTo copies p.
type PacketConn struct {
	pc  net.PacketConn
	out *Link // nil: writes pass through
	in  *Link // nil: reads pass through

	mu           sync.Mutex
	closed       bool
	readDeadline time.Time
	readErr      error // the error that ended the read pump

	outWake chan struct{} // a packet was pushed out
	inWake  chan struct{} // a packet came in, or the deadline changed
	done    chan struct{} // closed by Close

	outDone sync.WaitGroup
	inDone  sync.WaitGroup
}

// NewPacketConn wraps pc: out conditions what is written, in what is read. A
// zero Config leaves that direction untouched. The PacketConn owns pc from
// now on and closes it on Close. It refuses Configs that Validate refuses
// (and then leaves pc to the caller).
func NewPacketConn(pc net.PacketConn, out, in Config) (*PacketConn, error) {
	if err := out.Validate(); err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	c := &PacketConn{
		pc:      pc,
		outWake: make(chan struct{}, 1),
		inWake:  make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	if out != (Config{}) {
		c.out, _ = NewLink(out) // validated above
		c.outDone.Add(1)
		go c.deliver()
	}
	if in != (Config{}) {
		c.in, _ = NewLink(in)
		c.inDone.Add(1)
		go c.pump()
	}
	return c, nil
}

// Stats returns the counters of the outgoing and incoming Links (zero for a
// direction that passes through).
func (c *PacketConn) Stats() (out, in Stats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.out != nil {
		out = c.out.Stats()
	}
	if c.in != nil {
		in = c.in.Stats()
	}
	return out, in
}

// WriteTo queues p for addr through the outgoing Link and returns len(p); a
// packet the Link loses still counts as written, as on a real network.
func (c *PacketConn) WriteTo(p []byte, addr net.Addr) (int, error) {
	if c.out == nil {
		return c.pc.WriteTo(p, addr)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return 0, net.ErrClosed
	}
	c.out.Push(time.Now(), p, addr)
	c.mu.Unlock()
	signal(c.outWake)
	return len(p), nil
}

// ReadFrom returns the next packet that is due, waiting for one, for the read
// deadline or for Close.
func (c *PacketConn) ReadFrom(p []byte) (int, net.Addr, error) {
	if c.in == nil {
		return c.pc.ReadFrom(p)
	}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return 0, nil, net.ErrClosed
		}
		now := time.Now()
		if pkt, addr, ok := c.in.Pop(now); ok {
			n := copy(p, pkt)
			next, more := c.in.Next()
			c.mu.Unlock()
			if more && !next.After(now) {
				signal(c.inWake) // let another reader take it
			}
			return n, addr, nil
		}
		if c.readErr != nil && c.in.Len() == 0 {
			err := c.readErr
			c.mu.Unlock()
			return 0, nil, err
		}
		wake, ok := c.in.Next()
		if dl := c.readDeadline; !dl.IsZero() {
			if !now.Before(dl) {
				c.mu.Unlock()
				return 0, nil, os.ErrDeadlineExceeded
			}
			if !ok || dl.Before(wake) {
				wake, ok = dl, true
			}
		}
		c.mu.Unlock()

		var tick <-chan time.Time
		if ok {
			if timer == nil {
				timer = time.NewTimer(wake.Sub(now))
			} else {
				timer.Reset(wake.Sub(now))
			}
			tick = timer.C
		}
		select {
		case <-tick:
		case <-c.inWake:
		case <-c.done:
		}
	}
}

// Close stops conditioning: packets already written are sent at once
// (ignoring the rest of their delay, so a last CONNECTION_CLOSE still
// leaves), then the underlying conn is closed. Later calls return nil.
func (c *PacketConn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	close(c.done)
	c.outDone.Wait()
	err := c.pc.Close()
	c.inDone.Wait()
	return err
}

// LocalAddr returns the underlying conn's address.
func (c *PacketConn) LocalAddr() net.Addr { return c.pc.LocalAddr() }

// SetDeadline sets the read deadline (writes never block).
func (c *PacketConn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

// SetReadDeadline makes ReadFrom return os.ErrDeadlineExceeded once t has
// passed; the zero time means no deadline.
func (c *PacketConn) SetReadDeadline(t time.Time) error {
	if c.in == nil {
		return c.pc.SetReadDeadline(t)
	}
	c.mu.Lock()
	c.readDeadline = t
	c.mu.Unlock()
	signal(c.inWake)
	return nil
}

// SetWriteDeadline does nothing: WriteTo never blocks.
func (c *PacketConn) SetWriteDeadline(time.Time) error { return nil }

// SetReadBuffer sets the underlying conn's receive buffer, when it has one
// (as *net.UDPConn does), so QUIC can size it.
func (c *PacketConn) SetReadBuffer(bytes int) error {
	if b, ok := c.pc.(interface{ SetReadBuffer(int) error }); ok {
		return b.SetReadBuffer(bytes)
	}
	return errors.ErrUnsupported
}

// SetWriteBuffer sets the underlying conn's send buffer, when it has one.
func (c *PacketConn) SetWriteBuffer(bytes int) error {
	if b, ok := c.pc.(interface{ SetWriteBuffer(int) error }); ok {
		return b.SetWriteBuffer(bytes)
	}
	return errors.ErrUnsupported
}

// deliver writes outgoing packets to the underlying conn when they are due,
// and all that remain once the conn closes.
func (c *PacketConn) deliver() {
	defer c.outDone.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		c.mu.Lock()
		closed := c.closed
		now := time.Now()
		if closed {
			now = endOfTime // flush what is left
		}
		for {
			p, addr, ok := c.out.Pop(now)
			if !ok {
				break
			}
			// p stays valid until the next Pop, which only this goroutine makes.
			c.mu.Unlock()
			_, _ = c.pc.WriteTo(p, addr) // a failed send is a lost packet
			c.mu.Lock()
		}
		next, ok := c.out.Next()
		c.mu.Unlock()
		if closed {
			return
		}
		var tick <-chan time.Time
		if ok {
			timer.Reset(next.Sub(now))
			tick = timer.C
		}
		select {
		case <-tick:
		case <-c.outWake:
		case <-c.done:
		}
	}
}

// pump reads the underlying conn into the incoming Link until it fails.
func (c *PacketConn) pump() {
	defer c.inDone.Done()
	buf := make([]byte, 64<<10)
	for {
		n, addr, err := c.pc.ReadFrom(buf)
		c.mu.Lock()
		if err != nil {
			c.readErr = err
			c.mu.Unlock()
			signal(c.inWake)
			return
		}
		c.in.Push(time.Now(), buf[:n], addr)
		c.mu.Unlock()
		signal(c.inWake)
	}
}

// endOfTime is later than any packet's delivery time.
var endOfTime = time.Unix(1<<40, 0)

// signal wakes the waiter on ch without blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Wrap returns a function that wraps a socket in a PacketConn with the given
// conditions, in the form quicnet's Config.WrapPacketConn takes:
//
//	quicnet.Config{WrapPacketConn: condition.Wrap(out, condition.Config{})}
func Wrap(out, in Config) func(net.PacketConn) (net.PacketConn, error) {
	return func(pc net.PacketConn) (net.PacketConn, error) {
		c, err := NewPacketConn(pc, out, in)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
}
