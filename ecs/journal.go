package ecs

import (
	"fmt"

	arche "github.com/mlange-42/arche/ecs"
)

// MaxReplicated is how many component types can be marked replicated in one
// world: the journal keeps one bit per type per entity.
const MaxReplicated = 64

// Change is one reported write: component Component of the networked entity
// Entity, whose network id is ID.
type Change struct {
	Entity    arche.Entity
	ID        NetID
	Component arche.ID
	// Slot is the entity's slot in the network index (see World.SlotEntity).
	Slot int32
	// Bit is the component's replicated index (see World.SetReplicated).
	Bit uint8
}

// Despawn is a networked entity that left the world (or lost its
// NetworkIdentity): its network id and the index slot it held, which may
// already belong to an entity created after it.
type Despawn struct {
	ID   NetID
	Slot int32
}

// Journal records, for the current frame, which replicated components of which
// networked entities were reported written, each pair once. It is cleared at
// the end of every Schedule step, after the last system (replication) read it.
// Entities created and removed in the frame are listed too.
//
// Every operation is O(1) per report and allocates nothing once its slices have
// grown to the frame's peak. Not safe for concurrent use.
type Journal struct {
	epoch     uint32 // frame generation; an entry's mask counts only when its epoch matches
	changes   []Change
	spawned   []arche.Entity
	despawned []Despawn
	reowned   []arche.Entity
	teleports []arche.Entity
	removals  int // networked entities removed since the last compaction
	bitOf     [256]int8
	ids       []arche.ID // replicated component ids by bit
}

func (j *Journal) init() {
	j.epoch = 1
	for i := range j.bitOf {
		j.bitOf[i] = -1
	}
}

// SetReplicated marks component id as replicated, so reports of it are
// journaled, and returns its bit (0..MaxReplicated-1). Marking twice returns the
// same bit. It panics past MaxReplicated types. The registry calls it
// (replicate.Register); a game built on package tandem registers its
// components with tandem.Replicate instead.
func (w *World) SetReplicated(id arche.ID) uint8 {
	j := &w.journal
	if b := j.bitOf[componentIndex(id)]; b >= 0 {
		return uint8(b)
	}
	if len(j.ids) >= MaxReplicated {
		panic(fmt.Sprintf("ecs: more than %d replicated component types; merge small components", MaxReplicated))
	}
	j.bitOf[componentIndex(id)] = int8(len(j.ids))
	j.ids = append(j.ids, id)
	return uint8(len(j.ids) - 1)
}

// ReplicatedBit returns the bit of a replicated component, or ok == false if id
// is not replicated.
func (w *World) ReplicatedBit(id arche.ID) (bit uint8, ok bool) {
	b := w.journal.bitOf[componentIndex(id)]
	return uint8(b), b >= 0
}

// ReplicatedIDs returns the replicated component ids, indexed by bit. The slice
// is the world's: do not modify it.
func (w *World) ReplicatedIDs() []arche.ID { return w.journal.ids }

// MutateComponent reports that component id of entity e was written, so the
// network replicates its new value: every system that writes a replicated
// component outside the network's own apply paths calls it after the
// write. Adding a replicated component to a
// live networked entity, or removing one from it, is reported the same way,
// after the change: the clients add or remove it too, its owner's included.
//
// A report for an entity without NetworkIdentity, or for a component not marked
// replicated, is ignored: local state stays local. Reports are deduplicated
// within a frame. O(1); allocates nothing in steady state. It changes no
// structure, so a system calls it inside its query, for each entity it
// writes. It panics if e is not alive.
func MutateComponent(w *World, e arche.Entity, id arche.ID) {
	// A networked entity found in the index is alive (removing it leaves
	// the index), so only the others need arche's check.
	slot, en, ok := w.index.entryOf(e)
	if !ok {
		if !w.arche.Alive(e) {
			panic(fmt.Sprintf("ecs: MutateComponent on dead entity %v; report writes right after making them, before removing the entity", e))
		}
		return
	}
	j := &w.journal
	b := j.bitOf[componentIndex(id)]
	if b < 0 {
		return
	}
	if en.epoch != j.epoch {
		en.epoch = j.epoch
		en.mask = 0
		checkIdentity(w, e, en)
	}
	bit := uint64(1) << uint(b)
	if en.mask&bit != 0 {
		return
	}
	en.mask |= bit
	// Field by field into the slice: a literal appended whole is built on
	// the stack and copied with wide loads that wait on its narrow stores.
	n := len(j.changes)
	if n == cap(j.changes) {
		j.changes = append(j.changes, Change{})
	}
	j.changes = j.changes[:n+1]
	c := &j.changes[n]
	c.Entity, c.ID, c.Component, c.Slot, c.Bit = e, en.id, id, slot, uint8(b)
}

// Reported reports whether a write of component id of networked entity e
// was reported this frame (MutateComponent); false for an entity that is not
// networked or a component that is not replicated.
func (w *World) Reported(e arche.Entity, id arche.ID) bool {
	_, en, ok := w.index.entryOf(e)
	if !ok || en.epoch != w.journal.epoch {
		return false
	}
	b := w.journal.bitOf[componentIndex(id)]
	return b >= 0 && en.mask&(1<<uint(b)) != 0
}

