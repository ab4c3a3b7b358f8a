package conn

import (
	"time"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// budget is a token bucket of bytes for the datagrams sent to the peer.
type budget struct {
	bytesPerSec float64 // 0: no budget
	capacity    float64
	level       float64 // may go negative: debt from datagrams already sent
	burst       time.Duration
	overhead    int
	last        time.Duration
	started     bool
}

// configure sets the rate and the burst. Going from no budget to a budget
// starts the bucket full: what was sent without a budget is no debt.
func (b *budget) configure(bitsPerSec int, burst time.Duration, overhead int) {
	wasOff := b.bytesPerSec == 0
	b.bytesPerSec = float64(bitsPerSec) / 8
	b.burst = burst
	b.overhead = overhead
	b.capacity = max(b.bytesPerSec*burst.Seconds(), float64(transport.MaxDatagramSize+overhead))
	if b.level > b.capacity || (wasOff && b.bytesPerSec > 0) {
		b.level = b.capacity
	}
}

func (b *budget) refill(now time.Duration) {
	if !b.started {
		b.started = true
		b.level = b.capacity
		b.last = now
		return
	}
	if now > b.last {
		b.level = min(b.capacity, b.level+b.bytesPerSec*(now-b.last).Seconds())
		b.last = now
	}
}

// spend takes a datagram of n bytes from the bucket; without a budget
// nothing is counted.
func (b *budget) spend(n int) {
	if b.bytesPerSec == 0 {
		return
	}
	b.level -= float64(n + b.overhead)
}

// SetBitsPerSecond changes the peer's bandwidth budget; 0 turns it off.
func (c *Conn) SetBitsPerSecond(bitsPerSec int) {
	c.budget.refill(c.now())
	c.budget.configure(max(bitsPerSec, 0), c.cfg.BudgetBurst, c.cfg.DatagramOverhead)
}

// Budget returns how many more bytes of messages (payload and framing, see
// wire.MessageOverhead) the caller may queue this tick. With a bandwidth
// budget (Config.BitsPerSecond) it is the token bucket's level, which fills
// at that rate and is spent by every datagram sent (header, acknowledgements
// and Config.DatagramOverhead included), less what is queued and an estimate
// of its headers; it is never more than the queue's room
// (Config.MaxQueuedBytes). It can be 0 or negative after a tick that spent
// more than its share.
//
// The Conn does not hold messages back for the budget: keeping to it is the
// caller's part. Lane messages are not counted (QUIC paces streams; use
// LaneBuffered).
func (c *Conn) Budget() int {
	room := c.cfg.MaxQueuedBytes - len(c.queue)
	if c.budget.bytesPerSec == 0 {
		return room
	}
	c.budget.refill(c.now())
	perDgram := wire.MaxHeaderSize + c.cfg.DatagramOverhead
	pending := len(c.queue) + c.estDgrams*perDgram
	left := int(c.budget.level) - pending
	if c.recv.pending || len(c.queue) > 0 {
		left -= c.lastAckSize
	}
	return min(left, room)
}
