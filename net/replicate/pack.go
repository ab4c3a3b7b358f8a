package replicate

import (
	"slices"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// Priority units: an item is due when its priority reaches urgent; each send
// tick a dirty item gains between MinUrgency·urgent and urgent, by the size of
// its change (see Codec.Significant).
const urgent = 16

// MinUrgency is the least priority a dirty item gains per send tick, as a
// fraction of what makes it due: the slowest creeping change goes out at least
// every 1/MinUrgency send ticks.
const MinUrgency = 1.0 / 8

// urgency returns the priority the entity in slot gains this send tick: urgent
// for a spawn, a component without an acknowledged value or without
// thresholds, else in proportion to the largest change against the
// thresholds.
func (p *HostPeer) urgency(slot int32) int {
	s := &p.slots[slot]
	if s.flags&fNeedSpawn != 0 || s.base == 0 {
		return urgent
	}
	h := p.h
	reg := h.reg
	e, _, ok := h.w.SlotEntity(slot)
	if !ok {
		return urgent
	}
	b := &p.base
	rec := s.base - 1
	q := h.scratch
	best := int(urgent * MinUrgency)
	for c := range reg.comps {
		bit := uint16(1) << uint(c)
		comp := &reg.comps[c]
		if s.dirty&bit == 0 {
			continue
		}
		if !comp.delta || comp.signif[0] == 0 || b.has[rec]&bit == 0 {
			return urgent
		}
		img := q[:comp.fields]
		comp.quant(h.w.Arche().Get(e, comp.id), img)
		base := b.vals[int(rec)*b.fields+reg.offset[c]:][:comp.fields]
		for i, v := range img {
			t := comp.signif[i]
			if t <= 0 {
				continue
			}
			d := int64(wrapDiff(v, base[i], comp.wrap[i]))
			if d < 0 {
				d = -d
			}
			if d >= int64(t) {
				return urgent
			}
			best = max(best, int(d*urgent/int64(t)))
		}
	}
	return best
}

// pick is an item chosen for this send tick: its encoded body (everything
// after the id) in the peer's arena, and its values for the sent record.
type pick struct {
	slot        int32
	id          ecs.NetID
	kind        uint8
	mask        uint16
	sendNo      uint32
	body, bodyN int32 // offset and length in arena
	vals        int32 // offset in pickVals; -1 for a removal
}

// pack sends the peer's pending removals and dirty entities within the
// budget: due items highest priority first are chosen and encoded, then
// written in network-id order so each id travels as a small difference from
// the one before it.
func (p *HostPeer) pack() {
	h := p.h
	w := h.w
	if len(p.despawns) == 0 && len(p.dirty) == 0 {
		return
	}
	p.arena = p.arena[:0]
	p.picks = p.picks[:0]
	p.pickVals = p.pickVals[:0]
	budget := int(p.tokens)
	est := 0
	perMessage := wire.MessageOverhead(MaxStatePayload) + h.cfg.DatagramOverhead + wire.MaxVarintLen32
	// cost returns the budget an item of n body bytes takes: its bytes, an id
	// of at most three bytes, and a message's framing every MaxStatePayload.
	cost := func(n int) int {
		c := n + 3
		if est/MaxStatePayload != (est+c)/MaxStatePayload || est == 0 {
			c += perMessage
		}
		return c
	}
	full := false
	for i := range p.despawns {
		d := &p.despawns[i]
		if d.flying {
			continue
		}
		c := cost(1)
		if est+c > budget {
			full = true
			break
		}
		est += c
		d.flying = true
		p.arena = append(p.arena, itemDespawn)
		p.picks = append(p.picks, pick{id: d.id, kind: itemDespawn, body: int32(len(p.arena) - 1), bodyN: 1, vals: -1})
	}
	for _, slot := range p.dirty {
		s := &p.slots[slot]
		if s.flags&fListed == 0 {
			continue
		}
		// A small change grows towards due by its size; once due, every
		// item ages alike, so those waiting longest go first.
		gain := urgent
		if s.prio < urgent {
			gain = p.urgency(slot)
		}
		if h.cfg.Priority != nil {
			if e, _, ok := w.SlotEntity(slot); ok {
				weight := min(max(h.cfg.Priority(p.id, e), 1.0/16), 4)
				gain = max(1, int(float64(gain)*weight+0.5))
			}
		}
		s.prio = uint8(min(255, int(s.prio)+gain))
	}
	p.sortDirty()
	kept := 0
	for _, slot := range p.dirty {
		s := &p.slots[slot]
		if s.flags&fListed == 0 {
			continue
		}
		if full || s.prio < urgent {
			// Out of budget, or a change too small to be due yet: it waits,
			// its priority grown.
			if full {
				p.stats.Deferred++
			}
			p.dirty[kept] = slot
			kept++
			continue
		}
		e, id, ok := w.SlotEntity(slot)
		if !ok {
			s.flags &^= fListed
			continue
		}
		if h.cfg.Scope != nil && !h.cfg.Scope(p.id, e) {
			p.forget(slot, id)
			s.flags &^= fListed
			continue
		}
		mark := len(p.arena)
		pk, ok := p.encodeEntity(slot, entityRef{e, id})
		if !ok {
			continue // nothing the peer lacks
		}
		c := cost(int(pk.bodyN))
		// The first item of a tick always goes once the budget is full, even
		// if larger than the budget holds, so nothing waits behind it forever.
		if est+c > budget && (est > 0 || p.tokens < p.maxTokens()) {
			p.arena = p.arena[:mark]
			p.pickVals = p.pickVals[:pk.vals]
			full = true
			p.dirty[kept] = slot
			kept++
			p.stats.Deferred++
			continue
		}
		est += c
		p.commitPick(slot, &pk)
		p.picks = append(p.picks, pk)
	}
	p.dirty = p.dirty[:kept]
	p.writePicks()
}

// encodeEntity encodes the item of the entity in slot into the arena: a spawn
// with every component, or the dirty components that differ from what the
// peer holds, as deltas where smaller. ok is false when nothing differs.
func (p *HostPeer) encodeEntity(slot int32, e entityRef) (pk pick, ok bool) {
	h := p.h
	reg := h.reg
	s := &p.slots[slot]
	n := len(reg.comps)
	pk = pick{slot: slot, id: e.id, vals: int32(len(p.pickVals))}
	p.pickVals = append(p.pickVals, make([]int32, reg.fields)...)
	q := p.pickVals[pk.vals:]
	start := len(p.arena)
	var rec int32 = -1
	if s.base != 0 {
		rec = s.base - 1
	}
	b := &p.base
	pk.sendNo = 1
	if rec >= 0 {
		pk.sendNo = b.sends[rec] + 1
	}
	if s.flags&fSpawning != 0 {
		// The spawn is still in flight: the peer may not hold the entity, so
		// what changed goes as another spawn, which it applies idempotently.
		s.flags |= fNeedSpawn
	}
	if s.flags&fNeedSpawn != 0 {
		ni, _ := h.w.Identity(e.entity)
		mask := reg.mask(e.entity)
		p.arena = wire.AppendUvarint(p.arena, uint64(itemSpawn)|uint64(mask)<<itemShift)
		p.arena = wire.AppendUvarint(p.arena, uint64(ni.Owner))
		for c := range reg.comps {
			if mask&(1<<uint(c)) == 0 {
				continue
			}
			comp := &reg.comps[c]
			img := q[reg.offset[c] : reg.offset[c]+comp.fields]
			comp.quant(h.w.Arche().Get(e.entity, comp.id), img)
			p.arena = appendAbsolute(p.arena, img)
		}
		pk.kind, pk.mask = itemSpawn, mask
		pk.body, pk.bodyN = int32(start), int32(len(p.arena)-start)
		return pk, true
	}
	var mask, deltas uint16
	var baseFrame uint32
	for c := range reg.comps {
		bit := uint16(1) << uint(c)
		if s.dirty&bit == 0 {
			continue
		}
		comp := &reg.comps[c]
		img := q[reg.offset[c] : reg.offset[c]+comp.fields]
		comp.quant(h.w.Arche().Get(e.entity, comp.id), img)
		if rec >= 0 && b.has[rec]&bit != 0 && comp.delta {
			fi := int(rec)*b.comps + c
			base := b.vals[int(rec)*b.fields+reg.offset[c]:][:comp.fields]
			if b.sendNos[fi] == b.sends[rec] && equalImage(img, base) {
				continue // the peer holds this value and nothing newer is on its way
			}
			// Every delta of an item shares one baseline frame, sent once.
			if pk.sendNo-1-b.sendNos[fi] < DeltaReach && (deltas == 0 || b.frames[fi] == baseFrame) {
				extra := 0
				if deltas == 0 {
					extra = wire.UvarintLen(uint64(uint32(h.w.Frame()) - b.frames[fi]))
				}
				if deltaLen(img, base, &comp.wrap)+extra < imageLen(img) {
					deltas |= bit
					baseFrame = b.frames[fi]
				}
			}
		}
		mask |= bit
	}
	if mask == 0 {
		p.pickVals = p.pickVals[:pk.vals]
		s.dirty = 0
		s.flags &^= fListed
		s.prio = 0
		return pk, false
	}
	flags := uint64(mask)<<itemShift | uint64(deltas)<<(itemShift+uint(n))
	snapAge, snap := uint32(0), false
	if h.pose >= 0 && mask&(1<<uint(h.pose)) != 0 {
		snapAge, snap = h.snapAge(slot, e.id)
	}
	if snap {
		flags |= 1 << (itemShift + 2*uint(n))
	}
	p.arena = wire.AppendUvarint(p.arena, flags)
	if deltas != 0 {
		p.arena = wire.AppendUvarint(p.arena, uint64(uint32(h.w.Frame())-baseFrame))
	}
	if snap {
		p.arena = wire.AppendUvarint(p.arena, uint64(snapAge))
	}
	for c := range reg.comps {
		bit := uint16(1) << uint(c)
		if mask&bit == 0 {
			continue
		}
		comp := &reg.comps[c]
		img := q[reg.offset[c] : reg.offset[c]+comp.fields]
		if deltas&bit != 0 {
			p.arena = appendDelta(p.arena, img, b.vals[int(rec)*b.fields+reg.offset[c]:][:comp.fields], &comp.wrap)
			p.stats.Deltas++
		} else {
			p.arena = appendAbsolute(p.arena, img)
		}
	}
	pk.mask = mask
	pk.body, pk.bodyN = int32(start), int32(len(p.arena)-start)
	return pk, true
}

// commitPick updates the peer's record of the entity for a chosen item.
func (p *HostPeer) commitPick(slot int32, pk *pick) {
	s := &p.slots[slot]
	if s.base == 0 {
		s.base = p.base.alloc() + 1
	}
	p.base.sends[s.base-1]++
	if pk.kind == itemSpawn {
		s.flags = s.flags&^fNeedSpawn | fSpawning | fSent
		s.frame = uint32(p.h.w.Frame())
		p.stats.Spawns++
	}
	s.dirty = 0
	s.flags &^= fListed
	s.prio = 0
}

// writePicks writes the chosen items in network-id order into STATE
// messages and hands them to the connection.
func (p *HostPeer) writePicks() {
	if len(p.picks) == 0 {
		return
	}
	h := p.h
	p.order64 = p.order64[:0]
	for i := range p.picks {
		p.order64 = append(p.order64, uint64(p.picks[i].id)<<32|uint64(i))
	}
	slices.Sort(p.order64)
	frame := h.w.Frame()
	var rec *sentRecord
	var token uint32
	var prev ecs.NetID
	header := 0
	spent := 0
	flush := func() {
		if rec == nil {
			return
		}
		if err := p.out.QueueDatagram(wire.KindState, h.buf, token); err != nil {
			// The datagram never left: its items are lost.
			p.resolve(rec, false)
		}
		p.stats.Messages++
		p.stats.Bytes += uint64(len(h.buf))
		spent += len(h.buf) + wire.MessageOverhead(len(h.buf)) + h.cfg.DatagramOverhead
		rec = nil
	}
	for _, key := range p.order64 {
		pk := &p.picks[uint32(key)]
		body := p.arena[pk.body : pk.body+pk.bodyN]
		if rec != nil && len(h.buf)+wire.MaxVarintLen32+len(body) > MaxStatePayload {
			flush()
		}
		if rec == nil {
			h.buf = wire.AppendUvarint(h.buf[:0], uint64(frame))
			header = len(h.buf)
			rec, token = p.record(frame)
			prev = 0
		}
		_ = header
		h.buf = wire.AppendUvarint(h.buf, uint64(pk.id-prev))
		prev = pk.id
		h.buf = append(h.buf, body...)
		it := sentItem{slot: pk.slot, id: pk.id, mask: pk.mask, kind: pk.kind, sendNo: pk.sendNo}
		if pk.vals >= 0 {
			it.valOff = int32(len(rec.vals))
			rec.vals = append(rec.vals, p.pickVals[pk.vals:int(pk.vals)+h.reg.fields]...)
		}
		rec.items = append(rec.items, it)
		p.stats.Items++
		if pk.kind == itemDespawn {
			p.stats.Despawns++
		}
	}
	flush()
	p.tokens -= uint32(min(spent, int(p.tokens)))
}

func equalImage(a, b []int32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
