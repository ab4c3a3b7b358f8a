package replicate

import (
	"math"
	"math/bits"

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
	// avgBits is a running mean of the peer's item sizes, as bounds
	// (headBound), to tell a send tick whose due items fit the budget
	// easily (sent in id order, encoded straight into the messages, and
	// costed by this estimate alone) from one that must choose by
	// priority: a bound, so that a burst of spawns among small items is
	// not taken for one that fits.
	avgBits float64
	// gapBits is a running mean of the bits of the id gaps of the picks
	// of ticks that chose by priority (noteGaps, removals among them):
	// what choosing by priority counts for an item's gap beside its own
	// bits, and every tick for a removal's (0: none written yet, and 24,
	// the most a gap of a dense world takes, counts). Counting 24
	// for gaps that took 5, a tick's items took a fifth of the budget
	// the tick kept for them, and a full budget spent a third.
	gapBits float64
	finds   uint64 // items whose fields were looked up in the tick's encoder this tick
	// heads counts this send tick's due updates with the common mask by
	// their baseline: [0] the newest image the peer holds, [1] the image
	// of the newest State the peer acknowledged (commonBase).
	heads [2]int32
	turns turnGrants
}

// gapGuess is the bits choosing by priority counts for an item's id gap
// (spend.gap): the running mean of the gaps it chose lately, rounded up, a
// bit more; gapBound before any.
func (ps *packScratch) gapGuess() int {
	if ps.gapBits == 0 {
		return gapBound
	}
	return int(math.Ceil(ps.gapBits)) + 1
}

// dirtyKey is a dirty-list entry: the network id above the slot, so that
// the list sorts by id.
func dirtyKey(id ecs.NetID, slot int32) uint64 { return uint64(id)<<32 | uint64(uint32(slot)) }

// refill adds a send interval's worth of budget, keeping at most two.
func (p *HostPeer) refill() {
	p.tokens = min(p.tokens+p.maxTokens()/2, p.maxTokens())
}

// maxTokens is the most budget a peer saves up: two send intervals' worth,
// and at least two bytes, so that a budget under a byte a send interval
// still has to fill up before a tick's first item goes.
func (p *HostPeer) maxTokens() uint32 {
	cfg := &p.h.cfg
	return max(2, 2*uint32(float64(cfg.BitsPerSecond)/8*float64(cfg.SendEvery)/cfg.StepRate))
}

