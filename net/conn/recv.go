package conn

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// Malformed input found by the Conn itself (the wire package's errors cover
// the rest). Each wraps wire.ErrInvalid or wire.ErrTruncated.
var (
	errAckUnsent    = fmt.Errorf("%w: an ack frame acknowledges a packet this side never sent", wire.ErrInvalid)
	errUnnumbered   = fmt.Errorf("%w: an unnumbered datagram carries messages", wire.ErrInvalid)
	errEmptyLaneMsg = fmt.Errorf("%w: an empty lane message", wire.ErrTruncated)
	errLaneKind     = fmt.Errorf("%w: a lane message does not start with a lane kind", wire.ErrInvalid)
	errPacketRange  = fmt.Errorf("%w: a packet number within AckWindow of 2^32", wire.ErrInvalid)
)

// packetLimit is the first packet number never used: numbers from it on
// would take the tracked span (AckWindow) past 2^32. A sender closes before
// reaching it; a receiver counts a datagram numbered at or above it as
// malformed.
const packetLimit = 1<<32 - wire.AckWindow

// Poll takes what the transport received since the last Poll: lane
// messages first (to Handler.LaneMessage), then datagrams, whose
// acknowledgements become Handler.Notice calls and whose messages go to
// Handler.Message. Call it once per tick.
//
// A Poll takes at most the Config's per-poll bounds; the rest waits for the
// next. A peer that keeps the datagram bounds full for Config.FloodPolls
// polls in a row is closed with transport.CloseLimit, and Poll returns the
// *LimitError; so is one that sends datagrams faster than
// Config.MaxDatagramsPerSecond or MaxDatagramBytesPerSecond, lane messages
// faster than a lane's Config.LaneRates, a lane message over
// Config.MaxLaneMessageSize or a datagram with more than
// Config.MaxMessagesPerDatagram messages. Malformed input is dropped and
// counted; past Config.MaxMalformed the connection closes with
// transport.CloseProtocol. A close by the peer is returned as its
// *transport.CloseError.
func (c *Conn) Poll() error {
	if c.closed {
		return c.closedErr()
	}
	now := c.now()
	var lanes, laneBytes int
	for !c.closed && lanes < c.cfg.MaxLaneMessagesPerPoll && laneBytes < c.cfg.MaxLaneBytesPerPoll {
		lane, msg, ok := c.tc.RecvMessage()
		if !ok {
			break
		}
		lanes++
		laneBytes += len(msg)
		switch {
		case len(msg) > c.cfg.MaxLaneMessageSize:
			c.fail(&LimitError{Limit: "bytes in a lane message", Max: c.cfg.MaxLaneMessageSize, Got: len(msg)})
		case len(msg) == 0:
			c.ReportMalformed(errEmptyLaneMsg)
		case !wire.Kind(msg[0]).IsLane():
			c.ReportMalformed(errLaneKind)
		case !c.laneRateOK(lane, len(msg), now):
		default:
			c.counts.LaneMessagesReceived++
			c.counts.BytesReceived += uint64(len(msg))
			c.bytesIn.add(now, uint64(len(msg)))
			c.h.LaneMessage(lane, msg)
		}
	}
	var dgrams, dgramBytes int
	c.inRate.refill(now, c.cfg.MaxDatagramsPerSecond, c.cfg.MaxDatagramBytesPerSecond)
	for !c.closed && dgrams < c.cfg.MaxDatagramsPerPoll && dgramBytes < c.cfg.MaxDatagramBytesPerPoll {
		p, ok := c.tc.RecvDatagram()
		if !ok {
			break
		}
		dgrams++
		dgramBytes += len(p)
		switch dOK, bOK := c.inRate.take(len(p)); {
		case !dOK:
			c.fail(&LimitError{Limit: "datagrams per second", Max: c.cfg.MaxDatagramsPerSecond, Got: int(c.pktsIn.rate(now)) + 1})
		case !bOK:
			c.fail(&LimitError{Limit: "datagram bytes per second", Max: c.cfg.MaxDatagramBytesPerSecond, Got: int(c.bytesIn.rate(now)) + len(p)})
		default:
			c.receive(p, now)
		}
	}
	if !c.closed {
		if dgrams >= c.cfg.MaxDatagramsPerPoll || dgramBytes >= c.cfg.MaxDatagramBytesPerPoll {
			c.fullPolls++
			c.counts.FullPolls++
			if c.fullPolls >= c.cfg.FloodPolls {
				if dgrams >= c.cfg.MaxDatagramsPerPoll {
					c.fail(&LimitError{Limit: "datagrams per poll", Max: c.cfg.MaxDatagramsPerPoll, Got: dgrams, Polls: c.fullPolls})
				} else {
					c.fail(&LimitError{Limit: "datagram bytes per poll", Max: c.cfg.MaxDatagramBytesPerPoll, Got: dgramBytes, Polls: c.fullPolls})
				}
			}
		} else {
			c.fullPolls = 0
		}
	}
	if !c.closed {
		if err := c.tc.Err(); err != nil {
			c.shutdown(transport.CloseNormal, "", err)
		}
	}
	if c.closed {
		return c.err
	}
	return nil
}

