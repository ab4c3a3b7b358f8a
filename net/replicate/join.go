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
type joinState struct {
	round    int
	cursor   int32 // next slot to look at in this round
	pending  int   // slots flagged fCatchUp
	despawns []ecs.NetID
	pages    uint32
	page     []byte
	paged    []int32 // the slots of the page being built
}

func newJoin(h *HostReplicator, p *HostPeer) *joinState {
	return &joinState{round: 1, page: make([]byte, 0, h.cfg.JoinPage+1024)}
}

func (j *joinState) flag(s *peerSlot) {
	if s.flags&fCatchUp == 0 {
		s.flags |= fCatchUp
		j.pending++
	}
}

func (j *joinState) unflag(s *peerSlot) {
	if s.flags&fCatchUp != 0 {
		s.flags &^= fCatchUp
		j.pending--
	}
}

func (j *joinState) onSpawn(p *HostPeer, slot int32) {
	s := &p.slots[slot]
	j.unflag(s)
	*s = peerSlot{}
	if j.round == 1 && slot >= j.cursor {
		return // the cursor will reach it
	}
	j.flag(s)
}

func (j *joinState) onDespawn(p *HostPeer, id ecs.NetID, slot int32) {
	s := &p.slots[slot]
	if s.flags&fPaged != 0 {
		j.despawns = append(j.despawns, id)
	}
	j.unflag(s)
	*s = peerSlot{}
}

func (j *joinState) onChange(p *HostPeer, slot int32) {
	if s := &p.slots[slot]; s.flags&fPaged != 0 {
		j.flag(s)
	}
}

// remaining reports whether the round has slots left to look at.
func (j *joinState) remaining(w *ecs.World) bool {
	return int(j.cursor) < w.NetSlots()
}

// next returns the next slot of the round to page, or -1.
func (j *joinState) next(p *HostPeer) int32 {
	w := p.h.w
	n := int32(w.NetSlots())
	for j.cursor < n {
		slot := j.cursor
		j.cursor++
		s := &p.slots[slot]
		if j.round == 1 {
			if _, _, ok := w.SlotEntity(slot); ok && s.flags&fPaged == 0 {
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
	w := h.w
	p.grow(w.NetSlots())
	for p.out.LaneBuffered(transport.LaneJoin) < h.cfg.JoinWindow {
		if !j.remaining(w) && len(j.despawns) == 0 {
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
	w := h.w
	reg := h.reg
	// Removals ride at the front of pages, a bounded number per page.
	removals := min(len(j.despawns), h.cfg.JoinPage/wire.MaxVarintLen32)
	b := append(j.page[:0], byte(wire.KindJoinPage))
	b = wire.AppendUvarint(b, uint64(w.Frame()))
	b = wire.AppendUvarint(b, uint64(w.Networked()))
	b = wire.AppendUvarint(b, uint64(removals))
	for _, id := range j.despawns[:removals] {
		b = wire.AppendUvarint(b, uint64(id))
	}
	q := h.scratch
	j.paged = j.paged[:0]
	for len(b) < h.cfg.JoinPage {
		slot := j.next(p)
		if slot < 0 {
			break
		}
		e, id, _ := w.SlotEntity(slot)
		if h.cfg.Scope != nil && !h.cfg.Scope(p.id, e) {
			s := &p.slots[slot]
			if s.flags&fPaged != 0 {
				// An earlier page gave it to the peer: take it back.
				j.despawns = append(j.despawns, id)
			}
			j.unflag(s)
			*s = peerSlot{}
			continue
		}
		ni, _ := w.Identity(e)
		b = reg.appendEntityImage(b, entityRef{e, id}, ni.Owner, reg.mask(e), q)
		s := &p.slots[slot]
		j.unflag(s)
		s.flags |= fPaged
		s.frame = uint32(w.Frame())
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
			s.flags &^= fPaged
			j.flag(s)
		}
		return false
	}
	j.despawns = append(j.despawns[:0], j.despawns[removals:]...)
	j.pages++
	p.stats.JoinPages++
	p.stats.JoinBytes += uint64(len(b))
	return true
}

// finish sends FINAL and turns the peer to ordinary replication: every paged
// entity is held by the peer as of its page. FINAL says how many pages the
// join sent and how many entities they leave the peer holding, so the client
// knows whether it has them all.
func (j *joinState) finish(p *HostPeer) {
	w := p.h.w
	held := 0
	for i := range p.slots {
		if p.slots[i].flags&fPaged != 0 {
			held++
		}
	}
	b := append(j.page[:0], byte(wire.KindJoinFinal))
	b = wire.AppendUvarint(b, uint64(w.Frame()))
	b = wire.AppendUvarint(b, uint64(j.pages))
	b = wire.AppendUvarint(b, uint64(w.Networked()))
	b = wire.AppendUvarint(b, uint64(held))
	if err := p.out.SendLane(transport.LaneJoin, b); err != nil {
		p.err = err
		return
	}
	for i := range p.slots {
		s := &p.slots[i]
		if s.flags&fPaged != 0 {
			*s = peerSlot{flags: fKnown}
		} else {
			*s = peerSlot{}
		}
	}
	p.stats.JoinPages++
	p.join = nil
	p.authDirty = true
}
