package conn

import (
	"errors"
	"time"

	"github.com/tandem-go/tandem/net/transport"
)

// Config sets a Conn's limits, timing and budget. The zero Config takes every
// default; set a field to change one.
type Config struct {
	// MaxDatagramsPerPoll and MaxDatagramBytesPerPoll bound the datagrams a
	// Poll (one tick) takes from the peer; what is left waits in the
	// transport's bounded queue. A peer that keeps a Poll at its bound for
	// FloodPolls polls in a row is flooding: the connection closes with
	// transport.CloseLimit. Defaults 128 datagrams, 128 KiB.
	MaxDatagramsPerPoll, MaxDatagramBytesPerPoll int
	// FloodPolls is the number of polls in a row at a datagram bound that
	// closes the connection. A burst after a stall (a paused window, say)
	// drains in fewer. Default 3.
	FloodPolls int
	// MaxDatagramsPerSecond and MaxDatagramBytesPerSecond bound the rate of
	// the datagrams taken from the peer, whatever the poll rate: a token
	// bucket on the Conn's clock holds one second of each, so a burst after
	// a stall of up to a second passes. Past either the connection closes
	// with transport.CloseLimit. Defaults 2,000 datagrams and 2 MiB a
	// second, far above a game's needs (state at 60 Hz within a 256 kbit/s
	// budget is under 100 datagrams a second).
	MaxDatagramsPerSecond, MaxDatagramBytesPerSecond int
	// MaxLaneMessagesPerPoll and MaxLaneBytesPerPoll bound the lane messages
	// a Poll takes (a message begun under the bound is taken whole); the rest
	// wait on their streams, whose flow control holds the peer back. Defaults 256
	// messages, 1 MiB; a client joining a large world takes up to this much
	// of it a tick.
	MaxLaneMessagesPerPoll, MaxLaneBytesPerPoll int
	// LaneRates bound, per lane, the rate of the lane messages taken from the
	// peer, whatever the poll rate: a token bucket per lane on the Conn's
	// clock holds one second of each, so a burst of up to a second's worth
	// passes. Past either the connection closes with transport.CloseLimit. A
	// zero field takes its default (DefaultLaneMessagesPerSecond,
	// DefaultLaneBytesPerSecond); a negative one turns that bound off (a
	// client does so for the host's join lane, whose pages come as fast as
	// the link carries them).
	LaneRates [transport.NumLanes]LaneRate
	// MaxLaneMessageSize is the largest lane message, in bytes, either way. A
	// larger one from the peer closes the connection with
	// transport.CloseLimit; SendLane refuses a larger one. Default 1 MiB.
	MaxLaneMessageSize int
	// MaxMessagesPerDatagram is the most messages one datagram from the peer
	// may carry; more closes the connection with transport.CloseLimit. This
	// side puts no more than that in its own datagrams. Default 256.
	MaxMessagesPerDatagram int
	// MaxMalformed is the number of malformed datagrams and lane messages
	// (and reports through ReportMalformed) tolerated from the peer; the next
	// one closes the connection with transport.CloseProtocol. Default 16.
	MaxMalformed int
	// MaxQueuedBytes bounds the bytes of messages queued between two flushes,
	// framing included. Queue past it returns ErrQueueFull. Default 64 KiB.
	MaxQueuedBytes int

	// AckDelay is how long an acknowledgement may wait for a datagram to ride
	// in before it goes alone in an ack-only datagram. Default 0: at the next
	// Flush.
	AckDelay time.Duration
	// PeerAckDelay is the longest the peer is expected to hold an
	// acknowledgement (a tick of its flush rate plus its AckDelay); it pads
	// the probe timeout. Default 50 ms.
	PeerAckDelay time.Duration
	// InitialRTT is the RTT assumed before the first measurement. Default
	// 200 ms.
	InitialRTT time.Duration
	// KeepAlive, if set, has a side that sent nothing numbered for this
	// long send a probe at its next Flush, one each KeepAlive while it has
	// nothing else (whatever is in flight: a lost one is then known lost
	// at the next, without the probe timeout's backoff): the peer's
	// acknowledgements keep the round trip measured on a side that has
	// nothing else to send (a spectator sends no input). 0: off (a side
	// that sends nothing sends nothing). Conn.SetKeepAlive changes it.
	KeepAlive time.Duration
	// MinReorderWindow and MaxReorderWindow bound the reorder window: a
	// datagram that arrives after one sent more than the window later is
	// discarded and reported lost. The window is 4 × RTT variance within
	// these bounds. Defaults 25 ms and 250 ms.
	MinReorderWindow, MaxReorderWindow time.Duration

	// BitsPerSecond is the peer's bandwidth budget (see Budget); 0 means no
	// budget: Budget reports only the queue's room. It can be changed later
	// with SetBitsPerSecond.
	BitsPerSecond int
	// BudgetBurst is how much unused budget may be saved up, as time at
	// BitsPerSecond. Default 100 ms (never less than one full datagram).
	BudgetBurst time.Duration
	// DatagramOverhead is the transport's own bytes per datagram (QUIC
	// headers, UDP and IP), counted by Budget and by the wire byte counters.
	// Default 40.
	DatagramOverhead int
}

