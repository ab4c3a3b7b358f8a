package replicate

import (
	"slices"
	"unsafe"

	"github.com/tandem-go/tandem/ecs"
)

// A send tick's packing is a function of the peer's own state (the records
// of the entities it touches, its dirty list, the entities added since the
// last tick, the wheel's bucket of the tick, its queued removals, its budget
// and its running item size) and of the tick's shared state. Peers that
// acknowledge alike are in the same state, and so pack alike: the packing of
// one peer is kept on a tape (what it read and what it wrote), and a peer
// packed next whose state is what the tape read takes what the tape wrote —
// the same records, lists and picks, so the same messages — by copying, at a
// few nanoseconds an entity instead of choosing each item again. A peer
// whose state differs in anything is packed in full and its packing is the
// tape for the peers after it.

// packTape is one peer's packing of a send tick.
type packTape struct {
	off    bool   // never kept (tests compare against packing in full)
	tick   uint32 // the send tick of the tape; valid only while it is h.tick
	ok     bool   // complete: the packing ran to its messages
	leader *HostPeer

	// What the packing read.
	changes   *change // the change list it was handed (its first element) and its length
	nchanges  int
	tokens    uint32
	avgBits   float64
	gapBits   float64
	turn      ecs.NetID  // where the turn among the longest waiting stood
	turnFrom  ecs.NetID  // where the turn among the turns stood (grantTurns)
	copyLimit uint8      // removalCopies of the peer that packed it
	base      commonBase // the common base of the peer that packed it
	owned     bool       // some change of the tick has an owner other than the host
	dirty     []uint64
	added     []uint64
	bucket    []uint64
	despawns  []despawnEntry
	slots     []int32  // every entity record the packing may read or write, once
	mark      []uint32 // by slot: the stamp of the last tape that took it
	stamp     uint32
	pre       []peerSlot

	// What it wrote (its messages are h.lastMsgs's).
	post        []peerSlot
	outDirty    []uint64
	outDespawns []despawnEntry
	waits       []tapeWait
	waitKeys    []uint64            // the same, by bucket
	waitAt      [wheelLen + 1]int32 // where each bucket's start in waitKeys
	avgOut      float64
	gapOut      float64
	turnOut     ecs.NetID
	turnFromOut ecs.NetID
	headsOut    [2]int32   // its packScratch.heads
	stats       PeerStats  // what the packing added to the peer's counters
	finds       uint64     // items whose fields it looked up in the tick's encoder
	npicks      int        // its items (h.lastMsgs holds their messages)
	items       []sentItem // the records of its items, as its messages carry them
	despawned   uint64     // removals among them
	capture     *HostPeer  // the peer whose sent items go to items, while it writes

	packTick uint32 // the send tick packed counts peers of
	packed   int    // peers packed this send tick, this one included

	// Packings taken from a tape, and tapes kept, since the host started.
	followed, kept uint64
}

// tapeWait is an entry the packing put in the wheel.
type tapeWait struct {
	bucket uint32
	key    uint64
}

// startTape records what the peer's packing is about to read, when a peer
// packed after it this tick may follow it. It runs before the packing
// changes anything.
func (p *HostPeer) startTape(changes []change, weighed bool) {
	h := p.h
	t := &h.tape
	t.ok = false
	t.tick = h.tick
	if t.off || weighed || !h.morePeersToPack() {
		t.leader = nil
		return
	}
	t.leader = p
	t.changes, t.nchanges = unsafe.SliceData(changes), len(changes)
	t.tokens, t.avgBits, t.gapBits, t.turn, t.copyLimit = p.tokens, p.pk.avgBits, p.pk.gapBits, p.turn, p.copyLimit
	t.turnFrom = p.turnFrom
	t.base = p.base
	t.dirty = append(t.dirty[:0], p.dirty...)
	t.added = append(t.added[:0], p.added...)
	bucket := p.wheel[h.tick%wheelLen]
	t.bucket = append(t.bucket[:0], bucket...)
	t.despawns = append(t.despawns[:0], p.despawns...)
	t.slots = t.slots[:0]
	t.newStamp(len(p.slots))
	for _, k := range t.dirty {
		t.take(int32(uint32(k)))
	}
	for _, k := range t.added {
		t.take(int32(uint32(k)))
	}
	for _, k := range bucket {
		t.take(int32(uint32(k) & slotMask))
	}
	t.owned = false
	for i := range changes {
		t.take(changes[i].slot)
		if changes[i].owner != ecs.HostPeer {
			t.owned = true
		}
	}
	t.pre = slices.Grow(t.pre[:0], len(t.slots))[:len(t.slots)]
	for i, slot := range t.slots {
		t.pre[i] = p.slots[slot]
	}
	t.waits = t.waits[:0]
	t.stats = p.stats
	p.pk.finds = 0
}

