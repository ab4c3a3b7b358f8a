package conn

import (
	"errors"
	"fmt"

	"github.com/tandem-go/tandem/net/transport"
)

// Errors of a Conn's methods. Compare with errors.Is.
var (
	// ErrClosed: the connection is closed; Err says why.
	ErrClosed = errors.New("conn: connection closed; Err tells why")
	// ErrQueueFull: the message would take the tick's queue past
	// Config.MaxQueuedBytes; it was not queued. Queue less per tick (see
	// Budget) or raise the limit.
	ErrQueueFull = errors.New("conn: outgoing queue full; queue less per tick (see Budget) or raise Config.MaxQueuedBytes")
	// ErrMessageTooLarge: the payload is larger than MaxMessageSize, or a lane
	// message larger than Config.MaxLaneMessageSize; split it.
	ErrMessageTooLarge = errors.New("conn: message too large; split it (datagram messages up to MaxMessageSize, lane messages up to Config.MaxLaneMessageSize)")
	// ErrBadKind: the kind cannot travel this way: datagram messages take
	// datagram kinds, lane messages start with a lane kind.
	ErrBadKind = errors.New("conn: wrong kind for this path; datagram messages take datagram kinds (0x01-0x7f), lane messages start with a lane kind (0x80-0xff)")
	// ErrMessageOpen: Begin was called while a message begun earlier is
	// neither committed nor aborted.
	ErrMessageOpen = errors.New("conn: a message is already begun; Commit or Abort it first")
	// ErrNoMessage: Commit or Abort without a Begin.
	ErrNoMessage = errors.New("conn: no message begun; call Begin first")
	// ErrLimit: the peer went past one of the Conn's limits; the connection
	// was closed with transport.CloseLimit. A *LimitError says which.
	ErrLimit = errors.New("conn: peer went past a limit")
	// ErrProtocol: the peer sent too much malformed input; the connection was
	// closed with transport.CloseProtocol. A *ProtocolError says what.
	ErrProtocol = errors.New("conn: peer broke the protocol")
	// ErrUnresponsive: the oldest numbered datagram whose fate is unknown is
	// AckWindow (1,024) packets behind the next one to send, so no more can
	// be numbered. Later datagrams may have been acknowledged, but the peer
	// neither acknowledged that one nor reported it lost (an honest peer
	// settles it within its reorder window of acknowledging anything sent
	// after it): the peer stopped acknowledging, or lags far behind. The
	// connection was closed with transport.CloseTimeout.
	ErrUnresponsive = errors.New("conn: 1024 numbered datagrams sent since the oldest one the peer has neither acknowledged nor reported lost; closed as unresponsive; check that the peer polls and flushes every tick")
)

// LimitError says which limit the peer passed. It matches ErrLimit with
// errors.Is.
type LimitError struct {
	Limit string // what was limited, e.g. "datagrams per poll"
	Max   int    // the configured maximum
	Got   int    // what the peer reached
	Polls int    // for per-poll bounds: the polls in a row the peer kept at the bound
}

// Error describes the limit and what to change.
func (e *LimitError) Error() string {
	if e.Polls > 0 {
		return fmt.Sprintf("conn: peer kept the limit of %d %s full for %d polls in a row; the connection was closed as a flood; raise the Config limit if the peer is honest", e.Max, e.Limit, e.Polls)
	}
	return fmt.Sprintf("conn: peer went past the limit of %d %s (reached %d); the connection was closed; raise the matching Config field if the peer is honest", e.Max, e.Limit, e.Got)
}

// Unwrap returns ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }

// ProtocolError says that the peer sent more malformed datagrams and
// messages (of any kind: packet headers and acknowledgements, lane
// messages, inputs, commands) than Config.MaxMalformed allows. It matches
// ErrProtocol, and the last decoding error (e.g. wire.ErrTruncated), with
// errors.Is.
type ProtocolError struct {
	Count int   // malformed datagrams and messages counted
	Last  error // the last one's error
}

// Error describes the violation.
func (e *ProtocolError) Error() string {
	return fmt.Sprintf("conn: peer sent %d malformed datagrams or messages (last: %v); the connection was closed: the peer runs another build of the game (its protocol version or codecs differ), has a bug, or is hostile", e.Count, e.Last)
}

// Unwrap returns ErrProtocol and the last decoding error.
func (e *ProtocolError) Unwrap() []error { return []error{ErrProtocol, e.Last} }

// closeCode returns the transport close code for a cause.
func closeCode(cause error) transport.CloseCode {
	switch {
	case errors.Is(cause, ErrLimit):
		return transport.CloseLimit
	case errors.Is(cause, ErrProtocol):
		return transport.CloseProtocol
	case errors.Is(cause, ErrUnresponsive):
		return transport.CloseTimeout
	}
	return transport.CloseNormal
}