// LaneRate is what one lane may carry from the peer each second.
type LaneRate struct {
	MessagesPerSecond int // lane messages a second; negative: no bound
	BytesPerSecond    int // lane message bytes a second; negative: no bound
}

// Defaults of Config's fields.
const (
	DefaultMaxDatagramsPerPoll       = 128
	DefaultMaxDatagramBytesPerPoll   = 128 << 10
	DefaultFloodPolls                = 3
	DefaultMaxDatagramsPerSecond     = 2000
	DefaultMaxDatagramBytesPerSecond = 2 << 20
	DefaultMaxLaneMessagesPerPoll    = 256
	DefaultMaxLaneBytesPerPoll       = 1 << 20
	DefaultMaxLaneMessageSize        = 1 << 20
	DefaultLaneMessagesPerSecond     = 1000
	DefaultLaneBytesPerSecond        = 1 << 20
	DefaultMaxMessagesPerDatagram    = 256
	DefaultMaxMalformed              = 16
	DefaultMaxQueuedBytes            = 64 << 10
	DefaultPeerAckDelay              = 50 * time.Millisecond
	DefaultInitialRTT                = 200 * time.Millisecond
	DefaultMinReorderWindow          = 25 * time.Millisecond
	DefaultMaxReorderWindow          = 250 * time.Millisecond
	DefaultBudgetBurst               = 100 * time.Millisecond
	DefaultDatagramOverhead          = 40
)

// withDefaults returns c with zero fields set to their defaults, or an error
// naming a field out of range.
func (c Config) withDefaults() (Config, error) {
	ints := []*int{&c.MaxDatagramsPerPoll, &c.MaxDatagramBytesPerPoll, &c.FloodPolls,
		&c.MaxDatagramsPerSecond, &c.MaxDatagramBytesPerSecond,
		&c.MaxLaneMessagesPerPoll, &c.MaxLaneBytesPerPoll,
		&c.MaxLaneMessageSize, &c.MaxMessagesPerDatagram, &c.MaxMalformed, &c.MaxQueuedBytes,
		&c.BitsPerSecond, &c.DatagramOverhead}
	for _, p := range ints {
		if *p < 0 {
			return c, errors.New("conn: Config limits, BitsPerSecond and DatagramOverhead must not be negative; use 0 for the default")
		}
	}
	durs := []*time.Duration{&c.AckDelay, &c.PeerAckDelay, &c.InitialRTT, &c.KeepAlive, &c.MinReorderWindow, &c.MaxReorderWindow, &c.BudgetBurst}
	for _, p := range durs {
		if *p < 0 {
			return c, errors.New("conn: Config durations must not be negative; use 0 for the default")
		}
	}
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	defd := func(p *time.Duration, v time.Duration) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.MaxDatagramsPerPoll, DefaultMaxDatagramsPerPoll)
	def(&c.MaxDatagramBytesPerPoll, DefaultMaxDatagramBytesPerPoll)
	def(&c.FloodPolls, DefaultFloodPolls)
	def(&c.MaxDatagramsPerSecond, DefaultMaxDatagramsPerSecond)
	def(&c.MaxDatagramBytesPerSecond, DefaultMaxDatagramBytesPerSecond)
	def(&c.MaxLaneMessagesPerPoll, DefaultMaxLaneMessagesPerPoll)
	def(&c.MaxLaneBytesPerPoll, DefaultMaxLaneBytesPerPoll)
	def(&c.MaxLaneMessageSize, DefaultMaxLaneMessageSize)
	def(&c.MaxMessagesPerDatagram, DefaultMaxMessagesPerDatagram)
	def(&c.MaxMalformed, DefaultMaxMalformed)
	def(&c.MaxQueuedBytes, DefaultMaxQueuedBytes)
	def(&c.DatagramOverhead, DefaultDatagramOverhead)
	for i := range c.LaneRates {
		def(&c.LaneRates[i].MessagesPerSecond, DefaultLaneMessagesPerSecond)
		def(&c.LaneRates[i].BytesPerSecond, DefaultLaneBytesPerSecond)
	}
	defd(&c.PeerAckDelay, DefaultPeerAckDelay)
	defd(&c.InitialRTT, DefaultInitialRTT)
	defd(&c.MinReorderWindow, DefaultMinReorderWindow)
	defd(&c.MaxReorderWindow, DefaultMaxReorderWindow)
	defd(&c.BudgetBurst, DefaultBudgetBurst)
	if c.MaxReorderWindow < c.MinReorderWindow {
		return c, errors.New("conn: Config.MaxReorderWindow is below MinReorderWindow; raise it")
	}
	return c, nil
}
