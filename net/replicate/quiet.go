package replicate

import "github.com/tandem-go/tandem/net/wire"

// Quiet ticks. A host sends a peer state only when something it holds
// changed, so when the world falls still the peer hears nothing, and cannot
// tell an entity that stopped from one whose states are late: a client
// drawing a moving entity goes on along its last two states (interp's
// MaxExtrapolation) past where it stopped, then slides back. What tells
// them apart is a newer frame heard without the entity: a client takes an
// entity left out of the states of later frames as resting, once they are
// as far past its newest state as its states were apart (interp's due, at
// most MaxDeferral). In a busy world the other entities' states carry those
// frames; in a quiet one, the host sends them. After a send tick that sent
// the peer a State, the send ticks that send it nothing with nothing
// waiting to go to it count as quiet: no item due or held back by the
// budget, none waiting in the wheel for its small change to add up (every
// change of an entity it holds and does not own waits there or goes), no
// removal unsent. The 1st, 2nd, 4th and 8th quiet tick send an empty State
// of their frame (8 covers the longest a small change waits, MaxDeferral's
// default); then nothing, until a State goes again. A tick that sends
// nothing while something waits is not quiet: its State will come, and an
// empty one before it would have the client take a moving entity for
// resting. So a peer sent states every few ticks gets no empty one between
// them, and each time its world falls still four datagrams of a few bytes.
// One lost is not sent again: the next one, or the next state, tells the
// same. A peer is sent none before its first State after its join: nothing
// it holds was moving in its eyes, and a client aligning its clock on the
// host's frames as its join ends is better off without them (the join's
// held states apply at once).

// quietMarks is the last quiet send tick that sends an empty State.
const quietMarks = 8

// tellQuiet ends the peer's send tick: sent says whether it was sent a
// State. On the quiet ticks that tell it (1, 2, 4, 8), it is sent an empty
// State of this frame.
func (p *HostPeer) tellQuiet(sent bool) {
	switch {
	case sent:
		p.quiet = 0
		return
	case p.quiet > quietMarks, !p.idle():
		return
	}
	p.quiet++
	if n := p.quiet; n&(n-1) != 0 {
		return
	}
	h := p.h
	var st itemStreams
	h.buf = h.assemble(h.buf[:0], 0, &st, 0, 0, nil, 0)
	if p.out.QueueDatagram(wire.KindState, h.buf, 0) != nil {
		return
	}
	p.stats.Quiet++
	p.stats.Bytes += uint64(len(h.buf))
	cost := len(h.buf) + wire.MessageOverhead(len(h.buf)) + h.cfg.DatagramOverhead
	p.tokens -= uint32(min(cost, int(p.tokens)))
}

// idle reports whether nothing waits to be sent to the peer: no item due or
// left by the budget, none waiting in the wheel (stale entries, of entities
// placed again or unlisted since, aside), no removal unsent. It stops at
// the first that waits. It runs after the send tick's packing, which took
// in what was listed since the last (added).
func (p *HostPeer) idle() bool {
	if len(p.dirty) > 0 || p.unsent > 0 {
		return false
	}
	for b := range p.wheel {
		for _, k := range p.wheel[b] {
			s := &p.slots[uint32(k)&slotMask]
			if s.wait == uint8(uint32(k)>>slotBits) && s.flags&fListed != 0 {
				return false
			}
		}
	}
	return true
}