// ReportTeleport reports that networked entity e's pose jumped this frame
// instead of moving: a client draws the jump as one, never as a slide. The
// physics bridge's SetPose calls it; call it after writing a teleport to a
// Transform of your own (with MutateComponent for the write itself): the
// physics bridge puts an entity's body there (its step, or its Teleports
// system for a teleport after the step). A report
// for an entity without NetworkIdentity is ignored. Reports are kept until
// the end of the step, each entity once per call. O(1). It panics if e is not
// alive.
func ReportTeleport(w *World, e arche.Entity) {
	if !w.arche.Alive(e) {
		panic(fmt.Sprintf("ecs: ReportTeleport on dead entity %v", e))
	}
	if _, ok := w.index.slotOf(e); !ok {
		return
	}
	w.journal.teleports = append(w.journal.teleports, e)
}

// Teleported returns the networked entities reported teleported this frame
// (ReportTeleport) and still networked, in report order; an entity reported
// twice appears twice. Valid until the end of the step.
func (j *Journal) Teleported(w *World) []arche.Entity {
	if j.removals > 0 {
		j.compact(w)
	}
	return j.teleports
}

// checkIdentity panics if e's NetworkIdentity component no longer says what
// the network index holds: it was written directly, which the index (and so
// the network) never hears of. Checked once per entity and frame in which the
// entity reports a write, so it costs what changed.
// e is alive: it is in the index.
func checkIdentity(w *World, e arche.Entity, en *netEntry) {
	ni := (*NetworkIdentity)(w.arche.GetUnchecked(e, w.IDs.NetworkIdentity))
	if ni.ID != en.id || ni.Owner != en.owner {
		panic(fmt.Sprintf("ecs: the NetworkIdentity of %v was written directly (it says id %d, owner %d; the network knows id %d, owner %d): change an owner only with ecs.SetOwner, and never write the id of a networked entity", e, ni.ID, ni.Owner, en.id, en.owner))
	}
}

// Changes returns the reports of the current frame, each (entity, component)
// once, in report order, without those of entities removed since. The slice is
// the journal's, valid until the next report or the end of the step.
func (j *Journal) Changes(w *World) []Change {
	if j.removals > 0 {
		j.compact(w)
	}
	return j.changes
}

// Spawned returns the networked entities created (or given NetworkIdentity)
// this frame and still alive, in order. Valid until the end of the step.
func (j *Journal) Spawned(w *World) []arche.Entity {
	if j.removals > 0 {
		j.compact(w)
	}
	return j.spawned
}

// Reowned returns the networked entities given a new owner this frame (by
// SetOwner) and still alive, in order. Valid until the end of the step.
func (j *Journal) Reowned(w *World) []arche.Entity {
	if j.removals > 0 {
		j.compact(w)
	}
	return j.reowned
}

// Despawned returns the entities removed (or stripped of NetworkIdentity)
// this frame, in order. An entity created and removed in the same frame
// appears here and not in Spawned. Valid until the end of the step.
func (j *Journal) Despawned() []Despawn { return j.despawned }

// Epoch identifies the current frame's journal: it changes at the end of
// every frame (never 0). Despawned only grows within a frame, so a reader
// that reads the journal twice in one (a save between steps, then the
// step) may skip the despawns it read; the other lists name each entity or
// pair once a frame, and must be read whole again to see writes since.
func (j *Journal) Epoch() uint32 { return j.epoch }

// Len returns the number of changes recorded this frame, removed entities
// included.
func (j *Journal) Len() int { return len(j.changes) }

// compact drops the entries of entities that are no longer networked.
func (j *Journal) compact(w *World) {
	keep := j.changes[:0]
	for _, c := range j.changes {
		if slot, ok := w.index.slotOf(c.Entity); ok && w.index.entries.at(int(slot)).id == c.ID {
			keep = append(keep, c)
		}
	}
	j.changes = keep
	sp := j.spawned[:0]
	for _, e := range j.spawned {
		if _, ok := w.index.slotOf(e); ok {
			sp = append(sp, e)
		}
	}
	j.spawned = sp
	ro := j.reowned[:0]
	for _, e := range j.reowned {
		if _, ok := w.index.slotOf(e); ok {
			ro = append(ro, e)
		}
	}
	j.reowned = ro
	tp := j.teleports[:0]
	for _, e := range j.teleports {
		if _, ok := w.index.slotOf(e); ok {
			tp = append(tp, e)
		}
	}
	j.teleports = tp
	j.removals = 0
}

// endFrame clears the journal for the next frame.
func (j *Journal) endFrame() {
	j.changes = j.changes[:0]
	j.spawned = j.spawned[:0]
	j.despawned = j.despawned[:0]
	j.reowned = j.reowned[:0]
	j.teleports = j.teleports[:0]
	j.removals = 0
	j.epoch++
	if j.epoch == 0 {
		j.epoch = 1
	}
}

// EndFrame clears the journal: the frame's reports have been consumed. The
// Schedule calls it after its last system; call it yourself only when stepping
// the world without a Schedule (a game built on package tandem never does:
// its Schedule is the engine's).
func (w *World) EndFrame() { w.journal.endFrame() }
