package replicate

import (
	"math"
	"math/bits"
	"slices"

	"github.com/tandem-go/tandem/ecs"
)

// Choosing a peer's items for a send tick: in network-id order when the
// budget holds them all (takeInOrder), highest priority first when it does
// not (takeByPriority). choose decides an item's kind, baseline and mask;
// commit records what the peer was sent.

// takeInOrder chooses every due item, in id order: the budget is not in
// question, so their fields are written straight into the messages.
func (p *HostPeer) takeInOrder(sp *spend, budget int) {
	ps := &p.pk
	kept := 0
	avg := int(ps.avgBits) // choosing without encoding leaves it as it is
	for _, k := range p.dirty {
		slot, ok := p.due(k)
		if !ok {
			continue
		}
		s := &p.slots[slot]
		if sp.est > budget {
			p.dirty[kept] = k // more was due than the budget holds: it waits
			kept++
			p.stats.Deferred++
			continue
		}
		pk := ps.nextPick()
		if !p.choose(slot, false, pk) {
			s.unlist()
			continue // nothing the peer lacks
		}
		sp.add(sp.cost(avg))
		p.commit(slot, pk)
		ps.picks = ps.picks[:len(ps.picks)+1]
	}
	p.dirty = p.dirty[:kept]
}

// weigh returns the priority gain g weighed by the peer's interest in the
// entity in slot (distance) and the game's HostConfig.Priority.
func (p *HostPeer) weigh(slot int32, g int) int {
	h := p.h
	weight := 1.0
	if len(p.scope.at) > 0 {
		weight = h.grid.weightOf(p, slot)
	}
	weight *= p.gamePriority(slot)
	if weight != 1 {
		g = max(1, int(float64(g)*weight+0.5))
	}
	return g
}

// gamePriority returns the game's HostConfig.Priority of the entity in slot
// for the peer, within 1/16 and 4; 1 without one.
func (p *HostPeer) gamePriority(slot int32) float64 {
	prio := p.h.cfg.Priority
	if prio == nil {
		return 1
	}
	ent, _, ok := p.h.w.SlotEntity(slot)
	if !ok {
		return 1
	}
	return min(max(prio(p.id, ent), 1.0/16), 4)
}

// moverFrames is how recently an entity changed, in steps, to count as
// moving when it enters a peer's scope (a second at 60 Hz).
const moverFrames = 60

// entryPriority returns the priority an entity entering the peer's scope
// starts with. When more enter than the budget carries at once (a jump
// across the world, a camera cut into a crowd), what moves goes first and
// the changes of what the peer holds go on, and still decor fills what
// they leave: a mover (changed within moverFrames, or new) enters at the
// top (prioLongest), ahead of all but stops; still decor at the bottom of what is
// due (urgent), gaining at most a quarter of a tick's gain each send tick
// it waits (decorGain: the near more than the far), so the changes, which
// gain a whole one, go ahead of it, and within 60 send ticks (2 s at
// 30 Hz; 240 at the radius's edge) it is at the top too. Each doubling of
// its weight (distance from the square that brings it, the game's
// Priority) adds a tick's gain to where it starts, each halving takes one
// away (decor starts at the bottom: only a Priority above 1 raises it).
func (p *HostPeer) entryPriority(slot int32) uint8 {
	h := p.h
	pr := urgent
	if !p.decor(slot) {
		pr = prioLongest
	}
	w := p.gamePriority(slot)
	if h.grid.on {
		w *= h.grid.entryWeight(p, slot)
	}
	if w != 1 {
		pr += int(math.Round(math.Log2(w) * urgent))
	}
	return uint8(min(max(pr, urgent), prioLongest))
}

// decorGain is what still decor entering the peer's scope gains a send tick
// it waits: a quarter of a change's, weighed by its distance from what the
// peer owns (at least 1), so the near comes before the far.
func (p *HostPeer) decorGain(slot int32) int {
	w := 1.0
	if len(p.scope.at) > 0 {
		w = p.h.grid.weightOf(p, slot)
	}
	return max(1, int(float64(urgent/4)*w+0.5))
}

// decor reports whether the entity in slot has stood still for
// moverFrames (one that came into the world lately is no decor).
func (p *HostPeer) decor(slot int32) bool {
	return p.h.frame-p.h.ents[slot].changed >= moverFrames
}

