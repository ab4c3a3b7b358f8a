package tandemtest

import (
	"net"
	"sync"
	"sync/atomic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// Cut breaks client c's connection to the host as a network that stops
// carrying anything would (a cable pulled, a phone out of reach): from now
// on no packet of the sockets it dialed so far goes or arrives, and nothing
// closes. Both sides find out as they would over such a network: the
// client within about 5 s (its acknowledgements stop, or its transport's
// idle timeout), the host by its own idle timeout or when the client comes
// back. A client with a way to dial again (a Loopback's does) dials on a
// new socket, which carries packets, and resumes its peer within the host's
// grace window: a test of a game's reconnection over real QUIC. The test
// fails if c is not one of the Loopback's clients.
func (lb *Loopback[I]) Cut(c *tandem.Client[I]) {
	lb.t.Helper()
	lb.mu.Lock()
	s := lb.sockets[c]
	lb.mu.Unlock()
	if s == nil {
		lb.t.Fatal("tandemtest: Cut of a client this Loopback did not join")
	}
	s.cut()
}

// sockets are the UDP sockets a Loopback client's dials opened.
type sockets struct {
	toHost, toClient condition.Config // each socket's network (JoinOver)
	mu               sync.Mutex
	open             []*cuttable
}

// wrap is the client's quicnet.Config.WrapPacketConn: it keeps each socket
// a dial opens, to cut it, conditioned by the links if they are not zero.
func (s *sockets) wrap(pc net.PacketConn) (net.PacketConn, error) {
	if s.toHost != (condition.Config{}) || s.toClient != (condition.Config{}) {
		out, in := waysApart(s.toHost, s.toClient)
		cp, err := condition.NewPacketConn(pc, out, in)
		if err != nil {
			return nil, err
		}
		pc = cp
	}
	c := &cuttable{PacketConn: pc}
	s.mu.Lock()
	s.open = append(s.open, c)
	s.mu.Unlock()
	return c, nil
}

// waysApart returns the two ways' links with their seeds drawn apart (2s
// and 2s+1, as the in-memory network does), so that one link given for both
// ways does not lose and delay the same packets each way.
func waysApart(toHost, toClient condition.Config) (out, in condition.Config) {
	toHost.Seed *= 2
	toClient.Seed = toClient.Seed*2 + 1
	return toHost, toClient
}

// cut cuts every socket opened so far.
func (s *sockets) cut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.open {
		c.dark.Store(true)
	}
}

// cuttable is a UDP socket that carries nothing once cut: what is written
// is dropped, what arrives is read and dropped.
type cuttable struct {
	net.PacketConn
	dark atomic.Bool
}

func (c *cuttable) ReadFrom(p []byte) (int, net.Addr, error) {
	for {
		n, addr, err := c.PacketConn.ReadFrom(p)
		if err != nil || !c.dark.Load() {
			return n, addr, err
		}
	}
}

func (c *cuttable) WriteTo(p []byte, addr net.Addr) (int, error) {
	if c.dark.Load() {
		return len(p), nil
	}
	return c.PacketConn.WriteTo(p, addr)
}

// SetReadBuffer and SetWriteBuffer pass through to the socket, which
// quic-go sizes through them.
func (c *cuttable) SetReadBuffer(n int) error {
	if s, ok := c.PacketConn.(interface{ SetReadBuffer(int) error }); ok {
		return s.SetReadBuffer(n)
	}
	return nil
}

func (c *cuttable) SetWriteBuffer(n int) error {
	if s, ok := c.PacketConn.(interface{ SetWriteBuffer(int) error }); ok {
		return s.SetWriteBuffer(n)
	}
	return nil
}
