package replicate

import (
	"fmt"
	"math"
	"time"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// Backlogs. A peer's budget (HostConfig.BitsPerSecond) bounds what a send
// tick sends it; past it, what is due waits its turn (PeerStats.Deferred),
// and the client draws the entities held back from older states. Without a
// word from the host a client cannot tell an entity held back from one that
// stands still, and neither can the game's developer looking at the client.
// So the host tells the peer, in a Backlog message of a few bytes beside its
// State, how many items its budget held back, at most once an interval
// (backlogEvery: a quarter of a second, in whole send intervals): the most
// held back in one tick since the last, at once when the budget fills after
// an interval or more without a Backlog, and a 0 once an interval has held
// nothing back. A budget on the edge, full one
// tick and not the next, so costs a Backlog an interval. Like an empty State
// a Backlog is sent once and not again if lost: a client holds one's figures
// for four of its intervals (at least a second, on its own clock,
// ClientConfig.Clock), so a lost repeat costs nothing and a lost 0 a stale
// figure for that long.

// backlogEvery is the least time between two Backlogs: a quarter of a
// second, counted in host frames and rounded up to whole send intervals.
const backlogEvery = time.Second / 4

// backlogHolds is how many of the host's intervals a client holds a
// Backlog's figures for, and backlogLife the least time.
const (
	backlogHolds = 4
	backlogLife  = time.Second
)

// maxBacklog bounds the counts a Backlog may carry (malformed past it).
const maxBacklog = 1 << 30

// backlogSent is what a host peer has told its client of its backlog.
type backlogSent struct {
	held  uint32 // items held back, as the last Backlog sent said (0: none sent, or it said 0)
	frame uint32 // the host frame of that Backlog
	most  uint32 // the most held back in one send tick since it
	last  uint32 // the host frame of the last send tick that held some back
}

// appendBacklog appends the body of a Backlog message: the host frame, the
// items held back, the peer's budget (kbit/s) and the host frames between
// two Backlogs while it stays full.
func appendBacklog(dst []byte, frame uint32, held, kbit, every int) []byte {
	dst = wire.AppendUvarint(dst, uint64(frame))
	dst = wire.AppendUvarint(dst, uint64(held))
	dst = wire.AppendUvarint(dst, uint64(kbit))
	return wire.AppendUvarint(dst, uint64(every))
}

// backlogFrames returns the host frames between two Backlogs: a quarter of
// a second, rounded up to whole send intervals (a Backlog goes at a send
// tick).
func (h *HostReplicator) backlogFrames() uint32 {
	every := max(uint32(math.Ceil(h.cfg.StepRate*backlogEvery.Seconds())), 1)
	send := uint32(max(h.cfg.SendEvery, 1))
	return (every + send - 1) / send * send
}

// tellBacklog ends the peer's send tick: held is how many items the budget
// held back in it. A Backlog goes at most once an interval: when some were
// held back since the last one (the most in one tick; at once, then, if the
// last went an interval ago or more), or when an interval passed with none
// held back after a Backlog that was not 0. Its bytes count in the budget
// as far as the budget goes.
func (p *HostPeer) tellBacklog(held uint32) {
	h := p.h
	b := &p.backlog
	p.stats.Backlog = int(held)
	if held > 0 {
		b.most = max(b.most, held)
		b.last = h.frame
	}
	every := h.backlogFrames()
	if b.frame != 0 && h.frame-b.frame < every {
		return // one an interval at most
	}
	var say uint32
	switch {
	case b.most > 0:
		say = b.most
	case b.held != 0 && h.frame-b.last >= every:
		say = 0
	default:
		return
	}
	kbit := (h.cfg.BitsPerSecond + 999) / 1000
	h.buf = appendBacklog(h.buf[:0], h.frame, int(say), kbit, int(every))
	if p.out.QueueDatagram(wire.KindBacklog, h.buf, 0) != nil {
		return // the next send tick tries again
	}
	b.held, b.frame, b.most = say, h.frame, 0
	p.stats.Backlogs++
	p.stats.Bytes += uint64(len(h.buf))
	cost := len(h.buf) + wire.MessageOverhead(len(h.buf)) + h.cfg.DatagramOverhead
	p.tokens -= uint32(min(cost, int(p.tokens)))
}

// clientBacklog is the newest Backlog a client applied.
type clientBacklog struct {
	frame ecs.Frame
	at    time.Time     // when it was applied (ClientConfig.Clock)
	hold  time.Duration // how long its figures stand
	held  int
	kbit  int
}

// applyBacklog takes a Backlog message's body; one older than the newest
// applied is dropped (reordered).
func (c *ClientReplicator) applyBacklog(body []byte) error {
	r := wire.NewReader(body)
	frame := ecs.Frame(r.Uvarint32())
	held := r.Count(maxBacklog)
	kbit := r.Count(maxBacklog)
	every := r.Count(maxBacklog)
	if every == 0 && r.Err() == nil {
		r.Fail(wire.ErrInvalid) // no interval
	}
	if err := r.Finish(); err != nil {
		c.stats.Malformed++
		return fmt.Errorf("%w: backlog: %v", ErrMalformed, err)
	}
	c.stats.Backlogs++
	if frame < c.backlog.frame {
		return nil
	}
	hold := time.Duration(float64(backlogHolds*every) / c.cfg.StepRate * float64(time.Second))
	c.backlog = clientBacklog{frame: frame, at: c.cfg.Clock.Now(), hold: max(hold, backlogLife), held: held, kbit: kbit}
	if bo, ok := c.cfg.Observer.(BacklogObserver); ok {
		bo.HeldBack(frame, held, every)
	}
	return nil
}

// Backlog returns how many items (updates, spawns, entities entering its
// scope, removals) the host's budget for this client held back, at most in one of
// its send ticks lately, and that budget, kbit/s (HostConfig.BitsPerSecond),
// as the host's newest Backlog message said: (0, 0) when it said nothing
// was held back, or when it was applied four of the host's intervals ago
// (a second at the default rates; ClientConfig.Clock), the host saying it
// again every interval while its budget stays full. Above 0 the budget is
// full: the entities held back are drawn from older states until their
// turn.
func (c *ClientReplicator) Backlog() (held, kbit int) {
	b := c.backlog
	if b.held == 0 || c.cfg.Clock.Now().Sub(b.at) > b.hold {
		return 0, 0
	}
	return b.held, b.kbit
}
