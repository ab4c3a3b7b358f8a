// Package transport moves bytes between a host and its peers: unreliable
// datagrams for state and inputs, and reliable ordered lanes for handshake,
// commands and joins.
//
// It sits under net/conn in the pipeline. It knows nothing of entities,
// packet numbers or acknowledgements: net/conn numbers datagrams and learns
// which arrived; this package only carries them. Two implementations exist: QUIC
// over quic-go (the real network) and an in-memory pipe (tests and tools). Both
// can be put behind the link conditioner, which adds latency, jitter, loss,
// duplication, reordering and a bandwidth cap.
//
// Threads: a Conn is used by one simulation goroutine that polls it once a tick
// (RecvDatagram, RecvMessage) and sends from it (SendDatagram, SendMessage).
// Implementations move bytes on goroutines of their own and hand them over
// through bounded queues; no method called by the simulation blocks on the
// network.
package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
	"unicode"
)

// MaxDatagramSize is the largest datagram payload, in bytes, that any Conn
// accepts. It fits a QUIC datagram frame on every path with a 1,280-byte MTU.
// Wire-affecting: both sides must agree.
const MaxDatagramSize = 1200

// Lane names a reliable ordered message stream of a connection. Each lane is its
// own QUIC stream, so a large join never holds up a command.
// Wire-affecting: the lane number is the first byte a stream carries.
type Lane uint8

const (
	// LaneControl carries the handshake, resume and session control messages.
	LaneControl Lane = 0
	// LaneCommands carries game commands and their receipts.
	LaneCommands Lane = 1
	// LaneJoin carries the pages of a world being joined.
	LaneJoin Lane = 2
	// NumLanes is the number of lanes; valid lanes are 0 to NumLanes-1.
	NumLanes = 3
)

// String returns the lane's name.
func (l Lane) String() string {
	switch l {
	case LaneControl:
		return "control"
	case LaneCommands:
		return "commands"
	case LaneJoin:
		return "join"
	}
	return fmt.Sprintf("lane(%d)", uint8(l))
}

// CloseCode says why a connection was closed. It travels to the peer.
// Wire-affecting: values are part of the protocol.
type CloseCode uint64

const (
	// CloseNormal is an orderly close by either side.
	CloseNormal CloseCode = 0
	// CloseProtocol means the peer sent something malformed.
	CloseProtocol CloseCode = 1
	// CloseLimit means the peer went past a limit (rate, size, queue).
	CloseLimit CloseCode = 2
	// CloseVersion means the peers speak different protocol versions, or
	// run different games or builds of one (their schemas differ).
	CloseVersion CloseCode = 3
	// CloseKicked means the host removed the peer by decision of the game.
	CloseKicked CloseCode = 4
	// CloseTimeout means the peer stopped answering.
	CloseTimeout CloseCode = 5
	// CloseJoinTooSlow means a join could not catch up with a changing world.
	CloseJoinTooSlow CloseCode = 6
	// CloseHostShutdown means the host is shutting down.
	CloseHostShutdown CloseCode = 7
	// CloseReplaced means the host bound the peer to a newer connection (it
	// resumed there); this one is over.
	CloseReplaced CloseCode = 8
	// CloseHostRestarting means the host is shutting down to start again
	// from its save: a client that can resume reconnects, as after a broken
	// connection, and resumes into the world the new host restored.
	CloseHostRestarting CloseCode = 9
)

// String returns the code's name.
func (c CloseCode) String() string {
	switch c {
	case CloseNormal:
		return "normal"
	case CloseProtocol:
		return "protocol violation"
	case CloseLimit:
		return "limit exceeded"
	case CloseVersion:
		return "version mismatch"
	case CloseKicked:
		return "kicked"
	case CloseTimeout:
		return "timeout"
	case CloseJoinTooSlow:
		return "join too slow"
	case CloseHostShutdown:
		return "host shutdown"
	case CloseReplaced:
		return "replaced"
	case CloseHostRestarting:
		return "host restarting"
	}
	return fmt.Sprintf("close code %d", uint64(c))
}

