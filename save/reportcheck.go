package save

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// The report check (Tracker.CheckReports): a save writes an entity only
// when one of its saved components was reported written, so a write without
// a report is lost at a restart, unless another write of the same entity
// was reported before the next save. The check finds such writes as they
// happen: at every Update it encodes each networked entity's saved
// components and compares them with the encodings of the Update before.

// reportCheck is the check's memory: by network slot, the entity's id and
// each saved component's encoding at the last Update.
type reportCheck struct {
	ids []ecs.NetID
	enc [][]byte // slot·len(comps) + component
	had []bool   // enc holds an encoding
	rep []uint64 // by slot: the saved components reported this frame (all: the entity is saved whole)
	buf []byte
}

// reshaped notes that entity e gained or lost a saved or excluded component
// this frame: the save writes it whole (the tracker's listener), so no
// change of its saved components goes unsaved.
func (c *reportCheck) reshaped(w *ecs.World, e arche.Entity) {
	if slot, ok := w.NetSlot(e); ok {
		for int(slot) >= len(c.rep) {
			c.rep = append(c.rep, 0)
		}
		c.rep[slot] = ^uint64(0)
	}
}

// UnreportedError is what a Tracker that checks reports panics with when a
// saved component of a networked entity changed without a report
// (ecs.MutateComponent): a save would not keep the change.
type UnreportedError struct {
	Component string       // the component's saved name
	ID        ecs.NetID    // the entity's network id
	Entity    arche.Entity // the entity
	Frame     ecs.Frame    // the step that found it
	// More counts the other saved components changed without a report that
	// the check found in the same step, of this entity or others; Also
	// names up to four of their components other than Component, once each.
	More int
	Also []string
}

// maxAlso bounds UnreportedError.Also.
const maxAlso = 4

// Error names the component, the entity and what to do, and how many more
// the step had, and which.
func (e *UnreportedError) Error() string {
	msg := fmt.Sprintf("save: saved component %s of networked entity %d (ECS entity %v) changed without a report by frame %d: call ecs.MutateComponent after writing it, or a save does not keep the change (found by the save's report check)", e.Component, e.ID, e.Entity, e.Frame)
	if e.More > 0 {
		msg += fmt.Sprintf("; %d more in the same step", e.More)
		if len(e.Also) > 0 {
			msg += ", among them changes of " + strings.Join(e.Also, ", ")
		}
	}
	return msg
}

// noteUnreported records an unreported change of component name at entity e (slot's
// id) into the step's first error, or makes it the first.
func noteUnreported(found *UnreportedError, name string, id ecs.NetID, e arche.Entity, frame ecs.Frame) *UnreportedError {
	if found == nil {
		return &UnreportedError{Component: name, ID: id, Entity: e, Frame: frame}
	}
	found.More++
	if len(found.Also) < maxAlso && name != found.Component && !slices.Contains(found.Also, name) {
		found.Also = append(found.Also, name)
	}
	return found
}

// CheckReports makes every Update check that no saved component of a
// networked entity changed without a report this frame, and panic with an
// *UnreportedError naming the first it finds and counting the others
// (UpdateBetweenSteps leaves the check to the next step's Update). It encodes every saved component of the
// world at every Update: a debugging aid for tests, not for a game's host.
func (t *Tracker) CheckReports() {
	if t.check == nil {
		t.check = &reportCheck{}
	}
}

// checkReports is the report check of one Update, after it read the
// journal.
func (t *Tracker) checkReports(w *ecs.World, j *ecs.Journal) {
	c := t.check
	n := len(t.s.comps)
	slots := w.NetSlots()
	for len(c.ids) < slots {
		c.ids = append(c.ids, 0)
		for range n {
			c.enc = append(c.enc, nil)
			c.had = append(c.had, false)
		}
	}
	for len(c.rep) < slots {
		c.rep = append(c.rep, 0)
	}
	defer clear(c.rep) // the next frame's reports start afresh
	all := ^uint64(0)
	for _, ch := range j.Changes(w) {
		if i := t.s.byBit[ch.Bit]; i >= 0 {
			c.rep[ch.Slot] |= 1 << uint(i)
		}
	}
	for _, list := range [][]arche.Entity{j.Spawned(w), j.Reowned(w)} {
		for _, e := range list {
			if slot, ok := w.NetSlot(e); ok {
				c.rep[slot] = all
			}
		}
	}
	a := w.Arche()
	// The first found is reported, the others counted; the check goes on
	// to the last entity, taking every encoding in, so the next Update finds
	// only new changes.
	var found *UnreportedError
	for slot := range int32(slots) {
		e, id, ok := w.SlotEntity(slot)
		if !ok {
			c.ids[slot] = 0
			continue
		}
		if c.ids[slot] != id {
			c.ids[slot] = id
			c.rep[slot] = all // a new entity in the slot
		}
		m := a.Mask(e)
		if t.s.excluded(&m) {
			// Not saved: what it holds when it is saved again goes whole.
			clear(c.had[int(slot)*n : int(slot+1)*n])
			continue
		}
		for i := range t.s.comps {
			comp := &t.s.comps[i]
			k := int(slot)*n + i
			if !m.Get(comp.id) {
				c.had[k] = false
				continue
			}
			c.buf = comp.append(c.buf[:0], a.Get(e, comp.id))
			if c.had[k] && c.rep[slot]&(1<<uint(i)) == 0 && !bytes.Equal(c.buf, c.enc[k]) {
				found = noteUnreported(found, comp.name, id, e, w.Frame())
			}
			c.enc[k] = append(c.enc[k][:0], c.buf...)
			c.had[k] = true
		}
	}
	if found != nil {
		panic(found)
	}
}
