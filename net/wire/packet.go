package wire

import (
	"fmt"
	"math"
	"time"
)

// Limits and units of the datagram packet header. Wire-affecting.
const (
	// AckWindow is the span of packet numbers a receiver tracks: a numbered
	// packet lies less than AckWindow above the sender's floor, and an ack
	// frame describes at most AckWindow packets.
	AckWindow = 1024
	// MaxAckRuns is the most runs an ack frame holds (odd: it starts and ends
	// with a run of received packets).
	MaxAckRuns = 31
	// AckDelayUnit is the unit of an ack frame's delay field.
	AckDelayUnit = 100 * time.Microsecond
	// MaxHeaderSize is the largest encoded Header without its ack frame, in
	// bytes: flags, packet number and two deltas below AckWindow.
	MaxHeaderSize = 1 + 4 + 2 + 2
	// MaxAckFrameSize is the largest encoded ack frame, in bytes.
	MaxAckFrameSize = 4 + MaxVarintLen32 + 2 + 1 + MaxAckRuns*2
	// MaxVarintLen32 is the most bytes a varint of a 32-bit value takes.
	MaxVarintLen32 = 5
)

// Header flag bits. Wire-affecting.
const (
	flagNumbered = 0x01
	flagAck      = 0x02
	flagAckDelay = 0x04
	flagReserved = 0xf8
)

// Header is the start of every datagram: its packet number and floors when
// it is numbered, and the acknowledgement frame for what its sender has
// received. PROTOCOL.md gives the layout and the rules both sides follow.
//
// A Header is a plain value of fixed size (no pointers); decoding one
// allocates nothing.
type Header struct {
	// Numbered is true for a datagram that is tracked and must be
	// acknowledged: every datagram carrying messages, and probes. An ack-only
	// datagram is not numbered.
	Numbered bool
	// Packet is the packet number: consecutive from 0 on each side.
	Packet uint32
	// Floor is the sender's oldest packet number whose fate it does not know
	// yet; every packet below it is settled, delivered or lost. Floor <=
	// Packet < Floor+AckWindow.
	Floor uint32
	// ReorderFloor is the oldest packet the sender sent within its reorder
	// window of this one. A receiver that accepts this packet discards every
	// later-arriving packet below ReorderFloor. Packet-AckWindow < ReorderFloor
	// <= Packet.
	ReorderFloor uint32
	// HasAck is true when Ack follows.
	HasAck bool
	// Ack acknowledges the other direction's numbered packets.
	Ack AckFrame
}

// AckFrame describes which numbered packets a side has accepted, over a span
// of consecutive packet numbers starting at First, as alternating runs:
// accepted, missing, accepted, ..., accepted.
type AckFrame struct {
	// First is the first packet number described: the receiver's copy of
	// the sender's Floor.
	First uint32
	// HasDelay is true when Delay is known: the last packet described is the
	// largest the receiver has accepted.
	HasDelay bool
	// Delay is the time, in AckDelayUnit, between the receiver accepting the
	// last packet described and sending this frame.
	Delay uint32
	// DiscardFloor is the receiver's promise: it discards every packet below
	// DiscardFloor that it has not accepted yet (see PROTOCOL.md §4), so a
	// packet the frame shows missing below it is lost. First <= DiscardFloor
	// <= First+AckWindow; it may lie beyond the last packet described.
	DiscardFloor uint32
	// NumRuns is the number of runs used in Runs: odd, 1 to MaxAckRuns.
	NumRuns int
	// Runs are run lengths, in packets. Runs[0] (accepted) may be 0; every
	// other run is at least 1. The sum is at most AckWindow.
	Runs [MaxAckRuns]uint16
}

// Span returns the number of packets the frame describes: the sum of its runs.
func (a *AckFrame) Span() uint32 {
	var n uint32
	for i := 0; i < a.NumRuns && i < MaxAckRuns; i++ {
		n += uint32(a.Runs[i])
	}
	return n
}

// Last returns the last packet number the frame describes (an accepted one).
func (a *AckFrame) Last() uint32 { return a.First + a.Span() - 1 }

// DelayDuration returns Delay as a time.Duration.
func (a *AckFrame) DelayDuration() time.Duration { return time.Duration(a.Delay) * AckDelayUnit }

// AckDelayUnits converts d to AckDelayUnit, rounding down, clamped to
// [0, MaxUint32].
func AckDelayUnits(d time.Duration) uint32 {
	if d <= 0 {
		return 0
	}
	u := d / AckDelayUnit
	if u > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(u)
}

func (a *AckFrame) valid() bool {
	if a.NumRuns < 1 || a.NumRuns > MaxAckRuns || a.NumRuns%2 == 0 {
		return false
	}
	var span uint32
	for i := 0; i < a.NumRuns; i++ {
		r := uint32(a.Runs[i])
		if i > 0 && r == 0 {
			return false
		}
		span += r
	}
	if a.Runs[a.NumRuns-1] == 0 || span > AckWindow {
		return false
	}
	if a.DiscardFloor < a.First || a.DiscardFloor-a.First > AckWindow {
		return false
	}
	return uint64(a.First)+uint64(span)-1 <= math.MaxUint32
}

func (h *Header) valid() bool {
	if !h.Numbered && !h.HasAck {
		return false
	}
	if h.Numbered {
		if h.Floor > h.Packet || h.Packet-h.Floor >= AckWindow ||
			h.ReorderFloor > h.Packet || h.Packet-h.ReorderFloor >= AckWindow {
			return false
		}
	}
	return !h.HasAck || h.Ack.valid()
}

