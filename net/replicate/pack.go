package replicate

import (
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// pick is an item chosen for a peer this send tick.
type pick struct {
	slot int32
	id   ecs.NetID
	enc  int32 // its fields in the tick's encoder; -1: not encoded there
	bref int32 // where its baseline is kept (imageRef)
	head
	bhas uint16 // the baseline's components
	bits uint32 // the item's bits without its id gap, when encoded
}

// packScratch is a peer's scratch for packing, kept between send ticks.
type packScratch struct {
	next  []uint64 // the dirty list being built
	order []uint64
	picks []pick
	keys  []uint64
	tmp   []uint64
	sel   []pick
	items wire.BitWriter // the items of the message being written
	buf   []byte
	// avgBits is a running mean of the peer's item sizes, to tell a send
	// tick whose due items fit the budget easily (sent in id order, encoded
	// straight into the messages) from one that must choose by priority.
	avgBits float64
	finds   uint64 // items whose fields were looked up in the tick's encoder this tick
}

// dirtyKey is a dirty-list entry: the network id above the slot, so that
// the list sorts by id.
func dirtyKey(id ecs.NetID, slot int32) uint64 { return uint64(id)<<32 | uint64(uint32(slot)) }

// refill adds a send interval's worth of budget, keeping at most two.
func (p *HostPeer) refill() {
	p.tokens = min(p.tokens+p.maxTokens()/2, p.maxTokens())
}

// maxTokens is the most budget a peer saves up: two send intervals' worth.
func (p *HostPeer) maxTokens() uint32 {
	cfg := &p.h.cfg
	return 2 * uint32(float64(cfg.BitsPerSecond)/8*float64(cfg.SendEvery)/cfg.StepRate)
}

// messageHeaderBits is the most a State message's head takes beyond its
// code block: the frame (5 bytes at most) and the item count.
const messageHeaderBits = 5*8 + 2*16 + 1

// list puts the entity in slot in the peer's dirty list, if it is not.
func (p *HostPeer) list(slot int32) {
	s := &p.slots[slot]
	if s.flags&fListed == 0 {
		s.flags |= fListed
		p.added = append(p.added, dirtyKey(p.h.ents[slot].id, slot))
	}
}

// pack takes a send tick's changes (shared by every peer, in network-id
// order) into the peer's dirty set, and sends the peer's pending removals
// and due entities within the budget, written in network-id order so each
// id travels as a small gap from the one before.
//
// A changed entity gains priority every send tick by the urgency the host
// measured for its change (weighed by the peer's interest) until it is due;
// as the gain is the same every tick, the tick it becomes due is known when
// it changes, and it waits in a wheel of send ticks that costs nothing a
// tick. Due entities that the budget leaves for later age alike, so those
// waiting longest go first. When the due items fit the budget with room to
// spare (as they did the tick before), they are taken in id order and
// encoded straight into the messages; otherwise they are chosen highest
// priority first.
//
// Changes of entities out of the peer's scope are left out, and those of its
// own entities, which AUTH_STATE carries.
//
// A peer whose state is what the packing of the peer before it read takes
// that packing from the tape instead (tape.go).
func (p *HostPeer) pack(changes []change) {
	h := p.h
	h.grid.focusCells(p)
	weighed := len(p.scope.at) > 0 || h.cfg.Priority != nil
	t := &h.tape
	if t.packTick != h.tick {
		t.packTick, t.packed = h.tick, 0
	}
	t.packed++
	if p.follow(changes, weighed) {
		return
	}
	p.startTape(changes, weighed)
	ps := &p.pk
	tick := h.tick
	ps.picks = ps.picks[:0]
	budget := int(p.tokens) * 8 // bits
	sp := spend{perMessage: 8*(wire.MessageOverhead(MaxStatePayload)+h.cfg.DatagramOverhead) + messageHeaderBits + 7*h.book.n}
	full := false
	for i := range p.despawns {
		d := &p.despawns[i]
		if d.flying {
			continue
		}
		c := sp.cost(kindRemovalBits)
		if sp.est+c > budget {
			full = true
			break
		}
		sp.est += c
		d.flying, d.at = true, h.frame
		ps.picks = append(ps.picks, pick{id: d.id, enc: -1, head: head{kind: itemDespawn}, bits: kindRemovalBits + 1})
	}
	removals := len(ps.picks)

	// What is due this tick: the last tick's leftovers, aged; the entities
	// listed since (spawns, losses, entries into scope); those whose wait
	// ends; the changes that are due at once. The others wait.
	due := ps.next[:0]
	for _, k := range p.dirty {
		s := &p.slots[uint32(k)]
		s.prio = uint8(min(255, int(s.prio)+urgent))
		due = append(due, k)
	}
	for _, k := range p.added {
		s := &p.slots[uint32(k)]
		s.prio = max(s.prio, urgent)
		s.wait = s.wait &^ waiting
		due = append(due, k)
	}
	p.added = p.added[:0]
	bucket := &p.wheel[tick%wheelLen]
	for _, k := range *bucket {
		slot := int32(uint32(k) & slotMask)
		s := &p.slots[slot]
		if s.wait != uint8(uint32(k)>>slotBits) || s.flags&fListed == 0 {
			continue // stale: placed again, or reset
		}
		s.wait &^= waiting
		s.prio = urgent
		due = append(due, k&^(uint64(0xff)<<slotBits))
	}
	*bucket = (*bucket)[:0]
	for i := range changes {
		ch := &changes[i]
		s := &p.slots[ch.slot]
		if s.flags&fOut != 0 || ch.owner == p.id {
			continue
		}
		s.dirty |= ch.comp
		listed := s.flags&fListed != 0
		if listed && s.wait&waiting == 0 {
			continue // due already
		}
		g := urgent
		if s.flags&fNeedSpawn == 0 {
			g = int(ch.urg)
		}
		if weighed {
			g = p.weigh(ch.slot, g)
		}
		// Due after n ticks of gaining g, this one included.
		n := uint32(1)
		if g < urgent {
			n = uint32(ticksToDue[g])
		}
		if listed && uint8(tick+n-1-uint32(s.prio)) < 128 {
			continue // waiting already, to be due no later
		}
		s.flags |= fListed
		if n == 1 {
			s.wait &^= waiting
			s.prio = urgent
			due = append(due, dirtyKey(ch.id, ch.slot))
			continue
		}
		p.wait(ch.slot, ch.id, tick+n-1)
	}
	if len(due) > 1 {
		due, ps.tmp = sortKeys(due, ps.tmp)
		// An entity listed and also ending its wait is due once.
		n := 1
		for _, k := range due[1:] {
			if k != due[n-1] {
				due[n] = k
				n++
			}
		}
		due = due[:n]
	}
	ps.next = p.dirty
	p.dirty = due

	if ps.avgBits == 0 {
		ps.avgBits = 64
	}
	fast := !full && float64(len(due))*(ps.avgBits+24) < float64(budget-sp.est)/2
	if fast {
		p.takeInOrder(&sp, budget)
	} else {
		p.takeByPriority(&sp, budget, full)
	}
	if !fast || removals > 0 {
		p.sortPicks()
	}
	if p.taping() {
		p.endTape()
		t.capture = p
		p.write()
		t.capture = nil
		return
	}
	p.write()
}

// ticksToDue is, by priority gain g below urgent (g ≥ 1), the send ticks
// of gaining g that make an item due: ⌈urgent / g⌉.
var ticksToDue = func() (n [urgent]uint8) {
	for g := 1; g < urgent; g++ {
		n[g] = uint8((urgent + g - 1) / g)
	}
	return n
}()

// spend is a send tick's estimate of the budget its items take.
type spend struct {
	est        int // bits so far
	perMessage int // a message's framing, in bits
}

// cost returns the budget an item of n bits takes: its bits, an id gap of
// at most 24 bits, and a message's framing every MaxStatePayload.
func (sp *spend) cost(n int) int {
	c := n + 24
	if sp.est/(8*MaxStatePayload) != (sp.est+c)/(8*MaxStatePayload) || sp.est == 0 {
		c += sp.perMessage
	}
	return c
}

// wheelLen is the span of the wheel of waiting entities, in send ticks: a
// changed entity gains at least one priority unit a tick, so it is due
// within urgent ticks.
const wheelLen = 2 * urgent

// A waiting entity's peerSlot keeps the tick it is due in prio, and in
// wait the waiting bit and a count of its placements, which its entry in
// the wheel carries too, so a stale entry is known.
const (
	waiting  = 0x80
	slotBits = 24
	slotMask = 1<<slotBits - 1
)

// MaxNetworked is the most networked entities (index slots) a host
// replicates.
const MaxNetworked = 1 << slotBits

// wait puts the listed entity in slot in the wheel, due at send tick at.
func (p *HostPeer) wait(slot int32, id ecs.NetID, at uint32) {
	s := &p.slots[slot]
	s.wait = (s.wait+1)&^waiting | waiting
	s.prio = uint8(at)
	b := &p.wheel[at%wheelLen]
	k := uint64(id)<<32 | uint64(s.wait)<<slotBits | uint64(uint32(slot))
	*b = append(*b, k)
	if p.taping() {
		t := &p.h.tape
		t.waits = append(t.waits, tapeWait{bucket: at % wheelLen, key: k})
	}
}

// due reports whether the dirty list's entry k still names an item to
// choose, and its slot. Stale entries (the slot unlisted, its entity
// replaced, or its item waiting for an acknowledgement) are passed over; the
// entry of an entity gone or out of the peer's scope is unlisted.
func (p *HostPeer) due(k uint64) (int32, bool) {
	slot := int32(uint32(k))
	s := &p.slots[slot]
	e := &p.h.ents[slot]
	if s.flags&fListed == 0 || e.id != ecs.NetID(k>>32) || s.wait&waiting != 0 {
		return slot, false
	}
	if e.flags&eLive == 0 || s.flags&fOut != 0 {
		s.flags &^= fListed
		s.dirty = 0
		return slot, false
	}
	return slot, true
}

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
			s.dirty = 0
			s.flags &^= fListed
			s.prio = 0
			continue // nothing the peer lacks
		}
		sp.est += sp.cost(avg)
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
	if prio := h.cfg.Priority; prio != nil {
		if ent, _, ok := h.w.SlotEntity(slot); ok {
			weight *= min(max(prio(p.id, ent), 1.0/16), 4)
		}
	}
	if weight != 1 {
		g = max(1, int(float64(g)*weight+0.5))
	}
	return g
}

