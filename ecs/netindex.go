package ecs

import (
	"fmt"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/ecs/event"
)

// netEntry is the index's record of one networked entity.
type netEntry struct {
	entity   arche.Entity
	id       NetID
	owner    PeerID
	ownerPos int32  // position in owned[owner]
	epoch    uint32 // journal epoch of mask
	mask     uint64 // replicated components reported in that epoch
}

// netIndex indexes networked entities by network id and by owner. It is kept by
// arche's listener on NetworkIdentity, so it never scans the world.
type netIndex struct {
	w       *World
	entries chunks[netEntry] // by slot; free slots have entity zero
	free    []int32
	slots   chunks[int32] // by arche entity index: slot+1, 0 if not networked
	byID    idTable
	owned   [][]arche.Entity // by PeerID
	nextID  NetID
	fresh   NetID // the first id given in this run: below it, a save's (SetNextNetID)
	mask    arche.Mask
	quiet   bool // a NetBatch runs: it indexes its entities itself
}

func (x *netIndex) init(w *World) {
	x.w = w
	x.nextID, x.fresh = 1, 1
	x.mask = arche.All(w.IDs.NetworkIdentity)
}

// Notify implements arche's Listener for NetworkIdentity events.
func (x *netIndex) Notify(world *arche.World, evt arche.EntityEvent) {
	if x.quiet {
		return
	}
	id := x.w.IDs.NetworkIdentity
	if evt.Removed.Get(id) {
		x.remove(evt.Entity)
	}
	if evt.Added.Get(id) {
		x.add(evt.Entity)
	}
}

// Subscriptions implements arche's Listener.
func (x *netIndex) Subscriptions() event.Subscription {
	return event.EntityCreated | event.EntityRemoved | event.ComponentAdded | event.ComponentRemoved
}

// Components implements arche's Listener: only NetworkIdentity matters.
func (x *netIndex) Components() *arche.Mask { return &x.mask }

func (x *netIndex) slotOf(e arche.Entity) (int32, bool) {
	s, _, ok := x.entryOf(e)
	return s, ok
}

// entryOf returns the slot and record of networked entity e.
func (x *netIndex) entryOf(e arche.Entity) (int32, *netEntry, bool) {
	i := int(e.ID())
	if i >= x.slots.n {
		return 0, nil, false
	}
	s := *x.slots.at(i) - 1
	if s < 0 {
		return 0, nil, false
	}
	en := x.entries.at(int(s))
	if en.entity != e {
		return 0, nil, false
	}
	return s, en, true
}

func (x *netIndex) add(e arche.Entity) {
	x.addIdentity(e, (*NetworkIdentity)(x.w.arche.Get(e, x.w.IDs.NetworkIdentity)))
}

// addIdentity indexes e, whose NetworkIdentity is ni (an ID of 0 gets the
// next fresh one), and returns its slot.
func (x *netIndex) addIdentity(e arche.Entity, ni *NetworkIdentity) int32 {
	if ni.ID == 0 {
		ni.ID = x.nextID
		x.nextID++
	} else if ni.ID >= x.nextID {
		x.nextID = ni.ID + 1
	}
	slot := int32(x.entries.n)
	free := len(x.free)
	if free > 0 {
		slot = x.free[free-1]
	}
	// The id first: one in use is refused before anything changed.
	if !x.byID.claim(ni.ID, slot) {
		panic(fmt.Sprintf("ecs: network id %d is already in use; add NetworkIdentity with ID 0 to get a fresh one", ni.ID))
	}
	if free > 0 {
		x.free = x.free[:free-1]
	} else {
		x.entries.grow(x.entries.n + 1)
	}
	en := x.entries.at(int(slot))
	*en = netEntry{entity: e, id: ni.ID}
	i := int(e.ID())
	x.slots.grow(i + 1)
	*x.slots.at(i) = slot + 1
	x.own(en, ni.Owner)
	j := &x.w.journal
	if len(j.spawned) == cap(j.spawned) {
		j.spawned = room(j.spawned, 1)
	}
	j.spawned = append(j.spawned, e) // in place: no pointer written
	return slot
}

func (x *netIndex) remove(e arche.Entity) {
	slot, ok := x.slotOf(e)
	if !ok {
		return
	}
	en := x.entries.at(int(slot))
	x.disown(slot)
	x.byID.remove(en.id)
	j := &x.w.journal
	j.despawned = append(j.despawned, Despawn{ID: en.id, Slot: slot})
	j.removals++
	*x.slots.at(int(e.ID())) = 0
	*en = netEntry{}
	x.free = append(x.free, slot)
}

