package conn

import (
	"time"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// counters are a Conn's totals since it was made.
type counters struct {
	PacketsSent, ProbesSent, AckOnlySent             uint64
	PaddedSent                                       uint64
	DatagramsSent, DatagramsReceived                 uint64
	PacketsAccepted, PacketsDelivered, PacketsLost   uint64
	PacketsAbandoned                                 uint64
	Duplicates, Late, Stale, Malformed               uint64
	LimitClosures, SendDropped, QueueFull, FullPolls uint64
	BytesSent, BytesReceived, WireBytesSent          uint64
	LaneMessagesSent, LaneMessagesReceived           uint64
}

// Stats is a snapshot of a Conn for a net graph and for tests. Rates are per
// second over the last second of the Conn's clock. Byte counts are the
// stack's own bytes (datagrams with their headers, and lane messages);
// WireBytesSent adds Config.DatagramOverhead per datagram for the
// transport's bytes.
type Stats struct {
	// RTT is the smoothed round-trip time; RTTVar its mean deviation; MinRTT
	// and LatestRTT the smallest and the last raw sample. Before the first
	// sample RTT is Config.InitialRTT. RTTSamples counts the samples.
	RTT, RTTVar, MinRTT, LatestRTT time.Duration
	RTTSamples                     uint64
	// ReorderWindow is the current reorder window (see Config).
	ReorderWindow time.Duration
	// LossRate is the fraction of recently settled numbered datagrams that
	// were lost, an exponential average over about 64 datagrams: of those
	// this side sent. InLossRate is the same of the peer's numbered
	// datagrams, as this side sees them arrive: one skipped by a newer one
	// counts lost until it comes (reordered), and one that comes past the
	// reorder window stays lost (its messages were dropped).
	LossRate, InLossRate float64

	BytesInPerSec, BytesOutPerSec     float64
	PacketsInPerSec, PacketsOutPerSec float64 // datagrams

	QueuedMessages, QueuedBytes int // queued for the next Flush
	InFlight                    int // numbered datagrams whose fate is unknown
	// LaneBuffered is, per lane, the bytes sent and not yet taken by the peer.
	LaneBuffered [transport.NumLanes]int

	// PacketsSent counts numbered datagrams (probes included), ProbesSent the
	// probes, AckOnlySent the ack-only datagrams; DatagramsSent all datagrams
	// the transport took, SendDropped those it dropped (queue full).
	PacketsSent, ProbesSent, AckOnlySent, DatagramsSent, SendDropped uint64
	// PaddedSent counts the numbered datagrams padded to be answerable by
	// a stateless reset while the peer was silent (silentPad).
	PaddedSent uint64
	// PacketsDelivered and PacketsLost count the notices given;
	// PacketsAbandoned the datagrams in flight when the connection closed,
	// noticed as not delivered but left out of PacketsLost and LossRate
	// (nothing said they were lost). Every numbered datagram sent gets one
	// notice: PacketsSent = PacketsDelivered + PacketsLost +
	// PacketsAbandoned + InFlight.
	PacketsDelivered, PacketsLost, PacketsAbandoned uint64
	// DatagramsReceived counts every datagram taken from the transport;
	// PacketsAccepted the numbered ones processed. Duplicates, Late (arrived
	// behind the reorder window) and Stale (below the peer's floor) were
	// discarded. Malformed counts malformed input (ReportMalformed included).
	DatagramsReceived, PacketsAccepted, Duplicates, Late, Stale, Malformed uint64
	// LimitClosures counts closes for a limit (0 or 1); QueueFull counts
	// messages refused with ErrQueueFull; FullPolls counts polls that ended
	// at a datagram bound with input possibly left waiting.
	LimitClosures, QueueFull, FullPolls uint64
	// LaneMessagesSent and LaneMessagesReceived count lane messages.
	LaneMessagesSent, LaneMessagesReceived  uint64
	BytesSent, BytesReceived, WireBytesSent uint64
}

// Stats returns a snapshot of the connection's estimates and counters.
func (c *Conn) Stats() Stats {
	now := c.now()
	k := &c.counts
	s := Stats{
		RTT:                  c.rtt.smoothed,
		RTTVar:               c.rtt.variance,
		MinRTT:               c.rtt.min,
		LatestRTT:            c.rtt.latest,
		RTTSamples:           c.rtt.samples,
		ReorderWindow:        c.reorderWindow(),
		LossRate:             c.loss,
		InLossRate:           c.inLoss,
		BytesInPerSec:        c.bytesIn.rate(now),
		BytesOutPerSec:       c.bytesOut.rate(now),
		PacketsInPerSec:      c.pktsIn.rate(now),
		PacketsOutPerSec:     c.pktsOut.rate(now),
		QueuedMessages:       len(c.msgs),
		QueuedBytes:          len(c.queue),
		InFlight:             c.inFlight,
		PacketsSent:          k.PacketsSent,
		ProbesSent:           k.ProbesSent,
		PaddedSent:           k.PaddedSent,
		AckOnlySent:          k.AckOnlySent,
		DatagramsSent:        k.DatagramsSent,
		SendDropped:          k.SendDropped,
		PacketsDelivered:     k.PacketsDelivered,
		PacketsLost:          k.PacketsLost,
		PacketsAbandoned:     k.PacketsAbandoned,
		DatagramsReceived:    k.DatagramsReceived,
		PacketsAccepted:      k.PacketsAccepted,
		Duplicates:           k.Duplicates,
		Late:                 k.Late,
		Stale:                k.Stale,
		Malformed:            k.Malformed,
		LimitClosures:        k.LimitClosures,
		QueueFull:            k.QueueFull,
		FullPolls:            k.FullPolls,
		LaneMessagesSent:     k.LaneMessagesSent,
		LaneMessagesReceived: k.LaneMessagesReceived,
		BytesSent:            k.BytesSent,
		BytesReceived:        k.BytesReceived,
		WireBytesSent:        k.WireBytesSent,
	}
	if !c.closed {
		for l := range s.LaneBuffered {
			s.LaneBuffered[l] = c.tc.Buffered(transport.Lane(l))
		}
	}
	return s
}

// ByteRates returns the bytes received and sent per second over the last
// second, as Stats does, without the rest of Stats: for figures read often.
// Like Stats, it must not run concurrently with the connection's other
// methods.
func (c *Conn) ByteRates() (in, out float64) {
	now := c.now()
	return c.bytesIn.rate(now), c.bytesOut.rate(now)
}

// RTT returns the smoothed round-trip time (Config.InitialRTT before the
// first sample).
func (c *Conn) RTT() time.Duration { return c.rtt.smoothed }

// FateAfter returns how long after a numbered datagram leaves its fate is
// known, delivered or lost, when the link behaves as it has: the smoothed
// round trip, the reorder window (4 × RTT variance, within its bounds) and
// the peer's acknowledgement delay (Config.PeerAckDelay).
func (c *Conn) FateAfter() time.Duration {
	return c.rtt.smoothed + c.reorderWindow() + c.cfg.PeerAckDelay
}

// LossRate returns the recent fraction of numbered datagrams lost, of those
// this side sent (Stats.LossRate).
func (c *Conn) LossRate() float64 { return c.loss }

// InLossRate returns the recent fraction of the peer's numbered datagrams
// lost on their way here (Stats.InLossRate): what a receiver sizes its
// buffers for (a client's render delay), where LossRate, known from the
// peer's acknowledgements, is what this side's sends suffer.
func (c *Conn) InLossRate() float64 { return c.inLoss }

// InFlight returns the number of numbered datagrams whose fate is unknown.
func (c *Conn) InFlight() int { return c.inFlight }

// RTTSamples returns how many round-trip samples RTT is made of: 0 until
// the peer first acknowledged a datagram, when RTT is still
// Config.InitialRTT, a guess.
func (c *Conn) RTTSamples() uint64 { return c.rtt.samples }

// UnansweredSince returns when the oldest numbered datagram in flight that
// went after the newest one the peer acknowledged was sent, by the Conn's
// clock: since when the peer has answered nothing this side sent. ok is
// false when nothing sent after that one is in flight. While the peer hears
// this side it is about a round trip old, whatever was lost before: a lost
// datagram keeps OldestInFlight where it was until its loss is known (a
// round trip and the reorder window later), not this. O(datagrams in
// flight after the newest acknowledged), a handful while the peer answers.
func (c *Conn) UnansweredSince() (sent time.Time, ok bool) {
	if c.closed {
		return time.Time{}, false
	}
	from := c.floor
	if c.answered && c.answeredPN+1 > from {
		from = c.answeredPN + 1
	}
	for pn := from; pn != c.next; pn++ {
		if s := &c.sent[pn%wire.AckWindow]; s.state == stateInFlight {
			return c.start.Add(s.sentAt), true
		}
	}
	return time.Time{}, false
}

// OldestInFlight returns when the oldest numbered datagram whose fate is
// unknown was sent, by the Conn's clock; ok is false when none is in
// flight. An honest peer settles every datagram within a round trip and its
// reorder window; one that acknowledges only its newest packets leaves the
// oldest unsettled, which this shows however recent its acknowledgements are.
func (c *Conn) OldestInFlight() (sent time.Time, ok bool) {
	if c.inFlight == 0 || c.closed {
		return time.Time{}, false
	}
	return c.start.Add(c.sent[c.floor%wire.AckWindow].sentAt), true
}