// takeByPriority chooses due items highest priority first until the
// budget is spent; the others wait, their priority grown.
func (p *HostPeer) takeByPriority(sp *spend, budget int, full bool) {
	ps := &p.pk
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
	for _, k := range ps.order {
		slot := int32(uint32(k))
		s := &p.slots[slot]
		if full {
			p.stats.Deferred++
			continue
		}
		pk := ps.nextPick()
		if !p.choose(slot, true, pk) {
			s.dirty = 0
			s.flags &^= fListed
			s.prio = 0
			continue
		}
		c := sp.cost(int(pk.bits))
		// The first item of a tick always goes once the budget is full, even
		// if larger than the budget holds, so nothing waits behind it forever.
		if sp.est+c > budget && (sp.est > 0 || p.tokens < p.maxTokens()) {
			full = true
			p.stats.Deferred++
			continue
		}
		sp.est += c
		p.commit(slot, pk)
		ps.picks = ps.picks[:len(ps.picks)+1]
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
	if hd.kind == 0 && h.pose >= 0 && hd.mask&(1<<uint(h.pose)) != 0 {
		hd.snap = h.snapAge(e)
	}
	if hd.base != 0 {
		p.stats.Deltas++
	}
	if encode {
		idx, shared := h.enc.find(slot, hd, bimg, bhas)
		if shared {
			p.stats.Shared++
		}
		pk.enc = idx
		p.pk.finds++
		pk.bits = h.enc.encs[idx].bits + p.headBits(hd)
		p.pk.avgBits += (float64(pk.bits) - p.pk.avgBits) / 64
	}
	return true
}

// headBits is the most an item's head takes (an explicit head).
func (p *HostPeer) headBits(hd *head) uint32 {
	n := uint32(len(p.h.reg.comps)) + 1
	switch hd.kind {
	case itemSpawn:
		return n + kindSpawnBits + 17
	case itemDespawn:
		return 1 + kindRemovalBits
	}
	if hd.flags&bodyNewest == 0 {
		n += 1 + 2*uint32(p.h.book.codes[streamAge].k) + 24
	}
	if hd.snap != 0 {
		return n + kindSnapBits + 1 + snapAgeBits
	}
	return n + kindUpdateBits + 1
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
	s.dirty = 0
	s.flags &^= fListed
	s.prio = 0
	p.h.markSent(slot)
}

// write writes the chosen items (in network-id order) into STATE messages
// and hands them to the connection. A peer whose items are exactly the
// previous peer's this send tick gets the same bytes.
func (p *HostPeer) write() {
	ps := &p.pk
	if len(ps.picks) == 0 {
		return
	}
	h := p.h
	picks := ps.picks
	last := &h.lastMsgs
	reuse := last.tick == h.tick && samePicks(last.picks, picks)
	if !reuse {
		last.tick = h.tick
		last.picks = append(last.picks[:0], picks...)
		last.bytes = last.bytes[:0]
		last.ends = last.ends[:0]
		last.counts = last.counts[:0]
		p.writeMessages(picks)
	}
	if reuse {
		p.stats.Reused += uint64(len(last.counts))
	}
	spent := 0
	from := 0
	for m, n := range last.counts {
		body := last.bytes[from:last.ends[m]]
		from = last.ends[m]
		spent += p.send(picks[:n], body)
		picks = picks[n:]
	}
	p.tokens -= uint32(min(spent, int(p.tokens)))
}

// sentMessages are the State messages of the last peer written this send
// tick, and the picks they carry.
type sentMessages struct {
	tick   uint32
	picks  []pick
	bytes  []byte
	ends   []int
	counts []int
}

func samePicks(a, b []pick) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].id != b[i].id || a[i].head != b[i].head {
			return false
		}
	}
	return true
}