// overBudget reports whether a removal or item costing c does not fit the
// tick's budget (bits) beside what sp holds. The first of a tick always goes
// once the budget is full, even if larger than the budget holds, so that
// nothing waits behind it forever (a budget smaller than a message's
// framing would hold everything back).
func (p *HostPeer) overBudget(sp *spend, c, budget int) bool {
	return sp.est+c > budget && (sp.est > 0 || p.tokens < p.maxTokens())
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

// urge lists the entity in slot due at the next send tick at the top
// (prioLongest, taking turns with what waited longest): a lost spawn goes
// again as urgently as a new one. One waiting in the wheel leaves it (its
// entry there goes stale), where its priority is the tick it is due.
func (p *HostPeer) urge(slot int32) { p.urgeAt(slot, prioLongest) }

// urgeStop lists the entity in slot due at the next send tick above the
// top (prioStop), as its stop went: a lost stop goes again first.
func (p *HostPeer) urgeStop(slot int32) { p.urgeAt(slot, prioStop) }

// urgeAt lists the entity in slot due at the next send tick at priority pr.
func (p *HostPeer) urgeAt(slot int32, pr uint8) {
	s := &p.slots[slot]
	waited := s.flags&fListed != 0 && s.wait&waiting != 0
	if waited {
		s.wait = (s.wait + 1) &^ waiting
		s.flags &^= fListed
	}
	p.list(slot)
	if waited || s.prio < pr { // (a waiting entity's prio is the tick it is due)
		s.prio = pr
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
// own entities, which AuthState carries.
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
	p.copyLimit = p.removalCopies()
	p.chooseBase()
	if p.follow(changes, weighed) {
		return
	}
	p.startTape(changes, weighed)
	taping := p.taping()
	ps := &p.pk
	tick := h.tick
	ps.picks = ps.picks[:0]
	budget := int(p.tokens) * 8 // bits
	sp := newSpend(8*(wire.MessageOverhead(MaxStatePayload)+h.cfg.DatagramOverhead) + messageHeaderBits + 7*h.book.n + p.base.bits)

	// What is due this tick: the last tick's leftovers, aged; the entities
	// listed since (spawns, losses, entries into scope); those whose wait
	// ends; the changes that are due at once. The others wait.
	due := ps.next[:0]
	for _, k := range p.dirty {
		s := &p.slots[uint32(k)]
		gain := urgent
		if slot := int32(uint32(k)); s.flags&(fNeedSpawn|fKnown) == fNeedSpawn && s.prio < prioLongest && p.decor(slot) {
			gain = p.decorGain(slot) // still decor entering (not one the peer holds): behind the changes (entryPriority)
		}
		if s.prio < prioStop {
			s.prio = uint8(min(prioLongest, int(s.prio)+gain))
		}
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
	p.grantTurns(changes, budget, weighed)
	for i := range changes {
		ch := &changes[i]
		if p.leavesOut(ch) {
			continue // out of scope, or its owner predicts it: it goes in AuthState
		}
		s := &p.slots[ch.slot]
		s.dirty |= ch.comp
		listed := s.flags&fListed != 0
		urg := ch.urg
		if urg == urgTurn {
			urg = urgent
			if p.granted(i) {
				urg = urgStop // a peer that weighs it fully (grantTurns)
			}
		}
		young := urg >= urgStop
		if young && (h.cfg.Priority == nil || p.gamePriority(ch.slot) >= 1) {
			// The entity is new in the world: its change goes at the top,
			// as its spawn did, so a short-lived one (a shot) reaches the
			// peer in states enough to be drawn moving, near or far in
			// its scope; one the game gives the peer a lower Priority of
			// goes as any urgent change, weighed. A stop goes above the
			// top (urgency.go), and a turn within its share (turnshare.go).
			switch {
			case urg == urgStop:
				s.prio = prioStop
			case s.prio != prioStop || listed && s.wait&waiting != 0: // (a waiting entity's prio is the tick it is due)
				s.prio = prioLongest
			}
			switch {
			case listed && s.wait&waiting == 0:
				continue // due already
			case listed:
				s.wait = (s.wait + 1) &^ waiting // its place in the wheel goes stale
			}
			s.flags |= fListed
			due = append(due, dirtyKey(ch.id, ch.slot))
			continue
		}
		if listed && s.wait&waiting == 0 {
			continue // due already
		}
		g := urgent
		if s.flags&fNeedSpawn == 0 && !young {
			g = int(urg)
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
		k := p.wait(s, ch.slot, ch.id, tick+n-1)
		if taping {
			t.waits = append(t.waits, tapeWait{bucket: (tick + n - 1) % wheelLen, key: k})
		}
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
	// Removals go first, within what the due items leave them: up to half
	// the budget is kept for those (what they would take, at the average
	// item's size), so a storm of removals (a player who held a whole
	// world gets its first entity far away) does not hold back every
	// spawn and change for seconds; the removals take the rest.
	reserve := 0
	if len(due) > 0 {
		reserve = min(budget/2, int(float64(len(due))*(ps.avgBits+gapBound)))
	}
	full := false
	repeats := false
	// A removal's id gap counts what the gaps of ticks chosen by priority
	// took lately, as their items' do (gapGuess): counting 24 bits for
	// gaps of a few, a full budget's share for removals kept up with a
	// third of what it could send, and a storm of short-lived shots left
	// removals queued for seconds, the shots drawn flying on meanwhile.
	sp.gap = ps.gapGuess()
	for i := range p.despawns {
		d := &p.despawns[i]
		if d.flying {
			repeats = repeats || !d.back && d.copies < p.copyLimit && d.at < h.frame
			continue
		}
		c := sp.cost(int(removalBits(h.frame - d.frame)))
		if p.overBudget(&sp, c, budget-reserve) {
			full = reserve == 0
			p.stats.Deferred += uint64(p.unsent) // held back, as items are
			break
		}
		sp.add(c)
		p.sendRemoval(d)
	}
	if repeats && !full {
		// Copies of removals in flight, within half the budget.
		for i := range p.despawns {
			d := &p.despawns[i]
			if !d.flying || d.back || d.copies >= p.copyLimit || d.at == h.frame {
				continue
			}
			c := sp.cost(int(removalBits(h.frame - d.frame)))
			if sp.est+c > (budget-reserve)/2 {
				break
			}
			sp.add(c)
			p.sendRemoval(d)
			p.stats.Repeats++
		}
	}
	removals := len(ps.picks)
	sp.gap = gapBound // the items' count in id order (streamInOrder, takeInOrder)
	fast := !full && float64(len(due))*(ps.avgBits+gapBound) < float64(budget-sp.est)/2
	if fast && !h.keepPicks && !p.taping() && !h.noStream {
		if removals > 1 {
			p.sortPicks() // the removals, in id order
		}
		p.streamInOrder(&sp, budget)
		return
	}
	if fast {
		p.takeInOrder(&sp, budget)
	} else {
		p.takeByPriority(&sp, budget, full)
	}
	if !fast || removals > 0 {
		p.sortPicks()
	}
	if !fast {
		p.noteGaps()
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

// noteGaps adds what the id gaps of the tick's picks (in id order) take to
// the running mean that choosing by priority counts (gapGuess).
func (p *HostPeer) noteGaps() {
	ps := &p.pk
	if len(ps.picks) == 0 {
		return
	}
	idCode := p.h.book.codes[streamID]
	gaps := 0
	var prev ecs.NetID
	for i := range ps.picks {
		id := ps.picks[i].id
		if _, n := idCode.word(uint64(id - prev - 1)); n > 0 {
			gaps += int(n)
		} else {
			gaps += 64 // a long code
		}
		prev = id
	}
	mean := float64(gaps) / float64(len(ps.picks))
	if ps.gapBits == 0 {
		ps.gapBits = mean
	} else {
		ps.gapBits += (mean - ps.gapBits) / 4
	}
}

// sendRemoval picks a copy of removal d for this send tick.
func (p *HostPeer) sendRemoval(d *despawnEntry) {
	h := p.h
	if d.from == 0 {
		d.from = h.frame
	}
	if !d.flying {
		p.unsent--
	}
	d.flying, d.at = true, h.frame
	d.copies++
	p.pk.picks = append(p.pk.picks, pick{id: d.id, enc: -1, head: head{kind: itemDespawn, base: d.frame}, bits: 1 + removalBits(h.frame-d.frame)})
}

// maxRemovalAge is the most frames a removal's copy says it is older than
// its message: an older one says this (its client takes it as later than
// it was, which is safe: a spawn newer than the removal is newer still).
const maxRemovalAge = 127

// removalAge returns the age a removal of frame removed carries in a
// message of frame now (maxRemovalAge at most).
func removalAge(now, removed uint32) uint64 { return uint64(min(now-removed, maxRemovalAge)) }

// removalBits is a removal's head after its first bit, and its age of
// frames (order-0 Exp-Golomb, maxRemovalAge at most): 4 to 18 bits.
func removalBits(age uint32) uint32 {
	u := uint64(min(age, maxRemovalAge))
	return kindRemovalBits + uint32(2*(bits.Len64(u+1)-1)+1)
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
	edge       int // the first multiple of 8·MaxStatePayload above est
	perMessage int // a message's framing, in bits
	gap        int // an item's id gap, in bits: gapBound, or gapGuess for removals and when choosing by priority
}

// gapBound is the most bits an item's id gap takes in a dense world: what
// a tick counts for it unless it chooses by priority, where each item's own
// bits are known and the gaps' recent mean (gapGuess) is close enough, as
// it is for removals at every tick (a burst of removals far apart can
// take more than counted for one tick; the budget's tokens forgive that
// tick, and the next holds less).
const gapBound = 24

// newSpend returns an empty estimate whose messages' framing takes
// perMessage bits each.
func newSpend(perMessage int) spend {
	return spend{edge: 8 * MaxStatePayload, perMessage: perMessage, gap: gapBound}
}

// cost returns the budget an item of n bits takes: its bits, its id gap,
// and a message's framing every MaxStatePayload.
func (sp *spend) cost(n int) int {
	c := n + sp.gap
	if sp.est+c >= sp.edge || sp.est == 0 {
		c += sp.perMessage
	}
	return c
}

// add adds c, a cost, to the estimate.
func (sp *spend) add(c int) {
	sp.est += c
	for sp.est >= sp.edge {
		sp.edge += 8 * MaxStatePayload
	}
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
// replicates: 16,777,216 (2^24).
const MaxNetworked = 1 << slotBits

// wait puts the listed entity in slot in the wheel, due at send tick at.
// s is the entity's record; it returns the entry placed in the wheel,
// which the tape keeps when the packing is taped.
func (p *HostPeer) wait(s *peerSlot, slot int32, id ecs.NetID, at uint32) uint64 {
	s.wait = (s.wait+1)&^waiting | waiting
	s.prio = uint8(at)
	b := &p.wheel[at%wheelLen]
	k := uint64(id)<<32 | uint64(s.wait)<<slotBits | uint64(uint32(slot))
	*b = append(*b, k)
	return k
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