// CloseError is the error a closed Conn reports: who closed it, with what code
// and reason.
type CloseError struct {
	Code   CloseCode
	Reason string
	// Remote is true when the peer closed the connection, false when this side did.
	Remote bool
	// Cause is, for a connection this side closed because of what the peer
	// sent, the error that made it close (ErrMessageTooLarge, ErrBadLane,
	// ErrMalformed, ...), so errors.Is finds it. It does not travel to the peer.
	Cause error
}

// Unwrap returns Cause.
func (e *CloseError) Unwrap() error { return e.Cause }

// Error describes the close. A reason's characters that do not print (a
// newline, a control) are written '?': a peer's reason is its own text,
// and would otherwise forge lines of a log that prints the error.
func (e *CloseError) Error() string {
	side := "closed locally"
	if e.Remote {
		side = "closed by peer"
	}
	if e.Reason == "" {
		return fmt.Sprintf("transport: %s (%s)", side, e.Code)
	}
	return fmt.Sprintf("transport: %s (%s): %s", side, e.Code, printable(e.Reason))
}

// printable returns s with each character that does not print replaced by
// '?'.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return '?'
	}, s)
}

// Errors returned by Conn methods. Compare with errors.Is.
var (
	// ErrDatagramTooLarge: the datagram exceeds MaxDatagramSize; split the payload.
	ErrDatagramTooLarge = errors.New("transport: datagram larger than MaxDatagramSize; send less per datagram")
	// ErrSendQueueFull: the outgoing datagram queue is full and the datagram was
	// dropped (treat it as lost); the link is congested, send less.
	ErrSendQueueFull = errors.New("transport: datagram send queue full; the datagram was dropped, send less")
	// ErrMessageTooLarge: a lane message exceeds the configured maximum size.
	ErrMessageTooLarge = errors.New("transport: lane message larger than the maximum message size; split it or raise the limit on both sides")
	// ErrLaneQueueFull: the lane's outgoing queue holds its limit of bytes (or,
	// in memory, the peer's incoming queue holds its limit, or the peer is not
	// admitted yet); wait for Buffered to fall before sending more.
	ErrLaneQueueFull = errors.New("transport: lane send queue full; wait until Buffered falls")
	// ErrBadLane: the lane number is not below NumLanes.
	ErrBadLane = errors.New("transport: no such lane")
	// ErrClosed: the connection is closed; Err tells why.
	ErrClosed = errors.New("transport: connection closed")
	// ErrListenerClosed: Accept was called on a closed listener; Listen again
	// to accept connections.
	ErrListenerClosed = errors.New("transport: listener closed; Listen again to accept connections")
	// ErrReset: the peer no longer knows this connection: it restarted, or
	// dropped the connection without closing it, and said so with a QUIC
	// stateless reset. Connect again.
	ErrReset = errors.New("transport: the peer no longer knows this connection (it restarted or dropped it); connect again")
	// ErrUntrusted: the host is not the one expected: its certificate does
	// not match the pinned fingerprint or does not verify. Dialing again
	// will not help; check the join line.
	ErrUntrusted = errors.New("transport: the host is not the one expected; its certificate does not match or verify")
	// ErrMalformed: the peer sent bytes that do not follow the transport's
	// framing (a bad length prefix, a lane stream that ends or repeats); the
	// connection was closed with CloseProtocol. The peer is faulty or hostile.
	ErrMalformed = errors.New("transport: peer sent malformed framing; the connection was closed")
	// ErrBusy: a dial was refused by a host busy setting up connections:
	// its share of them from this address (players behind one router
	// joining at once; quicnet.Config.MaxHandshakesPerAddress), or its
	// queue of connections not yet taken. Dialing again in a moment gets
	// in once those are set up.
	ErrBusy = errors.New("transport: the host refused the connection, busy setting up others (from this address, or in all); dial again in a moment")
)