// laneRateOK spends a lane message of n bytes from lane's buckets; past
// either rate it closes the connection and returns false.
func (c *Conn) laneRateOK(lane transport.Lane, n int, now time.Duration) bool {
	if lane >= transport.NumLanes {
		return true // the transport never gives one
	}
	rate := c.cfg.LaneRates[lane]
	b := &c.laneRate[lane]
	b.refill(now, max(rate.MessagesPerSecond, 0), max(rate.BytesPerSecond, 0))
	msgsOK, bytesOK := b.take(n)
	switch {
	case !msgsOK && rate.MessagesPerSecond >= 0:
		c.fail(&LimitError{Limit: "lane messages per second on lane " + lane.String(), Max: rate.MessagesPerSecond, Got: rate.MessagesPerSecond + 1})
		return false
	case !bytesOK && rate.BytesPerSecond >= 0:
		c.fail(&LimitError{Limit: "lane bytes per second on lane " + lane.String(), Max: rate.BytesPerSecond, Got: rate.BytesPerSecond - int(b.bytes)})
		return false
	}
	return true
}

// receive handles one datagram: it checks the whole datagram before acting
// on any of it, then applies its acknowledgements, decides whether to accept
// it, and hands its messages on.
func (c *Conn) receive(p []byte, now time.Duration) {
	c.counts.DatagramsReceived++
	c.counts.BytesReceived += uint64(len(p))
	c.bytesIn.add(now, uint64(len(p)))
	c.pktsIn.add(now, 1)
	if len(p) > transport.MaxDatagramSize {
		c.ReportMalformed(wire.ErrTooLarge)
		return
	}
	h := &c.rhdr
	r := wire.NewReader(p)
	if err := h.Decode(&r); err != nil {
		c.ReportMalformed(err)
		return
	}
	body := r.Rest()
	n, err := countMessages(body)
	switch {
	case err != nil:
		c.ReportMalformed(err)
		return
	case n > 0 && !h.Numbered:
		c.ReportMalformed(errUnnumbered)
		return
	case h.Numbered && h.Packet >= packetLimit:
		c.ReportMalformed(errPacketRange)
		return
	case h.HasAck && (h.Ack.Last() >= c.next || h.Ack.DiscardFloor > c.next):
		c.ReportMalformed(errAckUnsent)
		return
	case n > c.cfg.MaxMessagesPerDatagram:
		c.fail(&LimitError{Limit: "messages per datagram", Max: c.cfg.MaxMessagesPerDatagram, Got: n})
		return
	}
	c.heardAt = now
	if h.HasAck {
		c.onAck(&h.Ack, now)
		if c.closed {
			return
		}
	}
	if !h.Numbered {
		return
	}
	switch c.recv.accept(h, now) {
	case acceptDuplicate:
		c.counts.Duplicates++
		return
	case acceptLate:
		c.counts.Late++
		return
	case acceptStale:
		c.counts.Stale++
		return
	}
	c.counts.PacketsAccepted++
	c.noteInbound(h.Packet)
	r.Reset(body)
	for r.Len() > 0 && !c.closed && !wire.SkipPadding(&r) {
		kind, payload := wire.ReadMessage(&r, MaxMessageSize)
		c.h.Message(kind, payload)
	}
}

