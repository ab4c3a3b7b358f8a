package replicate

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Per-entity flags of a host peer. Not on the wire.
const (
	fKnown     = 1 << iota // the peer holds the entity (spawn delivered, or joined with it)
	fSpawning              // a spawn is in flight
	fNeedSpawn             // a spawn must be sent
	fListed                // the slot is in the peer's dirty list
	fPaged                 // join: the entity went out in a page (frame says when)
	fCatchUp               // join: changed since its page; in the catch-up list
	fSent                  // a spawn went out since the slot was last reset
)

// peerSlot is a peer's record of one networked entity: 12 bytes, the whole
// per-entity cost of a peer that holds nothing else for it.
type peerSlot struct {
	// frame is when the peer's record of this entity began: its page (join)
	// or its newest spawn. Notices of messages sent before it are stale.
	frame uint32
	base  int32  // baseline record + 1; 0: none
	dirty uint16 // components changed since the peer's state
	prio  uint8  // priority gained while waiting
	flags uint8
}

// entityRef is a live entity with its network id.
type entityRef struct {
	entity arche.Entity
	id     ecs.NetID
}

// sentItem is one entity's part of a sent STATE message.
type sentItem struct {
	slot   int32
	id     ecs.NetID
	mask   uint16 // components whose values rode
	kind   uint8  // itemSpawn, itemDespawn or 0 (update)
	sendNo uint32 // the entity's send number
	valOff int32  // offset of the values in the record's vals (registry layout)
}

// sentRecord is what one sent STATE message carried, kept until its fate is
// known.
type sentRecord struct {
	frame uint32
	live  bool
	auth  bool // an AUTH_STATE: a loss makes the owner's state due again
	items []sentItem
	vals  []int32
}

// despawnEntry is a removal a peer must learn of.
type despawnEntry struct {
	id     ecs.NetID
	flying bool
}

// baselines holds, per entity the peer was sent, the values it acknowledged:
// flat slices indexed by record.
type baselines struct {
	fields, comps int
	vals          []int32  // record*fields
	frames        []uint32 // record*comps: frame of the acknowledged value
	sendNos       []uint32 // record*comps: send number of that value
	has           []uint16 // record: components with a baseline
	sends         []uint32 // record: the entity's sends so far
	free          []int32
}

func (b *baselines) alloc() int32 {
	if n := len(b.free); n > 0 {
		r := b.free[n-1]
		b.free = b.free[:n-1]
		b.has[r] = 0
		b.sends[r] = 0
		return r
	}
	r := int32(len(b.has))
	b.vals = append(b.vals, make([]int32, b.fields)...)
	b.frames = append(b.frames, make([]uint32, b.comps)...)
	b.sendNos = append(b.sendNos, make([]uint32, b.comps)...)
	b.has = append(b.has, 0)
	b.sends = append(b.sends, 0)
	return r
}

func (b *baselines) release(r int32) { b.free = append(b.free, r) }

// HostPeer is the host's replication state for one peer. Create it with
// HostReplicator.AddPeer.
type HostPeer struct {
	h          *HostReplicator
	id         ecs.PeerID
	out        Out
	slots      []peerSlot
	dirty      []int32
	order      []int32  // scratch: dirty slots by priority
	arena      []byte   // scratch: encoded item bodies of this send tick
	picks      []pick   // scratch: items chosen this send tick
	pickVals   []int32  // scratch: their wire images
	order64    []uint64 // scratch: picks by network id
	despawns   []despawnEntry
	base       baselines
	sent       []sentRecord
	next       uint32 // next record
	tokens     uint32 // budget bytes available
	authDirty  bool
	inputFrame ecs.Frame
	join       *joinState
	err        error
	stats      PeerStats
}

// PeerStats counts one peer's replication traffic. Totals since the peer was
// added.
type PeerStats struct {
	Messages, Items, Bytes uint64 // STATE messages, items and payload bytes sent
	Spawns, Despawns       uint64 // spawn and removal items sent
	Deltas                 uint64 // components sent as deltas
	Resent                 uint64 // items marked dirty again after a loss
	AuthMessages           uint64
	JoinPages, JoinBytes   uint64
	JoinRounds             int
	Deferred               uint64 // dirty items left for a later tick by the budget
}

// ID returns the peer's id.
func (p *HostPeer) ID() ecs.PeerID { return p.id }

// Stats returns the peer's counters.
func (p *HostPeer) Stats() PeerStats { return p.stats }

// Joining reports whether the peer's join has not finished.
func (p *HostPeer) Joining() bool { return p.join != nil }

// Err returns why the peer must be dropped (a join that could not catch up),
// or nil.
func (p *HostPeer) Err() error { return p.err }

// SetInputFrame records the newest frame of the peer's input the host has
// applied: AUTH_STATE carries the owned entities' state at it.
func (p *HostPeer) SetInputFrame(f ecs.Frame) {
	if f != p.inputFrame {
		p.inputFrame = f
		p.authDirty = true
	}
}

// PendingDirty returns how many entities wait to be sent to the peer.
func (p *HostPeer) PendingDirty() int { return len(p.dirty) }

func (p *HostPeer) grow(n int) {
	switch {
	case len(p.slots) >= n:
	case cap(p.slots) >= n:
		p.slots = p.slots[:n]
	case len(p.slots) == 0:
		// A new peer: exactly the world's slots, 12 bytes each.
		p.slots = make([]peerSlot, n)
	default:
		p.slots = append(p.slots, make([]peerSlot, n-len(p.slots))...)
	}
}

func (p *HostPeer) list(slot int32) {
	s := &p.slots[slot]
	if s.flags&fListed == 0 {
		s.flags |= fListed
		p.dirty = append(p.dirty, slot)
	}
}