// own gives the indexed entity of en to peer p, listing it as p's.
func (x *netIndex) own(en *netEntry, p PeerID) {
	if int(p) >= len(x.owned) || len(x.owned[p]) == cap(x.owned[p]) {
		x.roomFor(p, 1)
	}
	en.owner = p
	en.ownerPos = int32(len(x.owned[p]))
	x.owned[p] = append(x.owned[p], en.entity) // in place: no pointer written
}

// roomFor makes room for n more entities in peer p's list, listing p if it
// is not yet.
func (x *netIndex) roomFor(p PeerID, n int) {
	for int(p) >= len(x.owned) {
		x.owned = append(x.owned, nil)
	}
	if list := x.owned[p]; cap(list)-len(list) < n {
		x.owned[p] = room(list, n)
	}
}

// room returns s with room for n more elements, doubling its capacity when
// it grows: a list that grows to a large world (a peer's entities, a frame's
// spawns while a client joins) is copied about once over, where append's
// smaller steps for large slices copy it several times. Call it only when s
// is full and append to s after: storing room's result every time writes
// the slice's pointer, a write barrier per element while the collector
// marks, where an append in place stores only the length.
func room[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	g := make([]T, len(s), max(2*cap(s), len(s)+n, 16))
	copy(g, s)
	return g
}

func (x *netIndex) disown(slot int32) {
	en := x.entries.at(int(slot))
	list := x.owned[en.owner]
	last := len(list) - 1
	moved := list[last]
	list[en.ownerPos] = moved
	if ms, ok := x.slotOf(moved); ok {
		x.entries.at(int(ms)).ownerPos = en.ownerPos
	}
	x.owned[en.owner] = list[:last]
}

// ReserveOwned makes room for n more entities in peer p's list of owned
// entities (Owned), so that adding them copies nothing: for a join that
// announces how many entities it brings. A list kept growing doubles, and
// one of a large world is copied whole in a single frame.
func (w *World) ReserveOwned(p PeerID, n int) {
	if n > 0 {
		w.index.roomFor(p, n)
	}
}

// ReserveNetworked allocates the next chunk (4,096 entities) of each of the
// index's tables that n more networked entities than it holds would need,
// and reports whether it allocated any: called until false, it makes room
// for them, so that the entities of a join that announced its size are
// indexed with nothing allocated. A call does a bounded part of the work,
// for a frame with time to spare.
func (w *World) ReserveNetworked(n int) bool {
	x := &w.index
	if n <= 0 {
		return false
	}
	// Slots are the index's, from 0, the freed ones taken first; the table
	// of slots by arche entity id is taken to go on from the highest id
	// indexed, as arche gives new ids in order (from 1).
	e := x.entries.reserve(x.entries.n + n - len(x.free))
	s := x.slots.reserve(max(x.slots.n, 1) + n)
	return e || s
}

// EntityOf returns the live entity with network id id, or ok == false.
// O(1).
func (w *World) EntityOf(id NetID) (e arche.Entity, ok bool) {
	slot, ok := w.index.byID.get(id)
	if !ok {
		return arche.Entity{}, false
	}
	return w.index.entries.at(int(slot)).entity, true
}

// Identity returns the network identity of e, or ok == false if e is not
// networked.
func (w *World) Identity(e arche.Entity) (NetworkIdentity, bool) {
	slot, ok := w.index.slotOf(e)
	if !ok {
		return NetworkIdentity{}, false
	}
	en := w.index.entries.at(int(slot))
	return NetworkIdentity{ID: en.id, Owner: en.owner}, true
}

// Owned returns the entities owned by peer p. The slice is the index's: read it,
// do not keep or modify it; it changes with the next structural change.
func (w *World) Owned(p PeerID) []arche.Entity {
	if int(p) >= len(w.index.owned) {
		return nil
	}
	return w.index.owned[p]
}

// NetSlot returns the slot of the networked entity e in the network index, or
// ok == false. Slots are dense, from 0 to NetSlots()-1, held by an entity for
// its networked life and reused after it: layers above keep per-entity state in
// slices indexed by slot, and check the network id when a slot may have
// changed hands.
func (w *World) NetSlot(e arche.Entity) (slot int32, ok bool) { return w.index.slotOf(e) }

// NetSlots returns the number of slots of the network index, used or free.
func (w *World) NetSlots() int { return w.index.entries.n }

// SlotEntity returns the entity in slot and its network id, or ok == false
// if the slot is free.
func (w *World) SlotEntity(slot int32) (e arche.Entity, id NetID, ok bool) {
	if slot < 0 || int(slot) >= w.index.entries.n {
		return arche.Entity{}, 0, false
	}
	en := w.index.entries.at(int(slot))
	if en.id == 0 {
		return arche.Entity{}, 0, false
	}
	return en.entity, en.id, true
}