// newStamp starts a new set of the tape's slots, over n slots.
func (t *packTape) newStamp(n int) {
	if len(t.mark) < n {
		t.mark = append(t.mark, make([]uint32, n-len(t.mark))...)
	}
	t.stamp++
	if t.stamp == 0 {
		clear(t.mark)
		t.stamp = 1
	}
}

// take adds slot to the tape's slots, once.
func (t *packTape) take(slot int32) {
	if t.mark[slot] != t.stamp {
		t.mark[slot] = t.stamp
		t.slots = append(t.slots, slot)
	}
}

// taping reports whether the peer's packing is being kept on the tape.
func (p *HostPeer) taping() bool {
	t := &p.h.tape
	return t.leader == p && t.tick == p.h.tick && !t.ok
}

// endTape records what the peer's packing wrote, once it chose its items
// and before it writes them.
func (p *HostPeer) endTape() {
	t := &p.h.tape
	t.post = slices.Grow(t.post[:0], len(t.slots))[:len(t.slots)]
	for i, slot := range t.slots {
		t.post[i] = p.slots[slot]
	}
	t.outDirty = append(t.outDirty[:0], p.dirty...)
	t.outDespawns = append(t.outDespawns[:0], p.despawns...)
	t.avgOut, t.gapOut, t.turnOut, t.turnFromOut = p.pk.avgBits, p.pk.gapBits, p.turn, p.turnFrom
	t.headsOut = p.pk.heads
	t.groupWaits()
	t.stats = statsSince(p.stats, t.stats)
	t.finds = p.pk.finds
	t.npicks = len(p.pk.picks)
	t.items, t.despawned = t.items[:0], 0
	t.ok = true
	t.kept++
}

// groupWaits orders the tape's wheel entries by bucket, each bucket's in
// the order they were placed, so that a peer following the tape appends
// each bucket's at once.
func (t *packTape) groupWaits() {
	var count [wheelLen + 1]int32
	for _, w := range t.waits {
		count[w.bucket+1]++
	}
	for b := range wheelLen {
		count[b+1] += count[b]
	}
	t.waitAt = count
	t.waitKeys = slices.Grow(t.waitKeys[:0], len(t.waits))[:len(t.waits)]
	for _, w := range t.waits {
		t.waitKeys[count[w.bucket]] = w.key
		count[w.bucket]++
	}
}

// statsSince returns the counters of packing added to a since b.
func statsSince(a, b PeerStats) PeerStats {
	return PeerStats{
		Spawns:   a.Spawns - b.Spawns,
		Deltas:   a.Deltas - b.Deltas,
		Shared:   a.Shared - b.Shared,
		Deferred: a.Deferred - b.Deferred,
		Repeats:  a.Repeats - b.Repeats,
	}
}

// morePeersToPack reports whether a peer may be packed after the one being
// packed this tick.
func (h *HostReplicator) morePeersToPack() bool {
	t := &h.tape
	return t.packTick == h.tick && t.packed < len(h.peers)-h.joins
}

