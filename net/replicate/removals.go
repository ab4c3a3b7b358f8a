package replicate

import (
	"fmt"

	"github.com/tandem-go/tandem/ecs"
)

// A peer's queued removals (HostPeer.despawns) are found by network id:
// when an entity leaves the peer's scope, comes back into it, or a message
// that carried its removal is delivered or lost. A short queue is searched;
// past removalScan entries an index by id (idIndex) answers, so a peer that
// stops seeing most of a large world at once (its first square of
// interest, a jump across the world) queues and settles its removals in
// time proportional to their number, not its square. The index is built
// when a search first needs it and kept while the queue changes only here.
// When the queue empties, a queue or an index with room for more than
// removalKeep entries is let go; smaller ones are kept for the next time,
// so a peer whose scope jumps now and then allocates nothing for it.
const (
	removalScan = 64
	removalKeep = 4096
)

// removalIndex is the index of a peer's queued removals, while valid.
type removalIndex struct {
	at    idIndex
	valid bool
}

// memory returns the bytes the index holds.
func (ix *removalIndex) memory() int { return ix.at.memory() }

// findRemoval returns the position of id's queued removal, or -1.
func (p *HostPeer) findRemoval(id ecs.NetID) int {
	if len(p.despawns) <= removalScan {
		for i := range p.despawns {
			if p.despawns[i].id == id {
				return i
			}
		}
		return -1
	}
	ix := &p.rmIndex
	if !ix.valid {
		ix.at.clear()
		ix.at.reserve(len(p.despawns))
		for i := range p.despawns {
			ix.at.put(p.despawns[i].id, int32(i))
		}
		ix.valid = true
	}
	if i, ok := ix.at.get(id); ok {
		return int(i)
	}
	return -1
}

// reserveRemovals makes room for n more queued removals at once: in the
// queue, and in its index when one is in use or will be, so that a bulk of
// removals (narrow) grows neither on the way.
func (p *HostPeer) reserveRemovals(n int) {
	if n <= 0 {
		return
	}
	total := len(p.despawns) + n
	if cap(p.despawns) < total {
		grown := make([]despawnEntry, len(p.despawns), total)
		copy(grown, p.despawns)
		p.despawns = grown
	}
	ix := &p.rmIndex
	switch {
	case ix.valid:
		ix.at.reserve(total)
	case total > removalScan:
		ix.at.clear()
		ix.at.reserve(total)
		for i := range p.despawns {
			ix.at.put(p.despawns[i].id, int32(i))
		}
		ix.valid = true
	}
}

// removalFrame is the frame of a removal queued now: the frame Update
// steps, or outside Update the next one's (an entity leaving a scope
// between steps is in it until then).
func (h *HostReplicator) removalFrame() uint32 {
	if h.updating {
		return h.frame
	}
	return h.frame + 1
}

// pushRemoval queues the removal of id, which has none queued.
func (p *HostPeer) pushRemoval(id ecs.NetID) {
	if ix := &p.rmIndex; ix.valid {
		ix.at.put(id, int32(len(p.despawns)))
	}
	p.despawns = append(p.despawns, despawnEntry{id: id, frame: p.h.removalFrame()})
	p.unsent++
}

// dropRemoval takes the queued removal at position i out of the queue (the
// last takes its place).
func (p *HostPeer) dropRemoval(i int) {
	last := len(p.despawns) - 1
	if ix := &p.rmIndex; ix.valid {
		ix.at.del(p.despawns[i].id)
		if i != last {
			ix.at.put(p.despawns[last].id, int32(i))
		}
	}
	if !p.despawns[i].flying {
		p.unsent--
	}
	p.despawns[i] = p.despawns[last]
	p.despawns = p.despawns[:last]
	if last == 0 {
		p.emptiedRemovals()
	}
}

// emptiedRemovals lets the queue's room and its index go, or keeps them for
// the next time, once the queue is empty.
func (p *HostPeer) emptiedRemovals() {
	if cap(p.despawns) > removalKeep {
		p.despawns = nil
	}
	ix := &p.rmIndex
	if len(ix.at.keys) > 2*removalKeep {
		*ix = removalIndex{}
		return
	}
	ix.valid = false
}

// unsentChecked makes each send tick's end check the peer's count of
// removals not in flight against its queue (checkUnsent); the package's
// tests set it.
var unsentChecked bool

// checkUnsent panics when the peer's count of removals not in flight
// differs from its queue's.
func (p *HostPeer) checkUnsent() {
	n := 0
	for i := range p.despawns {
		if !p.despawns[i].flying {
			n++
		}
	}
	if n != p.unsent {
		panic(fmt.Sprintf("replicate: peer %d counts %d removals unsent, its queue holds %d", p.id, p.unsent, n))
	}
}

// setRemovals replaces the queue (a tape's outcome, tape.go).
func (p *HostPeer) setRemovals(list []despawnEntry) {
	p.despawns = append(p.despawns[:0], list...)
	p.unsent = 0
	for i := range p.despawns {
		if !p.despawns[i].flying {
			p.unsent++
		}
	}
	p.rmIndex.valid = false
	if len(list) == 0 {
		p.emptiedRemovals()
	}
}