// SlotOwner returns the owner of the entity in slot: HostPeer for a free
// slot too.
func (w *World) SlotOwner(slot int32) PeerID {
	if slot < 0 || int(slot) >= w.index.entries.n {
		return HostPeer
	}
	return w.index.entries.at(int(slot)).owner
}

// Networked returns how many networked entities the world holds.
func (w *World) Networked() int { return w.index.byID.n }

// NextNetID returns the network id the next entity added with ID zero gets.
func (w *World) NextNetID() NetID { return w.index.nextID }

// SetOwner gives the networked entity e to peer p, updating both the
// component and the owner index, and journals the change so the network
// tells every peer. It is the only correct way to change an owner
// after NetworkIdentity was added. It panics if e is not networked.
func SetOwner(w *World, e arche.Entity, p PeerID) {
	slot, ok := w.index.slotOf(e)
	if !ok {
		panic(fmt.Sprintf("ecs: SetOwner on %v, which has no NetworkIdentity; add the component with its Owner set instead", e))
	}
	if w.index.entries.at(int(slot)).owner == p {
		return
	}
	w.index.disown(slot)
	w.index.own(w.index.entries.at(int(slot)), p)
	ni := (*NetworkIdentity)(w.arche.Get(e, w.IDs.NetworkIdentity))
	ni.Owner = p
	w.journal.reowned = append(w.journal.reowned, e)
}

// idPageBits sets the pages of the id table: 1,024 ids a page.
const idPageBits = 10

// idTable maps network ids to index slots: a page of 1,024 entries per
// range of ids in use, made when the first id of its range arrives and freed
// when the last leaves, so lookups are two loads and its memory follows the
// ids in use (the host gives them in increasing order).
type idTable struct {
	pages []*[1 << idPageBits]int32 // by id >> idPageBits; entries slot+1, 0: none
	used  []uint16                  // ids in use per page
	n     int
}

func (t *idTable) get(id NetID) (int32, bool) {
	p := int(id >> idPageBits)
	if p >= len(t.pages) || t.pages[p] == nil {
		return 0, false
	}
	s := t.pages[p][id&(1<<idPageBits-1)]
	return s - 1, s != 0
}

// claim maps id to slot (the id's page made if it has none) unless id is
// mapped already: then it changes nothing and returns false.
func (t *idTable) claim(id NetID, slot int32) bool {
	p := int(id >> idPageBits)
	if p >= len(t.pages) || t.pages[p] == nil {
		t.makePage(p)
	}
	e := &t.pages[p][id&(1<<idPageBits-1)]
	if *e != 0 {
		return false
	}
	*e = slot + 1
	t.used[p]++
	t.n++
	return true
}

// makePage makes page p of the table.
func (t *idTable) makePage(p int) {
	if p >= len(t.pages) {
		t.pages = append(t.pages, make([]*[1 << idPageBits]int32, p+1-len(t.pages))...)
		t.used = append(t.used, make([]uint16, p+1-len(t.used))...)
	}
	t.pages[p] = new([1 << idPageBits]int32)
}

func (t *idTable) remove(id NetID) {
	p := int(id >> idPageBits)
	if p >= len(t.pages) || t.pages[p] == nil {
		return
	}
	e := &t.pages[p][id&(1<<idPageBits-1)]
	if *e == 0 {
		return
	}
	*e = 0
	t.n--
	if t.used[p]--; t.used[p] == 0 {
		t.pages[p] = nil
	}
}

// chunkBits sets the chunks of the index's tables: 4,096 entries. A chunk is
// made when the first entry of its range is used, so the tables grow in
// proportion to the entities, with no copies of what they hold.
const chunkBits = 12

// chunks is a slice of T in chunks of 1<<chunkBits.
type chunks[T any] struct {
	c [][]T
	n int // entries in use (the length)
}

func (c *chunks[T]) at(i int) *T { return &c.c[i>>chunkBits][i&(1<<chunkBits-1)] }

// reserve appends one chunk if fewer than n entries have one, and reports
// whether it did.
func (c *chunks[T]) reserve(n int) bool {
	if len(c.c)<<chunkBits >= n {
		return false
	}
	c.c = append(c.c, make([]T, 1<<chunkBits))
	return true
}

// grow makes the length at least n.
func (c *chunks[T]) grow(n int) {
	for len(c.c)<<chunkBits < n {
		c.c = append(c.c, make([]T, 1<<chunkBits))
	}
	c.n = max(c.n, n)
}