// Stats are a connection's counters as the transport sees them. Counts are
// totals since the connection opened; RTT is the transport's own estimate
// (QUIC's smoothed RTT, or the conditioner's configured delay), zero if unknown.
type Stats struct {
	DatagramsSent, DatagramsReceived uint64
	// DatagramsDropped counts datagrams dropped by this side's bounded queues
	// (outgoing queue full, incoming queue full) and received datagrams larger
	// than MaxDatagramSize.
	DatagramsDropped               uint64
	BytesSent, BytesReceived       uint64 // datagram and lane payload bytes
	MessagesSent, MessagesReceived uint64
	RTT                            time.Duration
	// RTTVariance is the transport's estimate of RTT variation (QUIC's mean
	// deviation), zero if unknown.
	RTTVariance time.Duration
	// WireBytesSent and WireBytesReceived count bytes on the wire including the
	// transport's own overhead (QUIC headers, framing), where the transport knows them.
	WireBytesSent, WireBytesReceived uint64
	// WirePacketsSent and WirePacketsLost count the transport's own packets
	// (QUIC packets, retransmissions included) and those it declared lost, where
	// the transport knows them.
	WirePacketsSent, WirePacketsLost uint64
}

// Conn is one connection to a peer.
//
// Concurrency: all methods are safe to call from any goroutine, but the
// intended use is one simulation goroutine that sends and polls. No method
// blocks on the network.
//
// Buffers: Send methods copy what they are given; the caller keeps its buffer.
// Recv methods return a slice that the Conn owns and may reuse on the next call
// of the same method: copy what must outlive it.
type Conn interface {
	// SendDatagram queues p for unreliable delivery. It never blocks: when the
	// outgoing queue is full the datagram is dropped and ErrSendQueueFull is
	// returned. len(p) must not exceed MaxDatagramSize.
	SendDatagram(p []byte) error
	// RecvDatagram returns the next received datagram, or ok == false when none
	// is waiting. The slice is valid until the next RecvDatagram call.
	RecvDatagram() (p []byte, ok bool)
	// SendMessage queues msg for reliable, ordered delivery on lane. It never
	// blocks: past the lane's queue limit it returns ErrLaneQueueFull and sends
	// nothing.
	SendMessage(lane Lane, msg []byte) error
	// RecvMessage returns the next message received on any lane, in order within
	// each lane, or ok == false when none is waiting. When several lanes have a
	// message waiting, the lowest lane number comes first. The slice is valid
	// until the next RecvMessage call.
	RecvMessage() (lane Lane, msg []byte, ok bool)
	// Buffered returns the bytes queued on lane that the peer has not yet
	// taken (queued here, or in flight on the stream, as far as the
	// transport counts them: one that passes bytes on without knowing when
	// they arrive counts those as InFlighter.InFlight). Senders of bulk data
	// pace themselves by it.
	Buffered(lane Lane) int
	// Close closes the connection, telling the peer code and reason. Later calls
	// do nothing. Queued lane messages may be lost.
	Close(code CloseCode, reason string) error
	// Done is closed when the connection has closed, by either side.
	Done() <-chan struct{}
	// Err returns nil while the connection is open, then a *CloseError (or the
	// error that broke the connection).
	Err() error
	// Stats returns the connection's counters.
	Stats() Stats
	// RemoteAddr returns the peer's address.
	RemoteAddr() net.Addr
	// Admit raises the connection's receive limits from the small bounds of
	// an unadmitted peer (see UnadmittedMaxMessageSize) to the configured
	// ones. A connection a Listener accepted starts unadmitted, one that was
	// dialed admitted; the host's session admits a peer once it has proven
	// itself in the handshake. Later calls do nothing.
	Admit()
}