// Size returns the number of bytes Append writes for h (valid or not).
func (h *Header) Size() int {
	n := 1
	if h.Numbered {
		n += 4 + UvarintLen(uint64(h.Packet-h.Floor)) + UvarintLen(uint64(h.Packet-h.ReorderFloor))
	}
	if h.HasAck {
		a := &h.Ack
		n += 4
		if a.HasDelay {
			n += UvarintLen(uint64(a.Delay))
		}
		n += UvarintLen(uint64(a.DiscardFloor - a.First))
		runs := min(max(a.NumRuns, 0), MaxAckRuns)
		n += UvarintLen(uint64(runs))
		for i := 0; i < runs; i++ {
			n += UvarintLen(uint64(a.Runs[i]))
		}
	}
	return n
}

// Append appends the encoded header, with its ack frame, to dst and returns
// the extended slice. A header that breaks the limits documented on its
// fields gives ErrInvalid and appends nothing.
func (h *Header) Append(dst []byte) ([]byte, error) {
	if !h.valid() {
		return dst, ErrInvalid
	}
	var flags byte
	if h.Numbered {
		flags |= flagNumbered
	}
	if h.HasAck {
		flags |= flagAck
		if h.Ack.HasDelay {
			flags |= flagAckDelay
		}
	}
	w := NewWriter(dst)
	w.U8(flags)
	if h.Numbered {
		w.U32(h.Packet)
		w.Uvarint(uint64(h.Packet - h.Floor))
		w.Uvarint(uint64(h.Packet - h.ReorderFloor))
	}
	if h.HasAck {
		a := &h.Ack
		w.U32(a.First)
		if a.HasDelay {
			w.Uvarint(uint64(a.Delay))
		}
		w.Uvarint(uint64(a.DiscardFloor - a.First))
		w.Uvarint(uint64(a.NumRuns))
		for i := 0; i < a.NumRuns; i++ {
			w.Uvarint(uint64(a.Runs[i]))
		}
	}
	return w.Bytes(), nil
}

// Decode reads a header with its ack frame from r and checks every limit; on
// error h is left partly written and r's error is set. It allocates nothing.
func (h *Header) Decode(r *Reader) error {
	flags := r.U8()
	if r.Err() != nil {
		return r.Err()
	}
	if flags&flagReserved != 0 || flags&(flagNumbered|flagAck) == 0 ||
		(flags&flagAckDelay != 0 && flags&flagAck == 0) {
		r.Fail(ErrInvalid)
		return r.Err()
	}
	h.Numbered = flags&flagNumbered != 0
	h.HasAck = flags&flagAck != 0
	h.Packet, h.Floor, h.ReorderFloor = 0, 0, 0
	if h.Numbered {
		h.Packet = r.U32()
		fd := r.Count(AckWindow - 1)
		rd := r.Count(AckWindow - 1)
		if r.Err() != nil {
			return r.Err()
		}
		if uint32(fd) > h.Packet || uint32(rd) > h.Packet {
			r.Fail(ErrInvalid)
			return r.Err()
		}
		h.Floor = h.Packet - uint32(fd)
		h.ReorderFloor = h.Packet - uint32(rd)
	}
	h.Ack.NumRuns = 0
	if h.HasAck {
		a := &h.Ack
		a.First = r.U32()
		a.HasDelay = flags&flagAckDelay != 0
		a.Delay = 0
		if a.HasDelay {
			a.Delay = r.Uvarint32()
		}
		a.DiscardFloor = a.First + uint32(r.Count(AckWindow))
		n := r.Count(MaxAckRuns)
		if r.Err() != nil {
			return r.Err()
		}
		if n == 0 || n%2 == 0 {
			r.Fail(ErrInvalid)
			return r.Err()
		}
		for i := 0; i < n; i++ {
			a.Runs[i] = uint16(r.Count(AckWindow))
		}
		a.NumRuns = n
		if r.Err() != nil {
			return r.Err()
		}
		if !a.valid() {
			a.NumRuns = 0
			r.Fail(ErrInvalid)
		}
	}
	return r.Err()
}

// MessageOverhead returns the bytes a datagram message adds to its payload of
// n bytes: the kind and the length varint.
func MessageOverhead(n int) int { return 1 + UvarintLen(uint64(n)) }

// AppendMessage appends a datagram message (kind, varint length, payload) to
// dst and returns the extended slice. The kind must be a datagram kind; the
// caller keeps the message within the datagram.
func AppendMessage(dst []byte, k Kind, payload []byte) []byte {
	dst = append(dst, byte(k))
	dst = AppendUvarint(dst, uint64(len(payload)))
	return append(dst, payload...)
}

// SkipPadding reads a datagram's padding if r is at it: a 0x00 byte where a
// message would begin, and every byte from it to the datagram's end 0x00
// (one that is not fails r with ErrInvalid). It reports whether r was at
// padding. A sender pads a datagram so that the packet carrying it is large
// enough to be answered (PROTOCOL.md §3.3).
func SkipPadding(r *Reader) bool {
	if r.Len() == 0 || r.buf[r.off] != 0 {
		return false
	}
	for _, b := range r.buf[r.off:] {
		if b != 0 {
			r.Fail(fmt.Errorf("%w: a datagram's padding holds a byte that is not 0x00", ErrInvalid))
			return true
		}
	}
	r.off = len(r.buf)
	return true
}

// ReadMessage reads one datagram message from r: its kind (a datagram kind,
// else ErrInvalid) and its payload of at most limit bytes (else ErrTooLarge).
// The payload aliases r's input.
func ReadMessage(r *Reader, limit int) (Kind, []byte) {
	k := Kind(r.U8())
	if r.Err() == nil && !k.IsDatagram() {
		r.Fail(ErrInvalid)
	}
	p := r.LenBytes(limit)
	if r.Err() != nil {
		return 0, nil
	}
	return k, p
}
