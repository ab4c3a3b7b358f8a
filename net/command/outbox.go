package command

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tandem-go/tandem/net/wire"
)

// DefaultPending is how many commands an Outbox holds without a receipt by
// default: as many as a host withholds for one player by default.
const DefaultPending = 64

// ErrTooLarge is Add's error for a payload over wire.MaxCommandSize, the
// protocol's bound on one command (no setting raises it).
var ErrTooLarge = errors.New("command: the payload is larger than one command carries; split it into several commands")

// ErrTooMany: the client holds its limit of commands without a receipt, or
// its oldest command without one is that many operations behind the next;
// wait for some to come back.
var ErrTooMany = errors.New("command: too many commands wait for their receipts, or the oldest of them is too far behind; wait for some to come back")

// Sent is a command an Outbox holds until its receipt comes.
type Sent struct {
	Op   uint64
	Kind uint8
	Msg  []byte // the encoded wire.Command, sent again as it is
}

// Outbox is the client's side: it gives each new operation the next id,
// holds every command until its receipt comes, and gives back those without
// one, in id order, to send again on a new connection. Ids keep increasing
// across the Outbox's life; a client that outlives its process starts its
// next Outbox above every id it used (NewOutbox's first).
//
// The ids of the commands it holds span fewer than its limit: a command
// waits (ErrTooMany) while the oldest without a receipt is limit ids behind.
// A host's Book keeps the receipts of the highest ids that ran, so a book
// of the limit or more answers every held command that ran, even one that
// ran after newer ones (a host drops commands past its rate, and takes them
// again when they are sent again) whose receipt was lost with a connection.
type Outbox struct {
	next    uint64
	limit   int
	pending []Sent // by Op, ascending
}

// NewOutbox returns an outbox whose first operation id is first (at least 1)
// and that holds at most limit commands without a receipt (DefaultPending if
// limit < 1).
func NewOutbox(first uint64, limit int) *Outbox {
	if limit < 1 {
		limit = DefaultPending
	}
	return &Outbox{next: max(first, 1), limit: limit}
}

// Add makes a command of kind with payload, given at host frame frame (0:
// to run as it comes; wire.Command.Frame), under the next operation id,
// holds it, and returns its id and the message to send, again with the same
// frame (a copy that comes after its frame runs as it comes) until Unstamp
// takes it off. It fails
// with ErrTooMany at the limit, or while the oldest command held is limit
// ids behind the next, and for a payload over wire.MaxCommandSize.
func (o *Outbox) Add(kind uint8, payload []byte, frame uint32) (Sent, error) {
	if len(o.pending) >= o.limit || len(o.pending) > 0 && o.next-o.pending[0].Op >= uint64(o.limit) {
		return Sent{}, ErrTooMany
	}
	msg, err := wire.Command{Op: o.next, Frame: frame, Kind: kind, Payload: payload}.Encode(nil)
	if err != nil {
		if errors.Is(err, wire.ErrTooLarge) {
			// The bound is the protocol's (PROTOCOL.md §11), not a setting.
			return Sent{}, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(payload), wire.MaxCommandSize)
		}
		return Sent{}, fmt.Errorf("command: a payload of %d bytes: %w", len(payload), err)
	}
	s := Sent{Op: o.next, Kind: kind, Msg: msg}
	o.next++
	o.pending = append(o.pending, s)
	return s, nil
}

// Receipt takes the host's answer to a held command and lets the command go;
// ok is false for an operation the outbox does not hold (an answer to a copy
// sent twice, or from nowhere).
func (o *Outbox) Receipt(op uint64) (Sent, bool) {
	i, found := slices.BinarySearchFunc(o.pending, op, func(s Sent, op uint64) int { return cmpU64(s.Op, op) })
	if !found {
		return Sent{}, false
	}
	s := o.pending[i]
	o.pending = slices.Delete(o.pending, i, 1+i)
	return s, true
}

// Pending returns the commands without a receipt, in id order: send each
// Msg again on a new connection. The slice is the outbox's: do not keep it.
func (o *Outbox) Pending() []Sent { return o.pending }

// Next returns the id the next operation gets.
func (o *Outbox) Next() uint64 { return o.next }

// Unstamp has every held command run as it comes when it is sent again
// (wire.Command.Frame 0): a client admitted on a new connection calls it,
// for the frames they were given at were of the host it held the world
// from, which a host restarted from an older save has not reached.
func (o *Outbox) Unstamp() {
	for i := range o.pending {
		s := &o.pending[i]
		var c wire.Command
		if c.Decode(s.Msg) != nil || c.Frame == 0 {
			continue
		}
		c.Frame = 0
		if msg, err := c.Encode(nil); err == nil {
			s.Msg = msg
		}
	}
}
