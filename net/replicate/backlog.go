package replicate

import (
	"fmt"
	"time"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// Backlogs. A peer's budget (HostConfig.BitsPerSecond) bounds what a send
// tick sends it; past it, changed entities wait their turn (PeerStats.
// Deferred), and the client draws them from older states. Without a word
// from the host a client cannot tell an entity held back from one that
// stands still, and neither can the game's developer looking at the
// client. So a send tick that held items back tells the peer how many, in
// a Backlog message of a few bytes beside its State, again every
// backlogEvery of a second while the budget stays full, and a Backlog of 0
// once it is not. Like an empty State it is sent once and not again if
// lost: a client takes a Backlog as over backlogLife after it applied it,
// on its own clock (ClientConfig.Clock), so a lost 0 in a world that then
// falls still costs a second of a stale figure.

// backlogEvery is the least time between two Backlogs that say the budget
// is full: a quarter of a second, counted in host frames (StepRate/4, at
// least one).
const backlogEvery = time.Second / 4

// backlogLife is how long a client holds a Backlog's figures: four of the
// host's repeats (backlogEvery), so a lost one costs nothing and a lost 0
// costs at most that.
const backlogLife = 4 * backlogEvery

// maxBacklog bounds the counts a Backlog may carry (malformed past it).
const maxBacklog = 1 << 30

// backlogSent is what a host peer last told its client of its backlog.
type backlogSent struct {
	held  uint32 // items held back, as the last Backlog sent said (0: none sent, or it said 0)
	frame uint32 // the host frame of that Backlog
}

// appendBacklog appends the body of a Backlog message: the host frame, the
// items held back and the peer's budget, kbit/s.
func appendBacklog(dst []byte, frame uint32, held, kbit int) []byte {
	dst = wire.AppendUvarint(dst, uint64(frame))
	dst = wire.AppendUvarint(dst, uint64(held))
	return wire.AppendUvarint(dst, uint64(kbit))
}

// tellBacklog ends the peer's send tick: held is how many items the budget
// held back in it. A Backlog goes when held is the first after none, or
// backlogEvery frames passed since the last while it stays above 0, or held
// is 0 after a Backlog that was not. Its bytes count in the budget.
func (p *HostPeer) tellBacklog(held uint32) {
	h := p.h
	b := &p.backlog
	p.stats.Backlog = int(held)
	switch {
	case held == 0 && b.held == 0:
		return
	case held != 0 && b.held != 0 && h.frame-b.frame < uint32(max(h.cfg.StepRate*backlogEvery.Seconds(), 1)):
		return
	}
	kbit := (h.cfg.BitsPerSecond + 999) / 1000
	h.buf = appendBacklog(h.buf[:0], h.frame, int(held), kbit)
	if p.out.QueueDatagram(wire.KindBacklog, h.buf, 0) != nil {
		return // the next send tick tries again
	}
	b.held, b.frame = held, h.frame
	p.stats.Backlogs++
	p.stats.Bytes += uint64(len(h.buf))
	cost := len(h.buf) + wire.MessageOverhead(len(h.buf)) + h.cfg.DatagramOverhead
	p.tokens -= uint32(min(cost, int(p.tokens)))
}

// clientBacklog is the newest Backlog a client applied.
type clientBacklog struct {
	frame ecs.Frame
	at    time.Time // when it was applied (ClientConfig.Clock)
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
	if err := r.Finish(); err != nil {
		c.stats.Malformed++
		return fmt.Errorf("%w: backlog: %v", ErrMalformed, err)
	}
	c.stats.Backlogs++
	if frame < c.backlog.frame {
		return nil
	}
	c.backlog = clientBacklog{frame: frame, at: c.cfg.Clock.Now(), held: held, kbit: kbit}
	return nil
}

// Backlog returns how many of the changed entities the client holds the
// host held back at its last send tick for the client's state budget, and
// that budget, kbit/s (HostConfig.BitsPerSecond), as the host's newest
// Backlog message said: (0, 0) when it said nothing was held back, or when
// it was applied more than a second ago (ClientConfig.Clock; the host says
// it again every quarter of a second while its budget stays full). Above
// 0, the budget is full: the entities held back are drawn from older
// states until their turn.
func (c *ClientReplicator) Backlog() (held, kbit int) {
	b := c.backlog
	if b.held == 0 || c.cfg.Clock.Now().Sub(b.at) > backlogLife {
		return 0, 0
	}
	return b.held, b.kbit
}