// follow packs the peer from the tape if its state is what the tape read,
// and reports whether it did.
func (p *HostPeer) follow(changes []change, weighed bool) bool {
	h := p.h
	t := &h.tape
	if !t.ok || t.tick != h.tick || weighed || t.leader == p {
		return false
	}
	ps := &p.pk
	bucket := &p.wheel[h.tick%wheelLen]
	// The same list of changes (a peer handed its scope's changes alone,
	// interest.go's changesFor, reads another).
	if unsafe.SliceData(changes) != t.changes || len(changes) != t.nchanges ||
		p.tokens != t.tokens || p.base != t.base || ps.avgBits != t.avgBits || ps.gapBits != t.gapBits || p.turn != t.turn || h.turning > 0 && p.turnFrom != t.turnFrom || p.copyLimit != t.copyLimit && len(p.despawns) > 0 || len(p.slots) != len(t.leader.slots) ||
		!slices.Equal(p.dirty, t.dirty) || !slices.Equal(p.added, t.added) ||
		!slices.Equal(*bucket, t.bucket) || !slices.Equal(p.despawns, t.despawns) {
		return false
	}
	if t.owned {
		// A peer's own entities are left out of its packing (but those
		// marked HostMoved): no peer follows another whose changes hold
		// either's own.
		lead := t.leader.id
		for i := range changes {
			if o := changes[i].owner; o == p.id || o == lead {
				return false
			}
		}
	}
	// Each slot is on the tape once: its record is checked and replaced in
	// one pass, and put back if a later one differs.
	slots := p.slots
	for i, slot := range t.slots {
		s := &slots[slot]
		if !sameSlot(s, &t.pre[i]) {
			for j, slot := range t.slots[:i] {
				slots[slot] = t.pre[j]
			}
			return false
		}
		*s = t.post[i]
	}
	p.dirty = append(p.dirty[:0], t.outDirty...)
	p.added = p.added[:0]
	*bucket = (*bucket)[:0]
	for b := range p.wheel {
		if from, to := t.waitAt[b], t.waitAt[b+1]; to > from {
			p.wheel[b] = append(p.wheel[b], t.waitKeys[from:to]...)
		}
	}
	p.setRemovals(t.outDespawns)
	ps.avgBits, ps.gapBits, p.turn = t.avgOut, t.gapOut, t.turnOut
	if h.turning > 0 {
		p.turnFrom = t.turnFromOut
	}
	ps.heads = t.headsOut
	st := &p.stats
	st.Spawns += t.stats.Spawns
	st.Deltas += t.stats.Deltas
	st.Deferred += t.stats.Deferred
	st.Repeats += t.stats.Repeats
	st.Shared += t.finds // every encoded item it would look up is the tape's
	t.followed++
	p.sendTape()
	return true
}

// sameSlot reports whether two records of an entity are the same: one
// comparison of their 12 bytes as two words. The assertion below fails to
// compile if a peerSlot is not 12 bytes.
var _ [12]byte = [unsafe.Sizeof(peerSlot{})]byte{}

func sameSlot(a, b *peerSlot) bool {
	pa, pb := unsafe.Pointer(a), unsafe.Pointer(b)
	return *(*uint64)(pa) == *(*uint64)(pb) && *(*uint32)(unsafe.Add(pa, 8)) == *(*uint32)(unsafe.Add(pb, 8))
}

// sendTape sends the peer the messages of the tape's picks, written last
// this send tick (h.lastMsgs), with the tape's records of their items.
func (p *HostPeer) sendTape() {
	h := p.h
	t := &h.tape
	if t.npicks == 0 {
		return
	}
	last := &h.lastMsgs
	items := t.items
	spent, from := 0, 0
	for m, n := range last.counts {
		body := last.bytes[from:last.ends[m]]
		from = last.ends[m]
		rec, token := p.record(h.frame, false)
		p.recs.pushAll(rec, items[:n])
		items = items[n:]
		spent += p.queueState(body, token, n)
	}
	p.stats.Despawns += t.despawned
	p.stats.Reused += uint64(len(last.counts))
	p.tokens -= uint32(min(spent, int(p.tokens)))
}