// commonMask returns the component mask most of the picks' updates against
// the newest image carry: items with it and such a baseline need only one
// bit of head.
func commonMask(picks []pick) uint16 {
	var masks [4]uint16
	var counts [4]int
	for i := range picks {
		hd := &picks[i].head
		if hd.kind != 0 || hd.flags != bodyNewest || hd.snap != 0 {
			continue
		}
		for k := range masks {
			if counts[k] == 0 || masks[k] == hd.mask {
				masks[k] = hd.mask
				counts[k]++
				break
			}
		}
	}
	best := 0
	for k := range counts {
		if counts[k] > counts[best] {
			best = k
		}
	}
	return masks[best]
}

// writeMessages writes picks into State messages of at most MaxStatePayload
// bytes, into h.lastMsgs.
func (p *HostPeer) writeMessages(picks []pick) {
	h := p.h
	ps := &p.pk
	common := commonMask(picks)
	limit := 8*MaxStatePayload - messageHeaderBits - 7*h.book.n - len(h.reg.comps)
	start := 0
	ps.items.Reset(ps.buf[:0])
	idCode := h.book.codes[streamID]
	var prev ecs.NetID
	for i := range picks {
		pk := &picks[i]
		mark := ps.items.BitLen()
		p.writeItem(&ps.items, pk, prev, common, idCode)
		if ps.items.BitLen() > limit && i > start {
			ps.items.Truncate(mark)
			p.finishMessage(picks[start:i], common, mark)
			start = i
			ps.items.Reset(ps.buf)
			p.writeItem(&ps.items, pk, 0, common, idCode)
		}
		prev = pk.id
	}
	p.finishMessage(picks[start:], common, ps.items.BitLen())
}