// InFlighter is implemented by a Conn whose Buffered leaves out lane bytes
// it passed on and cannot yet tell reached the peer (quicnet: those QUIC
// took, which the peer may not have acknowledged; Buffered paces bulk
// senders by what waits for QUIC). InFlight returns them; Buffered plus
// InFlight is what may not have reached the peer. Close may lose both: a
// sender that must not lose what it sent last (a host's final receipts)
// waits for them to fall to 0 before it closes. InFlight falls to 0 in
// time whatever the peer does (it may be an estimate).
type InFlighter interface {
	InFlight(lane Lane) int
}

// Identified is implemented by a Conn whose peer proved who it is: quicnet's
// client end, whose host showed its certificate. PeerIdentity returns the
// peer's identity (quicnet: its certificate's SHA-256 fingerprint, 64 hex
// digits); "" when it showed none. A client keeps what it may send only to
// that host by it (a session's kept ticket).
type Identified interface {
	PeerIdentity() string
}

// IdentityOf returns c's PeerIdentity, "" when c has none.
func IdentityOf(c Conn) string {
	if id, ok := c.(Identified); ok {
		return id.PeerIdentity()
	}
	return ""
}

// Receive limits of a connection a Listener accepted, until Admit: what an
// unadmitted peer can make this side hold, per lane. Lane messages beyond
// them wait at the sender (QUIC flow control; ErrLaneQueueFull in memory)
// without anything allocated for them, until the peer is admitted or the
// connection closes. They hold the handshake's messages with room to spare.
// Wire-affecting only in that a peer must not send more before admission.
const (
	// UnadmittedMaxMessageSize is the largest lane message taken from an
	// unadmitted peer, in bytes.
	UnadmittedMaxMessageSize = 1 << 10
	// UnadmittedLaneMessages is the most received lane messages held per lane
	// for an unadmitted peer.
	UnadmittedLaneMessages = 4
	// UnadmittedLaneCost is the most memory, in bytes as MessageCost counts
	// it, held per lane for an unadmitted peer's received messages.
	UnadmittedLaneCost = 4 << 10
)

// MessageSlotBytes is what a received lane message costs beyond its buffer
// while it waits in a lane's queue: its slice header in the queue's slot
// and the slot's delivery bookkeeping.
const MessageSlotBytes = 48

// MessageCost is the memory a received lane message of n bytes holds while
// it waits to be taken, in bytes: its buffer as the Go allocator rounds it
// up (AllocSize) and its queue slot (MessageSlotBytes). Transports charge
// it against their lane receive limits, so a peer sending tiny messages
// cannot hold more memory than one sending large ones.
func MessageCost(n int) int { return AllocSize(n) + MessageSlotBytes }

// AllocSize is the size of the block the Go allocator gives a byte slice of
// n bytes: n rounded up to its size class (at most 32 KiB), or to whole
// 8 KiB pages beyond.
func AllocSize(n int) int {
	if n <= 0 {
		return 0
	}
	if n > sizeClasses[len(sizeClasses)-1] {
		const page = 8 << 10
		return (n + page - 1) &^ (page - 1)
	}
	lo, hi := 0, len(sizeClasses)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if sizeClasses[mid] < n {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return sizeClasses[lo]
}

// sizeClasses are the Go runtime's small object sizes (runtime/sizeclasses.go);
// TestAllocSize checks them against the runtime in use.
var sizeClasses = [...]int{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240,
	256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536,
	1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472,
	9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672,
	32768}

// Listener accepts connections on a host.
type Listener interface {
	// Accept waits for the next connection, or returns an error when ctx ends
	// (ctx.Err()) or the listener closes (ErrListenerClosed).
	Accept(ctx context.Context) (Conn, error)
	// Addr returns the address the listener is bound to.
	Addr() net.Addr
	// Close stops listening. Connections already accepted stay open.
	Close() error
}

// Transport makes connections: it listens on a host and dials from a client.
type Transport interface {
	// Listen starts accepting connections at addr.
	Listen(addr string) (Listener, error)
	// Dial connects to a listener at addr, blocking until the connection is
	// established, ctx ends or the attempt fails.
	Dial(ctx context.Context, addr string) (Conn, error)
}