// takeByPriority chooses due items highest priority first until the
// budget is spent; the others wait, their priority grown.
func (p *HostPeer) takeByPriority(sp *spend, budget int, full bool) {
	ps := &p.pk
	sp.gap = ps.gapGuess() // each item's own bits are known (choose encodes it)
	valid := 0
	for _, k := range p.dirty {
		if _, ok := p.due(k); !ok {
			continue
		}
		p.dirty[valid] = k
		valid++
	}
	p.dirty = p.dirty[:valid]
	// A counting sort of the due items over the 256 priorities (stable).
	var count [256]int32
	for _, k := range p.dirty {
		if pr := p.slots[uint32(k)].prio; pr >= urgent {
			count[pr]++
		}
	}
	var start [256]int32
	pos := int32(0)
	for i := 255; i >= urgent; i-- {
		start[i] = pos
		pos += count[i]
	}
	if cap(ps.order) < int(pos) {
		ps.order = make([]uint64, pos, 2*pos)
	}
	ps.order = ps.order[:pos]
	for _, k := range p.dirty {
		if pr := p.slots[uint32(k)].prio; pr >= urgent {
			ps.order[start[pr]] = k
			start[pr]++
		}
	}
	// The items waiting longest (their priority at its top) take turns by
	// id, from after the last of them taken: in id order alone, once more
	// waited that long than a tick's budget holds, the lowest ids went
	// every tick and the others never.
	turns := ps.order[count[prioStop] : count[prioStop]+count[prioLongest]]
	rotateFrom(turns, p.turn)
	for _, k := range ps.order {
		slot := int32(uint32(k))
		s := &p.slots[slot]
		if full {
			p.stats.Deferred++
			continue
		}
		longest := s.prio == prioLongest
		pk := ps.nextPick()
		if !p.choose(slot, true, pk) {
			s.unlist()
			continue // nothing the peer lacks
		}
		c := sp.cost(int(pk.bits))
		if p.overBudget(sp, c, budget) {
			full = true
			p.stats.Deferred++
			continue
		}
		sp.add(c)
		p.commit(slot, pk)
		ps.picks = ps.picks[:len(ps.picks)+1]
		if longest {
			p.turn = pk.id
		}
	}
	// What went is no longer listed; the rest keeps its place by id.
	kept := 0
	for _, k := range p.dirty {
		if p.slots[uint32(k)].flags&fListed != 0 {
			p.dirty[kept] = k
			kept++
		}
	}
	p.dirty = p.dirty[:kept]
}

// sortPicks puts the picks in network-id order.
func (p *HostPeer) sortPicks() {
	ps := &p.pk
	picks := ps.picks
	if len(picks) < 2 {
		return
	}
	ps.keys = ps.keys[:0]
	for i := range picks {
		ps.keys = append(ps.keys, uint64(picks[i].id)<<32|uint64(i))
	}
	ps.keys, ps.tmp = sortKeys(ps.keys, ps.tmp)
	ps.sel = append(ps.sel[:0], picks...)
	for i, k := range ps.keys {
		picks[i] = ps.sel[uint32(k)]
	}
}

// nextPick returns the place of the next pick, past the picks' length:
// choose writes an item there, and taking it extends the picks by one.
// Writing in place spares copying the pick twice an item.
func (ps *packScratch) nextPick() *pick {
	n := len(ps.picks)
	if n == cap(ps.picks) {
		ps.picks = append(ps.picks, pick{})[:n]
	}
	return &ps.picks[:n+1][n]
}

// choose finds the item the entity in slot needs and writes it to pk: a
// spawn, an update coded against the peer's baseline, or one without a
// baseline; it returns false when the peer holds the entity as it is. With
// encode, the item's fields are encoded (or found encoded for another peer)
// in the tick's arena, for their size.
func (p *HostPeer) choose(slot int32, encode bool, pk *pick) bool {
	h := p.h
	s := &p.slots[slot]
	e := &h.ents[slot]
	*pk = pick{slot: slot, id: e.id, enc: -1, bref: refNone}
	if s.flags&fSpawning != 0 {
		// The spawn is still in flight: the peer may not hold the entity, so
		// what changed goes as another spawn, which it applies idempotently.
		s.flags |= fNeedSpawn
	}
	var bimg []int32
	var bhas uint16
	hd := &pk.head
	hd.nd = s.dirty &^ h.reg.delta & e.has
	switch {
	case s.flags&fNeedSpawn != 0:
		hd.kind, hd.flags, hd.nd, hd.mask = itemSpawn, bodySpawn, 0, e.has
	case e.has&h.reg.delta != 0 && s.base != 0 && s.sends-s.bsend < DeltaReach:
		// Only an entity with delta-coded components has a baseline to code
		// against; the others go absolute (the age, 0, says so).
		pk.bref, bhas = h.imageRef(slot, s.base)
		if pk.bref != refNone && bhas&h.reg.delta&e.has == e.has&h.reg.delta {
			if encode || (pk.bref != refCurrent && pk.bref != refPrev) {
				// Only encoding, or a mask against a past image, reads it.
				bimg = h.imageOf(slot, pk.bref)
			}
			pk.bhas = bhas
			hd.base = s.base
			if s.sends == s.bsend {
				hd.flags = bodyNewest
			}
			hd.mask = h.deltaMask(slot, pk.bref, bimg, hd.nd)
			if hd.mask == 0 && hd.flags&bodyNewest != 0 {
				return false // the peer holds this image and nothing newer is on its way
			}
			break
		}
		hd.flags, hd.mask = bodyAbsolute, e.has&h.reg.delta|hd.nd
	default:
		hd.flags, hd.mask = bodyAbsolute, e.has&h.reg.delta|hd.nd
	}
	if h.pose >= 0 && hd.mask&(1<<uint(h.pose)) != 0 {
		// An item whose pose is of a teleport says so, a spawn too: the
		// peer may hold the entity already (the spawn is of an owner
		// change or a lost component, or goes again while one is in
		// flight), and draws the teleport as a jump. A spawn also says
		// when the entity was made in play, for a peer it makes the
		// entity on: drawn from then on (spawnSnap).
		if hd.kind == itemSpawn {
			hd.snap = h.spawnSnap(e)
		} else {
			hd.snap = h.snapAge(e)
		}
	}
	if hd.base != 0 {
		p.stats.Deltas++
	}
	p.countHead(hd)
	if encode {
		idx, shared := h.enc.find(slot, hd, bimg, bhas)
		if shared {
			p.stats.Shared++
		}
		pk.enc = idx
		p.pk.finds++
		pk.bits = h.enc.encs[idx].bits + p.headBits(slot, hd)
		bound := h.enc.encs[idx].bits + p.headBound(hd)
		p.pk.avgBits += (float64(bound) - p.pk.avgBits) / 64
	}
	return true
}