// onSpawn notes a new networked entity.
func (p *HostPeer) onSpawn(slot int32) {
	p.grow(int(slot) + 1)
	if p.join != nil {
		p.join.onSpawn(p, slot)
		return
	}
	s := &p.slots[slot]
	listed := s.flags & fListed
	*s = peerSlot{flags: fNeedSpawn | listed, prio: 255, frame: uint32(p.h.w.Frame())}
	p.list(slot)
}

// onDespawn notes that the entity id left slot.
func (p *HostPeer) onDespawn(id ecs.NetID, slot int32) {
	if int(slot) >= len(p.slots) {
		return
	}
	if p.join != nil {
		p.join.onDespawn(p, id, slot)
		return
	}
	p.forget(slot, id)
}

// forget resets the peer's record of the entity id in slot, queueing its
// removal if the peer may hold it. The slot stays in the dirty list, if it is,
// to be dropped there.
func (p *HostPeer) forget(slot int32, id ecs.NetID) {
	s := &p.slots[slot]
	if s.flags&(fKnown|fSpawning|fSent) != 0 {
		p.despawns = append(p.despawns, despawnEntry{id: id})
	}
	if s.base != 0 {
		p.base.release(s.base - 1)
	}
	*s = peerSlot{flags: s.flags & fListed, frame: uint32(p.h.w.Frame())}
}

// onReown notes that the entity in slot got a new owner: every peer learns it
// through a spawn, which carries the owner; the new owner gets AUTH_STATE.
func (p *HostPeer) onReown(slot int32, owner ecs.PeerID) {
	if int(slot) >= len(p.slots) {
		return
	}
	if p.join != nil {
		p.join.onChange(p, slot)
		return
	}
	if owner == p.id {
		p.authDirty = true
	}
	p.slots[slot].flags |= fNeedSpawn
	p.list(slot)
}

// onChange notes that component c of the entity in slot changed.
func (p *HostPeer) onChange(slot int32, c int, owner ecs.PeerID) {
	if int(slot) >= len(p.slots) {
		return
	}
	if p.join != nil {
		p.join.onChange(p, slot)
		return
	}
	if owner == p.id {
		p.authDirty = true
		return
	}
	s := &p.slots[slot]
	if s.flags&(fKnown|fSpawning|fNeedSpawn) == 0 {
		// Not held by the peer (out of scope): it enters with a spawn.
		s.flags |= fNeedSpawn
	}
	s.dirty |= 1 << uint(c)
	p.list(slot)
}

// record returns a fresh sent record and its token.
func (p *HostPeer) record(frame ecs.Frame) (*sentRecord, uint32) {
	i := p.next % uint32(len(p.sent))
	r := &p.sent[i]
	if r.live {
		// Unresolved after a full ring of sends: its fate is lost.
		p.resolve(r, false)
	}
	p.next++
	r.live = true
	r.auth = false
	r.frame = uint32(frame)
	r.items = r.items[:0]
	r.vals = r.vals[:0]
	return r, i + 1
}

func (p *HostPeer) tokenRecord(token uint32) *sentRecord {
	if token == 0 || int(token) > len(p.sent) {
		return nil
	}
	r := &p.sent[token-1]
	if !r.live {
		return nil
	}
	return r
}

// resolve applies a record's fate: delivered values become baselines; lost
// items are marked to go again with their newest state.
func (p *HostPeer) resolve(r *sentRecord, delivered bool) {
	r.live = false
	if r.auth {
		if !delivered {
			p.authDirty = true // the owner gets its state again, at its newest
		}
		return
	}
	w := p.h.w
	for i := range r.items {
		it := &r.items[i]
		if it.kind == itemDespawn {
			p.resolveDespawn(it.id, delivered)
			continue
		}
		if int(it.slot) >= len(p.slots) {
			continue
		}
		if _, id, ok := w.SlotEntity(it.slot); !ok || id != it.id {
			continue // the entity left; its slot may hold another
		}
		s := &p.slots[it.slot]
		if r.frame < s.frame || s.flags&(fKnown|fSpawning|fNeedSpawn|fSent) == 0 {
			continue // sent before the peer's record of the entity began anew
		}
		if !delivered {
			p.stats.Resent++
			if it.kind == itemSpawn && s.flags&fKnown == 0 {
				s.flags = s.flags&^fSpawning | fNeedSpawn
			} else {
				s.dirty |= it.mask
			}
			p.list(it.slot)
			continue
		}
		if it.kind == itemSpawn {
			s.flags = s.flags&^fSpawning | fKnown
		}
		if s.base == 0 {
			continue
		}
		b := &p.base
		rec := s.base - 1
		reg := p.h.reg
		for c := range reg.comps {
			bit := uint16(1) << uint(c)
			if it.mask&bit == 0 || !reg.comps[c].delta {
				continue
			}
			fi := int(rec)*b.comps + c
			if b.has[rec]&bit != 0 && b.frames[fi] >= r.frame {
				continue
			}
			b.has[rec] |= bit
			b.frames[fi] = r.frame
			b.sendNos[fi] = it.sendNo
			off := int(rec)*b.fields + reg.offset[c]
			copy(b.vals[off:off+reg.comps[c].fields], r.vals[int(it.valOff)+reg.offset[c]:])
		}
	}
}

func (p *HostPeer) resolveDespawn(id ecs.NetID, delivered bool) {
	for i := range p.despawns {
		d := &p.despawns[i]
		if d.id != id {
			continue
		}
		if delivered {
			last := len(p.despawns) - 1
			p.despawns[i] = p.despawns[last]
			p.despawns = p.despawns[:last]
		} else {
			d.flying = false
			p.stats.Resent++
		}
		return
	}
}