// writeItem writes one item: its id gap from prev, its head, its fields.
func (p *HostPeer) writeItem(w *wire.BitWriter, pk *pick, prev ecs.NetID, common uint16, idCode code) {
	h := p.h
	gap := uint64(pk.id - prev - 1)
	idCode.write(w, gap)
	if h.tick%statsEvery == 0 {
		h.stats.add(streamID, gap)
	}
	hd := &pk.head
	n := uint(len(h.reg.comps))
	switch {
	case hd.kind == 0 && hd.flags == bodyNewest && hd.mask == common && hd.snap == 0:
		w.WriteBits(1, 1) // the common head
	case hd.kind == itemDespawn:
		w.WriteBits(kindRemoval<<1, kindRemovalBits+1)
		return
	case hd.kind == itemSpawn:
		w.WriteBits(kindSpawn<<1, kindSpawnBits+1)
		w.WriteExpGolomb(uint64(h.ents[pk.slot].owner), 0)
		w.WriteBits(uint64(hd.mask), n)
	default:
		if hd.snap != 0 {
			w.WriteBits(kindSnap<<1, kindSnapBits+1)
			w.WriteBits(uint64(hd.snap-1), snapAgeBits)
		} else {
			w.WriteBits(kindUpdate<<1, kindUpdateBits+1)
		}
		if hd.flags&bodyNewest != 0 {
			w.WriteBits(1, 1)
		} else {
			w.WriteBits(0, 1)
			age := uint64(0)
			if hd.flags&bodyAbsolute == 0 {
				age = uint64(h.frame - hd.base)
			}
			h.put(w, streamAge, age)
		}
		w.WriteBits(uint64(hd.mask), n)
	}
	if pk.enc >= 0 {
		x := &h.enc.encs[pk.enc]
		copyBits(w, h.enc.arena, x.off, x.bits)
		return
	}
	var bimg []int32
	if hd.base != 0 {
		bimg = h.imageOf(pk.slot, pk.bref)
	}
	h.writeFields(w, pk.slot, hd, bimg, pk.bhas)
}