// countMessages checks the message framing of a datagram body and counts its
// messages.
func countMessages(body []byte) (int, error) {
	r := wire.NewReader(body)
	n := 0
	for r.Len() > 0 && !wire.SkipPadding(&r) {
		wire.ReadMessage(&r, MaxMessageSize)
		n++
	}
	return n, r.Err()
}

// onAck applies an ack frame from the peer: every packet in flight that the
// frame shows accepted is delivered; every one it shows missing is lost if
// it lies below the frame's DiscardFloor, because the peer discards it
// should it still arrive. Other packets stay in flight. The RTT is sampled
// when the frame's last packet is newly acknowledged and the largest so far.
func (c *Conn) onAck(a *wire.AckFrame, now time.Duration) {
	last := a.Last()
	lo := max(a.First, c.floor)
	if lo > last {
		return
	}
	lossBelow := a.DiscardFloor
	top := &c.sent[last%wire.AckWindow]
	if a.HasDelay && top.state == stateInFlight && (!c.anyAcked || last > c.largestAcked) {
		c.rtt.sample(now-top.sentAt, a.DelayDuration())
	}
	if !c.anyAcked || last > c.largestAcked {
		c.largestAcked, c.anyAcked = last, true
	}
	progress := false
	pn := a.First
	for i := 0; i < a.NumRuns; i++ {
		end := pn + uint32(a.Runs[i])
		accepted := i%2 == 0
		for q := max(pn, lo); q < end; q++ {
			if c.sent[q%wire.AckWindow].state != stateInFlight {
				continue
			}
			if accepted {
				c.settle(q, true)
			} else if q < lossBelow {
				c.settle(q, false)
			} else {
				continue
			}
			progress = true
			if c.closed {
				return
			}
		}
		pn = end
	}
	if progress {
		c.probes = 0
		for c.floor != c.next && c.sent[c.floor%wire.AckWindow].state != stateInFlight {
			c.floor++
		}
		c.releaseTokens()
	}
}

// noteInbound updates InLossRate with the peer's packet pn accepted: the
// packets a newer one skipped count lost, each, until one comes late
// (reordered within the window), which takes its loss back.
func (c *Conn) noteInbound(pn uint32) {
	const gain = 1.0 / 64
	switch {
	case !c.inAny:
		c.inAny, c.inTop = true, pn
	case pn > c.inTop:
		for range min(pn-c.inTop-1, 64) {
			c.inLoss += (1 - c.inLoss) * gain
		}
		c.inLoss -= c.inLoss * gain
		c.inTop = pn
	default:
		c.inLoss = max(0, c.inLoss-gain)
	}
}

// settle records the fate of packet pn and reports it.
func (c *Conn) settle(pn uint32, delivered bool) {
	const gain = 1.0 / 64
	if delivered {
		c.counts.PacketsDelivered++
		c.loss -= c.loss * gain
		if !c.answered || pn > c.answeredPN {
			c.answered, c.answeredPN = true, pn
		}
	} else {
		c.counts.PacketsLost++
		c.loss += (1 - c.loss) * gain
	}
	c.notify(pn, delivered)
}

// abandon reports packet pn, in flight as the connection closes, as not
// delivered, without counting it lost: its fate is unknown.
func (c *Conn) abandon(pn uint32) {
	c.counts.PacketsAbandoned++
	c.notify(pn, false)
}

// notify settles packet pn and gives its notice.
func (c *Conn) notify(pn uint32, delivered bool) {
	s := &c.sent[pn%wire.AckWindow]
	s.state = stateSettled
	c.inFlight--
	c.h.Notice(Notice{
		Packet:    pn,
		Delivered: delivered,
		Tokens:    c.tokensOf(s),
		Size:      s.size,
		Sent:      c.start.Add(s.sentAt),
	})
}

