package replicate

import (
	"bytes"
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"
)

// The watch (CheckReports only): after each system of a step (but those
// marked ecs.Reporting), every networked entity's replicated components
// are compared with what they were before the system ran, so that a write
// or an addition without a report that CheckReports finds names the
// system that made it. It walks the world's networked entities in the
// ECS's own order (by archetype) and first compares each one's components
// byte for byte with what the entity at the same place held at the last
// walk. Only an entity whose bytes differ, that holds other components,
// that took another's place, or whose components are not all in their own
// bytes (a slice, a string) is quantized and compared with its image by
// slot. It still costs a pass over the world per system watched, about
// half what quantizing every entity did: a debugging aid.

// watch is what WatchSystem keeps between its calls.
type watch struct {
	// By slot: what the watch last saw of the entity in it.
	img []int32        // each component's quantized value
	has []uint16       // the components seen
	ent []arche.Entity // the entity they were seen on

	// By place in the walk (the ECS's order of the world's networked
	// entities), as the last walk found them.
	placed []arche.Entity // the entity; zero: look at whatever is there
	held   []uint16       // its replicated components
	snap   []byte         // its flat components' bytes, rowBytes a place
	// rowBytes is a place's share of bytes; at is where each flat
	// component's bytes are in it (set at the first walk).
	rowBytes  int
	at        [MaxComponents]int
	networked arche.Mask   // the walk's filter: entities with a NetworkIdentity
	look      []placedSlot // scratch: the entities to look at after the walk

	culprit map[watchKey]culprit
	frame   uint32 // the frame of the last call
}

// placedSlot is the slot of the entity at a place of the walk.
type placedSlot struct{ place, slot int32 }

// watchKey is a component of the entity in a slot.
type watchKey struct {
	slot int32
	comp int
}

// culprit is the system the watch saw make a write without a report, and
// the frame it did.
type culprit struct {
	system string
	frame  uint32
}

// WatchSystem notes, after the system called name ran (name empty: at the
// start of a step, for what changed between steps), the replicated
// components it wrote or added without a report (ecs.MutateComponent), so
// that CheckReports names that system in its UnreportedError (at the end
// of the step, or of the next one for a system that runs after the
// replicator). It does nothing unless HostConfig.CheckReports is set. Set
// it as the schedule's ecs.Schedule.Watch (the session's host does so when
// CheckReports is set); it runs on the simulation goroutine.
func (h *HostReplicator) WatchSystem(name string) {
	if !h.cfg.CheckReports {
		return
	}
	w := h.w
	wt := &h.watch
	if f := uint32(w.Frame()); wt.frame != f {
		wt.frame = f
		for k, c := range wt.culprit {
			if f-c.frame > 1 {
				delete(wt.culprit, k)
			}
		}
	}
	if name == "" {
		name = betweenSteps
	}
	reg := h.reg
	if n := w.NetSlots(); len(wt.has) < n {
		wt.has = append(wt.has, make([]uint16, n-len(wt.has))...)
		wt.ent = append(wt.ent, make([]arche.Entity, n-len(wt.ent))...)
		wt.img = append(wt.img, make([]int32, n*reg.fields-len(wt.img))...)
	}
	if wt.networked.IsZero() {
		wt.networked = arche.All(w.IDs.NetworkIdentity)
		for c := range reg.comps {
			if comp := &reg.comps[c]; comp.flat {
				wt.at[c] = wt.rowBytes
				wt.rowBytes += comp.size
			}
		}
	}
	rb := wt.rowBytes
	wt.look = wt.look[:0] // (a codec's panic may have left the last call's)
	q := w.Arche().Query(&wt.networked)
	place := 0
	for ; q.Next(); place++ {
		e := q.Entity()
		if place == len(wt.placed) {
			wt.placed = append(wt.placed, arche.Entity{})
			wt.held = append(wt.held, 0)
			wt.snap = append(wt.snap, make([]byte, rb)...)
		}
		row := wt.snap[place*rb : (place+1)*rb : (place+1)*rb]
		same := wt.placed[place] == e
		var held uint16
		for c := range reg.comps {
			comp := &reg.comps[c]
			p := q.Get(comp.id)
			if p == nil {
				continue
			}
			held |= 1 << c
			if same && (!comp.flat || !bytes.Equal(row[wt.at[c]:wt.at[c]+comp.size], unsafe.Slice((*byte)(p), comp.size))) {
				same = false
			}
		}
		if same && held == wt.held[place] {
			continue
		}
		slot, ok := w.NetSlot(e)
		if !ok {
			wt.placed[place] = arche.Entity{} // not networked yet: look again
			continue
		}
		wt.look = append(wt.look, placedSlot{place: int32(place), slot: slot})
		wt.placed[place], wt.held[place] = e, held
		for c := range reg.comps {
			if comp := &reg.comps[c]; comp.flat && held&(1<<c) != 0 {
				copy(row[wt.at[c]:], unsafe.Slice((*byte)(q.Get(comp.id)), comp.size))
			}
		}
	}
	// Places past the walk's end forget what they held: an entity that
	// comes back to one was looked at elsewhere since.
	clear(wt.placed[place:])
	// The codecs (the game's code) run once the walk let the world go.
	for _, l := range wt.look {
		h.watchEntity(l.slot, wt.placed[l.place], name)
	}
	wt.look = wt.look[:0]
}

// watchEntity compares each replicated component of entity e, in slot, with
// the image the watch last saw of it, and notes a change without a report
// as made by the system called name.
func (h *HostReplicator) watchEntity(slot int32, e arche.Entity, name string) {
	w, wt, reg := h.w, &h.watch, h.reg
	if wt.ent[slot] != e {
		wt.ent[slot], wt.has[slot] = e, 0 // another entity: nothing of it seen yet
	}
	// The entity was looked at before, and the replicator took in its
	// spawn: until then (its first step, before the replicator) what is
	// added or written needs no report, the spawn carrying it.
	known := wt.has[slot] != 0 && h.known(e)
	a := w.Arche()
	for c := range reg.comps {
		comp := &reg.comps[c]
		bit := uint16(1) << c
		v := a.GetUnchecked(e, comp.id)
		if v == nil {
			wt.has[slot] &^= bit
			continue
		}
		q := h.scratch[:comp.fields:comp.fields]
		comp.quant(v, q)
		at := int(slot)*reg.fields + reg.offset[c]
		seen := wt.img[at : at+comp.fields]
		if wt.has[slot]&bit != 0 && equalImage(q, seen) {
			continue
		}
		// Changed, or added to an entity seen before: a write or an
		// addition, unless it was reported.
		if known && !w.Reported(e, comp.id) {
			if wt.culprit == nil {
				wt.culprit = map[watchKey]culprit{}
			}
			k := watchKey{slot, c}
			if old, named := wt.culprit[k]; !named || old.frame != wt.frame {
				wt.culprit[k] = culprit{system: name, frame: wt.frame}
			}
		}
		copy(seen, q)
		wt.has[slot] |= bit
	}
}

// betweenSteps is an UnreportedError's System for a write made before
// the step's first system ran: between steps (in a Do, View or hook).
const betweenSteps = "between steps"

// watched returns the system the watch saw write or add component c of the
// entity in slot without a report, this frame or the one before (a system
// that runs after the replicator), or "".
func (h *HostReplicator) watched(slot int32, c int) string {
	cp, ok := h.watch.culprit[watchKey{slot, c}]
	if !ok || h.frame-cp.frame > 1 {
		return ""
	}
	return cp.system
}
