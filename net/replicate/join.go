package replicate

import (
	"errors"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// joinState is the host's progress sending the world to one joining peer.
// Its memory is the peer's 12-byte slot per entity and one page buffer: the
// catch-up set is the slots flagged fCatchUp, found by a cursor, not a list.
//
// Pages are built from the shared images as the join lane drains: every
// step, while less than JoinWindow is queued on the lane (its flow control
// drains it), and within the step's JoinBytesPerStep for all joining peers.
// A join the host also tops up between steps (StartJoin) is paced: while its
// first round lasts, a step queues no more than a top-up either, so no step
// builds the whole world at once and the lane sends while the host builds.
type joinState struct {
	round    int
	cursor   int32 // next slot to look at in this round
	pending  int   // slots flagged fCatchUp
	held     int   // slots flagged fPaged: the entities FINAL says the peer holds
	despawns []ecs.NetID
	pages    uint32
	sent     uint64 // entities sent in pages
	page     []byte
	paged    []int32 // the slots of the page being built
	paced    bool    // StartJoin was called: the first round is sent in top-ups
	// scoped counts the live entities in the peer's scope: what the join
	// brings, which its pages announce (their total) for the client's
	// progress and the room it makes. Counted when the join begins (and
	// when the peer's scope is first drawn), kept by the join's notices.
	scoped int
	// left is the lane's bytes not yet taken as the last StartJoin
	// returned; stalls counts the calls since in which the lane did not
	// drain at all (a peer that stopped reading): past stallCalls of
	// them StartJoin asks to be called again only after the next step.
	left   int
	stalls int
}

// stallCalls is how many StartJoin calls in a row may find the join lane
// as full as the call before left it, and still ask to be called again
// soon: about a quarter second of a host's loop polling every millisecond
// between steps, longer than a lane waits for its peer's flow control on a
// slow link. A peer that stopped reading has its join topped up once a
// step after them, until it reads again or its join timeout ends it.
const stallCalls = 250

// window returns the most bytes of pages to keep queued on the join lane
// now.
func (j *joinState) window(h *HostReplicator) int {
	if j.paced && j.round == 1 {
		return min(h.cfg.JoinWindow, joinTopUp)
	}
	return h.cfg.JoinWindow
}

// newJoin starts the join of p, a peer just added: it holds nothing yet
// and sees the whole world until its scope is drawn (grid.addPeer), so its
// join brings every entity the host holds.
func newJoin(h *HostReplicator, p *HostPeer) *joinState {
	p.stats.JoinRounds = 1
	return &joinState{round: 1, page: make([]byte, 0, h.cfg.JoinPage+1024), scoped: h.live}
}

// flag marks s to be paged again in the next round (fCatchUp).
func (j *joinState) flag(s *peerSlot) { setCounted(s, fCatchUp, &j.pending, true) }

// unflag takes back s's mark to be paged again, if it has it.
func (j *joinState) unflag(s *peerSlot) { setCounted(s, fCatchUp, &j.pending, false) }

// markPaged marks s as gone out in a page (fPaged).
func (j *joinState) markPaged(s *peerSlot) { setCounted(s, fPaged, &j.held, true) }

// unmarkPaged takes back s's mark of having gone out in a page, if it has it.
func (j *joinState) unmarkPaged(s *peerSlot) { setCounted(s, fPaged, &j.held, false) }

// setCounted sets (on) or clears flag f of s, keeping *count the number of
// slots that have it.
func setCounted(s *peerSlot, f uint8, count *int, on bool) {
	switch had := s.flags&f != 0; {
	case on && !had:
		s.flags |= f
		*count++
	case !on && had:
		s.flags &^= f
		*count--
	}
}

func (j *joinState) onSpawn(p *HostPeer, slot int32) {
	s := &p.slots[slot]
	if s.flags&fOut == 0 {
		j.scoped++
	}
	j.unflag(s)
	j.unmarkPaged(s)
	*s = peerSlot{flags: s.flags & fOut, epoch: s.epoch + 1}
	if s.flags&fOut != 0 || j.round == 1 && slot >= j.cursor {
		return // out of scope, or the cursor will reach it
	}
	j.flag(s)
}

func (j *joinState) onDespawn(p *HostPeer, id ecs.NetID, slot int32, live bool) {
	s := &p.slots[slot]
	if live && s.flags&fOut == 0 {
		j.scoped--
	}
	if s.flags&fPaged != 0 {
		j.despawns = append(j.despawns, id)
	}
	j.unflag(s)
	j.unmarkPaged(s)
	*s = peerSlot{epoch: s.epoch + 1}
}

func (j *joinState) onChange(p *HostPeer, slot int32) {
	if s := &p.slots[slot]; s.flags&fPaged != 0 {
		j.flag(s)
	}
}

// onEnter: an entity entered the peer's scope while it joins. A removal of
// it still queued (it left since its page, and comes back before the
// removal went) is taken back: sent after the entity's new page, or in a
// page of the same frame, it would remove the entity from the peer for
// good.
func (j *joinState) onEnter(p *HostPeer, slot int32) {
	s := &p.slots[slot]
	j.scoped++
	if j.takeBackRemoval(p.h.ents[slot].id) {
		// The peer still holds it, as of its page: paged, so a removal
		// goes again if it leaves before its new page.
		j.markPaged(s)
	}
	if j.round == 1 && slot >= j.cursor && s.flags&fPaged == 0 {
		return
	}
	j.flag(s)
}

// takeBackRemoval drops the queued removal of id, if there is one, and
// reports whether there was. The queue is searched from its end, where the
// entities that left lately are.
func (j *joinState) takeBackRemoval(id ecs.NetID) bool {
	for i := len(j.despawns) - 1; i >= 0; i-- {
		if j.despawns[i] == id {
			j.despawns = append(j.despawns[:i], j.despawns[i+1:]...)
			return true
		}
	}
	return false
}

// onLeave: an entity left the peer's scope while it joins; one that was
// paged is removed from the peer.
func (j *joinState) onLeave(p *HostPeer, id ecs.NetID, slot int32) {
	s := &p.slots[slot]
	j.scoped--
	if s.flags&fPaged != 0 {
		j.despawns = append(j.despawns, id)
	}
	j.unflag(s)
	j.unmarkPaged(s)
	*s = peerSlot{flags: s.flags & fOut, epoch: s.epoch + 1}
}

// next returns the next slot of the round to page, or -1.
func (j *joinState) next(p *HostPeer) int32 {
	h := p.h
	n := int32(len(h.ents))
	for j.cursor < n {
		slot := j.cursor
		j.cursor++
		s := &p.slots[slot]
		if s.flags&fOut != 0 {
			continue
		}
		if j.round == 1 {
			if h.ents[slot].flags&eLive != 0 && s.flags&fPaged == 0 {
				return slot
			}
			continue
		}
		if s.flags&fCatchUp != 0 {
			return slot
		}
	}
	return -1
}

// tick builds pages while the join lane has room, moves to the next round
// when one is sent, and ends the join with FINAL when a round leaves nothing
// behind.
func (j *joinState) tick(p *HostPeer) {
	h := p.h
	p.grow(len(h.ents))
	for h.budget > 0 && p.out.LaneBuffered(transport.LaneJoin) < j.window(h) {
		if int(j.cursor) >= len(h.ents) && len(j.despawns) == 0 {
			if !j.nextRound(p) {
				return
			}
			if p.join == nil || p.err != nil {
				return
			}
			continue
		}
		if !j.sendPage(p) {
			return
		}
	}
}

// nextRound starts the next round from the catch-up list, or finishes the
// join when it is empty. It reports whether paging may go on this tick.
func (j *joinState) nextRound(p *HostPeer) bool {
	h := p.h
	if j.pending == 0 {
		j.finish(p)
		return false
	}
	if j.round >= h.cfg.MaxJoinRounds {
		p.err = ErrJoinTooSlow
		return false
	}
	j.round++
	p.stats.JoinRounds = j.round
	j.cursor = 0
	return true
}

// sendPage builds and sends one page; false when the lane refused it.
func (j *joinState) sendPage(p *HostPeer) bool {
	h := p.h
	// Removals ride at the front of pages, a bounded number per page.
	removals := min(len(j.despawns), h.cfg.JoinPage/wire.MaxVarintLen32)
	b := append(j.page[:0], byte(wire.KindJoinPage))
	b = wire.AppendUvarint(b, uint64(h.frame))
	b = wire.AppendUvarint(b, uint64(max(j.scoped, 0)))
	b = wire.AppendUvarint(b, uint64(removals))
	for _, id := range j.despawns[:removals] {
		b = wire.AppendUvarint(b, uint64(id))
	}
	j.paged = j.paged[:0]
	for len(b) < h.cfg.JoinPage {
		slot := j.next(p)
		if slot < 0 {
			break
		}
		b = h.appendEntityImage(b, slot)
		s := &p.slots[slot]
		j.unflag(s)
		j.markPaged(s)
		s.base = h.frame
		j.paged = append(j.paged, slot)
	}
	j.page = b
	if err := p.out.SendLane(transport.LaneJoin, b); err != nil {
		if !errors.Is(err, transport.ErrLaneQueueFull) {
			p.err = err // closed, or past the lane's size limit
			return false
		}
		// The lane is full for now: what this page held goes again in a
		// later round; its removals stay queued.
		for _, slot := range j.paged {
			s := &p.slots[slot]
			j.unmarkPaged(s)
			s.base = 0
			j.flag(s)
		}
		return false
	}
	for _, slot := range j.paged {
		h.markSent(slot)
	}
	h.budget -= len(b)
	j.despawns = append(j.despawns[:0], j.despawns[removals:]...)
	j.pages++
	j.sent += uint64(len(j.paged))
	p.stats.JoinPages++
	p.stats.JoinBytes += uint64(len(b))
	p.stats.JoinEntities += uint64(len(j.paged))
	return true
}

// finish sends FINAL and turns the peer to ordinary replication: every paged
// entity is held by the peer as of its page, which is its baseline.
// FINAL says how many pages the join sent and how many entities they leave
// the peer holding, so the client knows whether it has them all.
func (j *joinState) finish(p *HostPeer) {
	h := p.h
	b := append(j.page[:0], byte(wire.KindJoinFinal))
	b = wire.AppendUvarint(b, uint64(h.frame))
	b = wire.AppendUvarint(b, uint64(j.pages))
	b = wire.AppendUvarint(b, uint64(max(j.scoped, 0)))
	b = wire.AppendUvarint(b, uint64(j.held))
	if err := p.out.SendLane(transport.LaneJoin, b); err != nil {
		p.err = err
		return
	}
	for i := range p.slots {
		s := &p.slots[i]
		switch {
		case s.flags&fPaged != 0:
			*s = peerSlot{base: s.base, flags: fKnown | s.flags&fOut, epoch: s.epoch + 1}
		default:
			*s = peerSlot{flags: s.flags & fOut, epoch: s.epoch + 1}
		}
	}
	p.stats.JoinBytes += uint64(len(b))
	p.join = nil
	p.own.joined = h.frame
	p.authDirty, p.own.full = true, true
}

// joinTopUp is the most bytes of pages StartJoin keeps queued on a join lane
// between steps. Called again as the lane drains, it lets the transport send
// the first pages while the host builds the next, where building the whole
// world at once would hold the host's loop (and the lane) for it.
const joinTopUp = 256 << 10

// StartJoin sends the first pages of peer id's join now, between steps,
// instead of at the next step: one page at the first call (the transport
// starts on it while the host builds the next), then as many as keep the
// smaller of the join lane's window and 256 KiB queued, within what is left
// of the step's JoinBytesPerStep, of the world as of the last step (what
// changed since goes in a later round, as for any page). It reports whether
// pages of the join's first round are left that a later call can send
// before the next step (not once the step's JoinBytesPerStep is spent: then
// after it): call it again soon (the session's Handshake does, every
// millisecond while it reports more, and again after each step while the
// peer joins). The call
// that finds the round sent sends FINAL too when no entity it paged changed
// since (else the next step begins the round that catches up with them), so
// a join does not wait for a step to end.
//
// From the first call on, the join is paced: while its first round lasts, a
// step keeps no more of it queued than a call does, so no step holds the
// host's loop to build the whole world, and the transport sends while the
// host builds. It does nothing (and reports false) before the first step,
// for a peer that is not joining, and for one that owns entities the last
// step did not take in as its own (spawned, or given to it, since): they
// decide its scope, so its join begins at the next step (paced all the
// same). Call it on the simulation goroutine,
// between steps.
func (h *HostReplicator) StartJoin(id ecs.PeerID) (more bool) {
	p := h.Peer(id)
	if p == nil || p.join == nil || p.err != nil {
		return false
	}
	p.join.paced = true
	if !p.scoped() {
		return false
	}
	j := p.join
	p.grow(len(h.ents))
	window := min(h.cfg.JoinWindow, joinTopUp)
	if j.pages == 0 {
		// The first call sends one page: the transport starts on it (its
		// writer runs, its stream opens) once the host's loop goes back to
		// waiting, rather than after a whole top-up was built.
		window = 1
	}
	left := func() bool { return int(j.cursor) < len(h.ents) || len(j.despawns) > 0 }
	if buffered := p.out.LaneBuffered(transport.LaneJoin); buffered < j.left || buffered == 0 {
		j.stalls = 0
	} else {
		j.stalls = min(j.stalls+1, stallCalls)
	}
	for h.budget > 0 && p.out.LaneBuffered(transport.LaneJoin) < window && left() {
		if !j.sendPage(p) {
			break
		}
	}
	if p.err == nil && p.join != nil {
		j.left = p.out.LaneBuffered(transport.LaneJoin)
	}
	// A lane that has not drained for stallCalls calls waits for the next
	// step's top-up rather than being polled again.
	moving := j.stalls < stallCalls
	switch {
	case p.err != nil || p.join == nil:
		return false
	case left():
		// With the step's budget spent, the next call that can send comes
		// after the next step (the session tops joins up after each one).
		return j.round == 1 && h.budget > 0 && moving
	case j.pending != 0:
		return false // the next step's round catches up with what changed
	case p.out.LaneBuffered(transport.LaneJoin) >= window:
		return moving // FINAL waits for room
	}
	// Pages are built from the host's images, which change only at steps:
	// the world as of the last step is sent whole, and FINAL says so now.
	// What the game changed since (OnJoin, commands) is journaled, and the
	// next step sends it as State, as to any peer.
	j.finish(p)
	if p.join == nil {
		h.joins--
	}
	return false
}