// recvWindow tracks the numbered packets accepted from the peer, from the
// peer's Floor up, and builds the ack frames that describe them.
type recvWindow struct {
	floor        uint32 // the peer's Floor: lowest packet tracked
	accepted     [wire.AckWindow / 64]uint64
	count        int           // accepted packets at or above floor
	top          uint32        // largest accepted packet (when count > 0)
	topAt        time.Duration // when top was accepted
	reorderFloor uint32        // largest ReorderFloor of the packets accepted
	pending      bool          // accepted a packet not yet acknowledged
	pendingSince time.Duration
	repeats      int // flushes the ack frame still rides in after the last change
}

type acceptResult uint8

const (
	acceptOK acceptResult = iota
	acceptDuplicate
	acceptLate
	acceptStale
)

func (w *recvWindow) has(pn uint32) bool {
	i := pn % wire.AckWindow
	return w.accepted[i/64]&(1<<(i%64)) != 0
}

func (w *recvWindow) flip(pn uint32) {
	i := pn % wire.AckWindow
	w.accepted[i/64] ^= 1 << (i % 64)
}

// raiseFloor forgets the packets below f: the peer knows their fate.
func (w *recvWindow) raiseFloor(f uint32) {
	if f <= w.floor {
		return
	}
	if f-w.floor >= wire.AckWindow {
		w.accepted = [wire.AckWindow / 64]uint64{}
		w.count = 0
	} else {
		for pn := w.floor; pn != f; pn++ {
			if w.has(pn) {
				w.flip(pn)
				w.count--
			}
		}
	}
	w.floor = f
}

// accept decides whether a numbered packet is processed: not if it is below
// the tracked span (the peer already knows its fate), a duplicate, or below
// the ReorderFloor of a packet already accepted (the peer counts it lost).
func (w *recvWindow) accept(h *wire.Header, now time.Duration) acceptResult {
	w.raiseFloor(h.Floor)
	pn := h.Packet
	switch {
	case pn < w.floor:
		return acceptStale
	case w.has(pn):
		return acceptDuplicate
	case pn < w.reorderFloor:
		return acceptLate
	}
	w.flip(pn)
	w.count++
	w.reorderFloor = max(w.reorderFloor, h.ReorderFloor)
	if w.count == 1 || pn > w.top {
		w.top, w.topAt = pn, now
	}
	if !w.pending {
		w.pending, w.pendingSince = true, now
	}
	return acceptOK
}

// frame fills a with the runs from floor up to the largest accepted packet,
// as many as fit wire.MaxAckRuns (the oldest first, so the peer settles its
// oldest packets first). It returns false when nothing is to be
// acknowledged.
func (w *recvWindow) frame(a *wire.AckFrame, now time.Duration) bool {
	if w.count == 0 {
		return false
	}
	a.First = w.floor
	n := 0
	want := true // the run being counted is of accepted packets
	for pn := w.floor; ; {
		k := min(w.stretch(pn, want), w.top+1-pn)
		if pn+k > w.top {
			// The top is accepted, so only an accepted run reaches it.
			a.Runs[n] = uint16(k)
			n++
			break
		}
		if !want && n+2 > wire.MaxAckRuns {
			// No room for this missing run and the accepted run after it:
			// the frame ends with the accepted run before.
			break
		}
		a.Runs[n] = uint16(k)
		n++
		pn += k
		want = !want
	}
	a.NumRuns = n
	a.DiscardFloor = min(max(w.reorderFloor, w.floor), w.floor+wire.AckWindow)
	a.HasDelay = a.Last() == w.top
	a.Delay = 0
	if a.HasDelay {
		a.Delay = wire.AckDelayUnits(now - w.topAt)
	}
	return true
}

// stretch returns how many packets from pn on are accepted (want true) or
// missing (want false), at most wire.AckWindow.
func (w *recvWindow) stretch(pn uint32, want bool) uint32 {
	var k uint32
	for k < wire.AckWindow {
		i := (pn + k) % wire.AckWindow
		word := w.accepted[i/64] >> (i % 64)
		if !want {
			word = ^word
		}
		avail := 64 - i%64
		ones := uint32(bits.TrailingZeros64(^word))
		if ones > avail {
			ones = avail
		}
		k += ones
		if ones < avail {
			break
		}
	}
	return k
}
