package quicnet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"

	"github.com/quic-go/quic-go"

	"github.com/tandem-go/tandem/net/transport"
)

// ErrNoDatagrams is returned when the peer's QUIC does not support datagrams
// (RFC 9221); such a peer is not a Tandem peer.
var ErrNoDatagrams = errors.New("quicnet: the peer does not support QUIC datagrams; it must enable them (RFC 9221)")

// maxReasonBytes bounds the close reason sent to the peer, so it fits the
// CONNECTION_CLOSE frame.
const maxReasonBytes = 256

// Conn is one QUIC connection to a peer. It implements transport.Conn.
//
// Concurrency: all methods are safe for concurrent use; none blocks on the
// network except Close, which waits for the connection's goroutines to end.
// Buffers: Send methods copy. RecvDatagram returns a fresh slice (quic-go
// allocates one per datagram); RecvMessage returns a slice that the next
// RecvMessage call may reuse, as transport.Conn says.
type Conn struct {
	qc  *quic.Conn
	ctx context.Context // qc.Context(): done once the connection closed
	ep  *endpoint
	cfg *Config
	log *slog.Logger

	arrived  chan struct{} // a datagram or message was queued for the caller
	dgWake   chan struct{} // a datagram was queued for sending
	finished chan struct{} // closed once every goroutine ended
	wg       sync.WaitGroup

	mu    sync.Mutex
	err   error // set once the connection closes; guards wg.Add
	dgIn  ring  // received datagrams (quic-go's fresh slices)
	dgOut ring  // datagrams to send (owned, reused buffers)
	lanes [transport.NumLanes]lane
	stats transport.Stats // counters only; the rest comes from quic-go

	lastMsg      []byte   // returned by the last RecvMessage, reused by the next
	msgFree      [][]byte // message buffers to reuse
	msgFreeBytes int      // their capacity in all
	admitted     bool     // the configured receive limits apply (see Admit)
}

var _ transport.Conn = (*Conn)(nil)

// newConn takes over an established QUIC connection and a reference on its
// endpoint (released when the connection ends). A connection a listener
// accepted starts unadmitted (see Admit), a dialed one admitted.
func newConn(qc *quic.Conn, ep *endpoint, cfg *Config, admitted bool) (*Conn, error) {
	if !qc.ConnectionState().SupportsDatagrams.Remote {
		_ = qc.CloseWithError(quic.ApplicationErrorCode(transport.CloseProtocol), ErrNoDatagrams.Error())
		ep.release()
		return nil, ErrNoDatagrams
	}
	c := &Conn{
		qc:       qc,
		ctx:      qc.Context(),
		ep:       ep,
		cfg:      cfg,
		log:      cfg.Logger,
		arrived:  make(chan struct{}, 1),
		dgWake:   make(chan struct{}, 1),
		finished: make(chan struct{}),
		dgIn:     newRing(cfg.DatagramQueue),
		dgOut:    newRing(cfg.DatagramQueue),
		admitted: admitted,
	}
	for i := range c.lanes {
		c.lanes[i].wake = make(chan struct{}, 1)
		c.lanes[i].room = make(chan struct{}, 1)
	}
	c.wg.Add(3)
	go c.receiveDatagrams()
	go c.sendDatagrams()
	go c.acceptLanes()
	go c.supervise()
	return c, nil
}

// supervise waits for the connection to close, then for every goroutine, and
// releases the endpoint.
func (c *Conn) supervise() {
	<-c.ctx.Done()
	c.mu.Lock()
	c.setErrLocked()
	c.mu.Unlock()
	c.wg.Wait()
	c.ep.release()
	close(c.finished)
}

// setErrLocked records why the connection closed, unless already known.
func (c *Conn) setErrLocked() {
	if c.err == nil {
		c.err = closeError(context.Cause(c.ctx))
	}
}

// closedLocked reports whether the connection is closed or closing.
func (c *Conn) closedLocked() bool {
	if c.err != nil {
		return true
	}
	if c.ctx.Err() != nil {
		c.setErrLocked()
		return true
	}
	return false
}

