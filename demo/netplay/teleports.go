package netplay

import (
	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// Teleports counts an entity's teleports on the host (a ball put back on the
// centre spot after a goal, a crate sent home). It is replicated so that a
// client, seeing the count change with a new state, draws that state as a
// jump instead of a fast slide across the field: the host marks a teleport
// with ecs.Interpolated.Snap, which lives one step and does not travel.
// Every networked entity with a Transform and ecs.Interpolated carries one on
// the host. The count wraps; only a change matters.
type Teleports struct {
	Count uint8
}

// teleports is the host system that keeps Teleports: it gives the component
// to the step's new entities that move, and counts a teleport for each entity
// whose Transform change this step came with Interpolated.Snap. Add it after
// every system that may teleport. Cost: the step's spawns and changes.
type teleports struct {
	ids     ecs.CoreIDs
	id      arche.ID
	interps generic.Map[ecs.Interpolated]
	counts  generic.Map[Teleports]
	add     []arche.Entity
}

func newTeleports(w *ecs.World) *teleports {
	a := w.Arche()
	t := &teleports{
		ids:     w.IDs,
		id:      arche.ComponentID[Teleports](a),
		interps: generic.NewMap[ecs.Interpolated](a),
		counts:  generic.NewMap[Teleports](a),
	}
	// What exists before the first step: the whole world, once.
	q := generic.NewFilter3[ecs.Transform, ecs.Interpolated, ecs.NetworkIdentity]().Without(generic.T[Teleports]()).Query(a)
	for q.Next() {
		t.add = append(t.add, q.Entity())
	}
	t.flush(w)
	return t
}

// Update implements ecs.System.
func (t *teleports) Update(w *ecs.World) {
	j := w.Journal()
	a := w.Arche()
	for _, e := range j.Spawned(w) {
		if a.Has(e, t.ids.Transform) && a.Has(e, t.ids.Interpolated) && !a.Has(e, t.id) {
			t.add = append(t.add, e)
		}
	}
	t.flush(w)
	changes := j.Changes(w)
	n := len(changes) // reports made below append to the journal
	for i := range n {
		ch := changes[i]
		if ch.Component != t.ids.Transform || !t.counts.Has(ch.Entity) || !t.interps.Get(ch.Entity).Snap {
			continue
		}
		t.counts.Get(ch.Entity).Count++
		ecs.MutateComponent(w, ch.Entity, t.id)
	}
}

// flush gives Teleports to the entities collected in add.
func (t *teleports) flush(w *ecs.World) {
	for _, e := range t.add {
		w.Arche().Add(e, t.id)
	}
	t.add = t.add[:0]
}