// finishMessage assembles a State message: the frame, the item count, the
// code block, the common mask, then the first bits of the items writer.
func (p *HostPeer) finishMessage(picks []pick, common uint16, bits int) {
	h := p.h
	reg := h.reg
	ps := &p.pk
	var used streamSet
	used.add(streamID)
	var abs, res uint16
	for i := range picks {
		hd := &picks[i].head
		switch {
		case hd.kind == itemDespawn:
		case hd.flags&(bodySpawn|bodyAbsolute) != 0:
			abs |= hd.mask
			if hd.kind == 0 {
				used.add(streamAge)
			}
		default:
			res |= hd.mask & reg.delta
			abs |= hd.mask &^ reg.delta
			if hd.flags&bodyNewest == 0 {
				used.add(streamAge)
			}
		}
	}
	for c := range reg.comps {
		for i := range reg.comps[c].fields {
			if res&(1<<c) != 0 {
				used.add(streamField + reg.offset[c] + i)
			}
			if abs&(1<<c) != 0 {
				used.add(streamField + reg.fields + reg.offset[c] + i)
			}
		}
	}
	last := &h.lastMsgs
	buf := wire.AppendUvarint(last.bytes, uint64(h.frame))
	var w wire.BitWriter
	w.Reset(buf)
	w.WriteExpGolomb(uint64(len(picks)), 0)
	h.book.writeHeader(&w, &used)
	w.WriteBits(uint64(common), uint(len(reg.comps)))
	items := ps.items.Finish()
	for off := 0; bits > 0; off += 8 {
		n := min(bits, 64)
		copyBits(&w, items, uint32(off), uint32(n))
		bits -= n
	}
	ps.buf = items[:0]
	last.bytes = w.Finish()
	last.ends = append(last.ends, len(last.bytes))
	last.counts = append(last.counts, len(picks))
}

// send queues a State message carrying picks for the peer, with its record,
// and returns the budget it took, in bytes.
func (p *HostPeer) send(picks []pick, body []byte) int {
	h := p.h
	rec, token := p.record(h.frame, false)
	for i := range picks {
		pk := &picks[i]
		it := p.recs.push(rec)
		*it = sentItem{slot: pk.slot, id: pk.id, kind: pk.kind, mask: pk.nd}
		if pk.kind == itemDespawn {
			p.stats.Despawns++
		} else {
			s := &p.slots[pk.slot]
			it.send, it.epoch = s.sends, s.epoch
		}
		if t := &h.tape; t.capture == p {
			t.items = append(t.items, *it)
			if pk.kind == itemDespawn {
				t.despawned++
			}
		}
	}
	p.stats.Items += uint64(len(picks))
	if err := p.out.QueueDatagram(wire.KindState, body, token); err != nil {
		// The datagram never left: its items are lost.
		p.notice(token, false)
	}
	p.stats.Messages++
	p.stats.Bytes += uint64(len(body))
	return len(body) + wire.MessageOverhead(len(body)) + h.cfg.DatagramOverhead
}
