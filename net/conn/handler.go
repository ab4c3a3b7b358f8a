package conn

import (
	"time"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// Token is a caller's tag on a queued message: the notice of the datagram
// that carried the message lists it. 0 means none and is not listed. What a
// token means is up to the caller (an index into its own table of what it
// sent, typically).
type Token uint32

// Notice reports the fate of one numbered datagram this side sent. Each
// numbered datagram gets exactly one Notice: delivered (the peer processed
// it), or not: lost (the peer never will), or abandoned when the connection
// closed with it in flight (the peer may have processed it; nobody will
// say: Stats counts it in PacketsAbandoned, not as lost). Probes carry no
// tokens but are reported too; ack-only datagrams are not numbered and
// never reported.
type Notice struct {
	Packet    uint32 // the datagram's packet number
	Delivered bool   // true: the peer processed it; false: lost, or abandoned at a close
	// Tokens are the non-zero tokens of the messages the datagram carried, in
	// the order they were queued. The slice belongs to the Conn and is valid
	// only during the Notice call.
	Tokens []Token
	Size   int       // the datagram's size in bytes, header included
	Sent   time.Time // when it was flushed, by the Conn's clock
}

// Handler receives what a Conn has for its caller. Its methods are called on
// the caller's goroutine from Poll (messages, lane messages, notices), Flush
// and Close (notices). A method may call Queue, Begin/Commit, SendLane,
// ReportMalformed, Close and the read-only methods of the Conn, but not Poll
// or Flush.
type Handler interface {
	// Message is called for each message of each datagram the Conn accepted.
	// payload aliases the transport's buffer: valid only during the call.
	Message(kind wire.Kind, payload []byte)
	// LaneMessage is called for each lane message, in order within its lane.
	// msg starts with its lane kind byte and is valid only during the call.
	LaneMessage(lane transport.Lane, msg []byte)
	// Notice is called once for each numbered datagram sent, when its fate
	// is known, or when the connection closes (then as lost).
	Notice(n Notice)
}

// HandlerFuncs is a Handler made of functions; a nil field ignores what it
// would receive.
type HandlerFuncs struct {
	OnMessage     func(kind wire.Kind, payload []byte)
	OnLaneMessage func(lane transport.Lane, msg []byte)
	OnNotice      func(n Notice)
}

// Message calls OnMessage if set.
func (h HandlerFuncs) Message(kind wire.Kind, payload []byte) {
	if h.OnMessage != nil {
		h.OnMessage(kind, payload)
	}
}

// LaneMessage calls OnLaneMessage if set.
func (h HandlerFuncs) LaneMessage(lane transport.Lane, msg []byte) {
	if h.OnLaneMessage != nil {
		h.OnLaneMessage(lane, msg)
	}
}

// Notice calls OnNotice if set.
func (h HandlerFuncs) Notice(n Notice) {
	if h.OnNotice != nil {
		h.OnNotice(n)
	}
}
