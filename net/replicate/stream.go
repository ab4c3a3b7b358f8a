package replicate

import "github.com/tandem-go/tandem/ecs"

// Packing in one pass: a peer whose choices no other peer reads this send
// tick (it packs last, and no tape is kept of it) and whose due items fit
// its budget easily has each item it chooses written into the message
// being filled at once, with its record, instead of choosing every item
// into a list and writing the list after. The common item, an update
// against the image the peer acknowledged last of an entity whose image
// was replaced since (what a peer that keeps up is sent of a moving body),
// is decided and written in a few steps of its own; any other goes through
// choose, commit and writeItem. The messages and records are the same as
// packing in two passes makes (TestStreamedPackingIsTheSame), but for two
// things. A record evicted unresolved (maxRecords messages in flight) is
// settled as lost when the next message's record opens, mid-pass, where
// two passes settle it after choosing: what it carried is dirty again
// either way, for this tick's later items or the next tick's. And a last
// peer whose items are exactly the peer's before it (when tapes are off:
// a scope or HostConfig.Priority) writes its messages itself rather than
// taking that peer's bytes: the same bytes, not counted as Reused.

// streamInOrder chooses every due item in id order, as takeInOrder does,
// and writes each at once: its fields, its record, and every full message
// handed to the connection.
func (p *HostPeer) streamInOrder(sp *spend, budget int) {
	h := p.h
	ps := &p.pk
	delta := h.reg.delta
	common := h.common
	limit := 8*MaxStatePayload - messageHeaderBits - 7*h.book.n - len(h.reg.comps) - p.base.bits
	idCode := h.book.codes[streamID]
	// The common item is taken here only with a common mask to carry, and
	// the newest image as the common base; its fields' plan and the id
	// gaps' code are the tick's.
	quick := common != 0 && p.base.age == 0
	var cf commonFields
	if quick {
		cf = commonFields{fields: h.commonPlan(), ids: h.tables.of(idCode), id: idCode}
	}
	ps.items.Reset(ps.buf[:0])
	var st itemStreams
	var rec *sentRecord
	var token uint32
	var prev ecs.NetID
	var pk pick
	count, kept, spent := 0, 0, 0
	avg := int(ps.avgBits) // choosing without encoding leaves it as it is
	slots, ents := p.slots, h.ents
	// The tick's removals, picked already and in id order, go among the
	// items by their ids.
	removals := ps.picks
	h.streamed++
	for _, k := range p.dirty {
		slot := int32(uint32(k))
		s := &slots[slot]
		e := &ents[slot]
		if s.flags&fListed == 0 || e.id != ecs.NetID(k>>32) || s.wait&waiting != 0 {
			continue // stale (due)
		}
		if e.flags&eLive == 0 || s.flags&fOut != 0 {
			s.flags &^= fListed
			s.dirty = 0
			continue
		}
		if sp.est > budget {
			p.dirty[kept] = k // more was due than the budget holds: it waits
			kept++
			p.stats.Deferred++
			continue
		}
		for len(removals) > 0 && removals[0].id <= e.id {
			spent += p.streamRemoval(&removals[0], &rec, &token, &count, &st, &prev, limit, common, idCode)
			removals = removals[1:]
		}
		if quick {
			switch acc, n, ok := p.commonItem(s, e, slot, prev, common, &cf); {
			case ok && n == 0:
				s.unlist()
				continue // nothing the peer lacks
			case ok:
				// choose and commit, for the common item.
				h.quick++
				p.stats.Deltas++
				p.pk.heads[0]++ // (countHead's, for this item)
				if s.base == p.base.acked {
					p.pk.heads[1]++
				}
				sp.add(sp.cost(avg))
				s.sends++
				s.unlist()
				e.flags |= eSent
				e.ref = e.since
				mark := ps.items.BitLen()
				ps.items.WriteBits(acc, n)
				if ps.items.BitLen() > limit && count > 0 {
					ps.items.Truncate(mark)
					spent += p.sendStreamed(token, count, &st, mark)
					count, st, rec = 0, itemStreams{}, nil
					ps.items.Reset(ps.buf)
					pk = pick{slot: slot, id: e.id, enc: -1, bref: refPrev, head: head{flags: bodyNewest, mask: common, base: s.base}, bhas: e.prevHas}
					p.writeItem(&ps.items, &pk, 0, common, idCode)
				}
				if rec == nil {
					rec, token = p.record(h.frame, false)
				}
				it := p.recs.push(rec) // field by field (see appendChange)
				it.slot, it.id, it.mask, it.kind, it.send, it.epoch = slot, e.id, 0, 0, s.sends, s.epoch
				st.res |= common
				count++
				prev = e.id
				continue
			}
		}
		if !p.choose(slot, false, &pk) {
			s.unlist()
			continue // nothing the peer lacks
		}
		sp.add(sp.cost(avg))
		p.commit(slot, &pk)
		mark := ps.items.BitLen()
		p.writeItem(&ps.items, &pk, prev, common, idCode)
		if ps.items.BitLen() > limit && count > 0 {
			ps.items.Truncate(mark)
			spent += p.sendStreamed(token, count, &st, mark)
			count, st, rec = 0, itemStreams{}, nil
			ps.items.Reset(ps.buf)
			p.writeItem(&ps.items, &pk, 0, common, idCode)
		}
		if rec == nil {
			rec, token = p.record(h.frame, false)
		}
		it := p.recs.push(rec)
		it.slot, it.id, it.mask, it.kind, it.send, it.epoch = slot, pk.id, pk.nd, pk.kind, s.sends, s.epoch
		st.add(&pk.head, delta)
		count++
		prev = pk.id
	}
	for i := range removals {
		spent += p.streamRemoval(&removals[i], &rec, &token, &count, &st, &prev, limit, common, idCode)
	}
	p.dirty = p.dirty[:kept]
	if count > 0 {
		spent += p.sendStreamed(token, count, &st, ps.items.BitLen())
	}
	p.tokens -= uint32(min(spent, int(p.tokens)))
}