// closeError turns quic-go's reason for a closed connection into the
// transport's.
func closeError(err error) error {
	if ae, ok := errors.AsType[*quic.ApplicationError](err); ok {
		return &transport.CloseError{Code: transport.CloseCode(ae.ErrorCode), Reason: ae.ErrorMessage, Remote: ae.Remote}
	}
	if _, ok := errors.AsType[*quic.StatelessResetError](err); ok {
		return fmt.Errorf("quicnet: %w (a QUIC stateless reset arrived)", transport.ErrReset)
	}
	if _, ok := errors.AsType[*quic.IdleTimeoutError](err); ok {
		return &transport.CloseError{Code: transport.CloseTimeout, Reason: "nothing received from the peer within the idle timeout", Cause: err}
	}
	return fmt.Errorf("quicnet: connection lost: %w", err)
}

// Close closes the connection with code and reason (cut to 256 bytes), which
// the peer receives in its CloseError, and waits for the connection's
// goroutines to end. Later calls do nothing.
func (c *Conn) Close(code transport.CloseCode, reason string) error {
	if len(reason) > maxReasonBytes {
		reason = reason[:maxReasonBytes]
	}
	c.mu.Lock()
	if c.err == nil && c.ctx.Err() == nil {
		c.err = &transport.CloseError{Code: code, Reason: reason}
	}
	c.mu.Unlock()
	_ = c.qc.CloseWithError(quic.ApplicationErrorCode(code), reason)
	<-c.finished
	return nil
}

// violate closes the connection because the peer broke the protocol; cause
// says how and wraps the transport's sentinel error.
func (c *Conn) violate(code transport.CloseCode, cause error) {
	reason := cause.Error()
	if len(reason) > maxReasonBytes {
		reason = reason[:maxReasonBytes]
	}
	c.mu.Lock()
	first := !c.closedLocked()
	if first {
		c.err = &transport.CloseError{Code: code, Reason: reason, Cause: cause}
	}
	c.mu.Unlock()
	if !first {
		return
	}
	c.log.Warn("quicnet: disconnecting a peer that broke the protocol", "peer", c.qc.RemoteAddr(), "code", code, "err", cause)
	_ = c.qc.CloseWithError(quic.ApplicationErrorCode(code), reason)
}

// Done is closed once the connection has closed and its goroutines ended.
func (c *Conn) Done() <-chan struct{} { return c.finished }

// Err returns nil while the connection is open, then a
// *transport.CloseError (closed by either side, or idle timeout), or the
// error that broke the connection.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closedLocked() {
		return c.err
	}
	return nil
}

// Arrived returns a channel that receives a signal after datagrams or
// messages were queued for RecvDatagram or RecvMessage. One signal may stand
// for many arrivals: drain both until they report none. For callers that wait
// for data instead of polling once a tick.
func (c *Conn) Arrived() <-chan struct{} { return c.arrived }

// Stats returns this side's counters together with quic-go's RTT estimate
// and wire counters (QUIC packets and bytes, without UDP/IP headers).
func (c *Conn) Stats() transport.Stats {
	c.mu.Lock()
	s := c.stats
	c.mu.Unlock()
	qs := c.qc.ConnectionStats()
	s.RTT = qs.SmoothedRTT
	s.RTTVariance = qs.MeanDeviation
	s.WireBytesSent = qs.BytesSent
	s.WireBytesReceived = qs.BytesReceived
	s.WirePacketsSent = qs.PacketsSent
	s.WirePacketsLost = qs.PacketsLost
	return s
}

// RemoteAddr returns the peer's UDP address.
func (c *Conn) RemoteAddr() net.Addr { return c.qc.RemoteAddr() }

// PeerIdentity returns the fingerprint (Fingerprint) of the certificate the
// peer showed in the handshake: a dialed connection's host's; "" for a
// peer that showed none (a client, on the host's end). It implements
// transport.Identified.
func (c *Conn) PeerIdentity() string {
	certs := c.qc.ConnectionState().TLS.PeerCertificates
	if len(certs) == 0 {
		return ""
	}
	return Fingerprint(certs[0].Raw)
}

// LocalAddr returns this side's UDP address.
func (c *Conn) LocalAddr() net.Addr { return c.qc.LocalAddr() }

// signal wakes the waiter on ch without blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