// headBits is what the head of an item in slot takes, as writeItem writes
// it: one bit for the common head of the peer's send tick; else its kind, its
// mask, and an update's baseline (newest, or the age in the tick's code),
// a spawn's owner. (An upper bound that counted 24 bits for every age and
// an explicit head for the common one made a full budget's items look two
// to three times their size, and a tick kept a budget it then left unspent.)
func (p *HostPeer) headBits(slot int32, hd *head) uint32 {
	if p.common(hd) {
		return 1
	}
	return p.explicitHead(slot, hd, true)
}

// headBound is the most an item's head takes, whatever its baseline's age
// and owner (an explicit head): the bound the in-order estimate keeps
// (packScratch.avgBits).
func (p *HostPeer) headBound(hd *head) uint32 { return p.explicitHead(-1, hd, false) }

// explicitHead is what an explicit head takes: exactly (the owner of the
// entity in slot, the baseline's age in the tick's code), or as a bound.
func (p *HostPeer) explicitHead(slot int32, hd *head, exact bool) uint32 {
	h := p.h
	n := uint32(len(h.reg.comps)) + 1
	switch hd.kind {
	case itemSpawn:
		owner := uint32(17)
		if exact {
			owner = expGolomb0Bits(uint64(h.ents[slot].owner))
		}
		n += kindSpawnBits + owner + 1
		if hd.snap != 0 {
			n += snapAgeBits
		}
		return n
	case itemDespawn:
		return 1 + removalBits(maxRemovalAge)
	}
	if hd.flags&bodyNewest == 0 {
		n += p.ageBits(hd, exact)
	}
	if hd.snap != 0 {
		return n + kindSnapBits + 1 + snapAgeBits
	}
	return n + kindUpdateBits + 1
}

// ageBits is what the age of an update's baseline not the newest takes:
// exactly, in the tick's code, or as a bound (24 bits past the code's
// order, and the newest flag again).
func (p *HostPeer) ageBits(hd *head, exact bool) uint32 {
	code := p.h.book.codes[streamAge]
	if !exact {
		return 1 + 2*uint32(code.k) + 24
	}
	age := uint64(0)
	if hd.flags&bodyAbsolute == 0 {
		age = uint64(p.h.frame - hd.base)
	}
	if _, k := code.word(age); k > 0 {
		return uint32(k)
	}
	return 64 // a long code
}

// expGolomb0Bits is the bits of u in order-0 Exp-Golomb.
func expGolomb0Bits(u uint64) uint32 {
	if u == math.MaxUint64 {
		return 129
	}
	return uint32(2*(bits.Len64(u+1)-1) + 1)
}

// commit updates the peer's record of the entity for a chosen item.
func (p *HostPeer) commit(slot int32, pk *pick) {
	s := &p.slots[slot]
	s.sends++
	if s.base != 0 && s.sends-s.bsend >= DeltaReach {
		s.base = 0 // the peer may not keep it any more
	}
	if pk.kind == itemSpawn {
		s.flags = s.flags&^fNeedSpawn | fSpawning | fSent
		p.stats.Spawns++
	}
	s.unlist()
	p.h.markSent(slot)
}

// rotateFrom turns keys, due items in id order, to begin with the first
// whose id is above after (at its start if none is), in place.
func rotateFrom(keys []uint64, after ecs.NetID) {
	lo, hi := 0, len(keys)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ecs.NetID(keys[m]>>32) <= after {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 || lo == len(keys) {
		return
	}
	slices.Reverse(keys[:lo])
	slices.Reverse(keys[lo:])
	slices.Reverse(keys)
}