// streamRemoval writes the removal pk into the message being filled, as
// streamInOrder writes an item (rec, token, count, st and prev are its
// message's), and returns the budget a message it completed took.
func (p *HostPeer) streamRemoval(pk *pick, rec **sentRecord, token *uint32, count *int, st *itemStreams, prev *ecs.NetID, limit int, common uint16, idCode code) (spent int) {
	ps := &p.pk
	mark := ps.items.BitLen()
	p.writeItem(&ps.items, pk, *prev, common, idCode)
	if ps.items.BitLen() > limit && *count > 0 {
		ps.items.Truncate(mark)
		spent = p.sendStreamed(*token, *count, st, mark)
		*count, *st, *rec = 0, itemStreams{}, nil
		ps.items.Reset(ps.buf)
		p.writeItem(&ps.items, pk, 0, common, idCode)
	}
	if *rec == nil {
		*rec, *token = p.record(p.h.frame, false)
	}
	it := p.recs.push(*rec)
	*it = sentItem{id: pk.id, kind: itemDespawn}
	p.stats.Despawns++
	*count++
	*prev = pk.id
	return spent
}

// commonItem decides whether the due entity in slot goes as the common
// item (ok): an update against the image the peer acknowledged last, which
// is the one the current image replaced, carrying the common mask and no
// teleport, its residuals the changes less the motion the velocities
// predict, and all of it in one word. It returns the item's bits, its id
// gap from prev first, or n == 0 when the peer holds the entity as it is;
// ok is false for any other item, which choose decides. It changes nothing
// of the peer or the entity (it uses the host's coding context, h.dc, and
// counts what it codes on a tick that counts the streams).
func (p *HostPeer) commonItem(s *peerSlot, e *entState, slot int32, prev ecs.NetID, common uint16, cf *commonFields) (acc uint64, n uint, ok bool) {
	h := p.h
	delta := h.reg.delta
	if s.flags&(fSpawning|fNeedSpawn) != 0 || s.dirty&^delta&e.has != 0 ||
		s.base == 0 || s.sends != s.bsend || e.has&delta == 0 {
		return 0, 0, false
	}
	if s.base >= e.since {
		return 0, 0, true // the peer holds the current image, and nothing newer is on its way
	}
	if s.base < e.prevSince || s.base >= e.prevUntil || e.prevHas&delta&e.has != e.has&delta ||
		e.dprev != common || h.pose >= 0 && common&(1<<uint(h.pose)) != 0 && h.snapAge(e) != 0 {
		return 0, 0, false
	}
	nf := h.reg.fields
	at := int(slot) * 2 * nf
	img := h.img[at : at+2*nf : at+2*nf]
	cur, bimg := img[:nf], img[nf:]
	dc := &h.dc
	if pr := &h.pred; pr.moving(e.prevHas, common, cur, bimg) {
		dc.moving = true
		pr.predict(&dc.mo, cur, bimg, h.frame-s.base)
	} else {
		dc.moving = false
	}
	gap := uint64(e.id - prev - 1)
	if acc, n = cf.ids.word(gap); n == 0 {
		if acc, n = cf.id.word(gap); n == 0 || n == 64 {
			return 0, 0, false
		}
	}
	acc |= 1 << (n & 63) // the common head
	n++
	fields := cf.fields
	acc, n, ok = deltaWord(acc, n, fields, img[:nf], dc)
	if ok && h.tick%statsEvery == 0 {
		h.stats.add(streamID, uint64(e.id-prev-1))
		h.stats.addFields(fields, h.codes)
	}
	return acc, n, ok
}

// commonFields is what writing a send tick's common items needs: the
// field plan of the common mask and the id gaps' code.
type commonFields struct {
	fields []fieldPlan
	ids    *codeTable
	id     code
}

// sendStreamed assembles the message of the count items written (its first
// bits of the items writer) and queues it with its record's token; it
// returns the budget it took, in bytes.
func (p *HostPeer) sendStreamed(token uint32, count int, st *itemStreams, bits int) int {
	h := p.h
	ps := &p.pk
	items := ps.items.Finish()
	h.buf = h.assemble(h.buf[:0], count, st, h.common, p.base.age, items, bits)
	ps.buf = items[:0]
	return p.queueState(h.buf, token, count)
}
