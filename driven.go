package tandem

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// Which entities a player drives is the host's to say: the networked
// entities its world gives the game's Input (in Game.Join, Setup, or any
// system). Input itself is not replicated, so the host marks those
// entities with a replicated component of the engine's own (drivenMark,
// kept by drivenMarks each step and right after Join), and a client gives
// Input to the entities it owns that carry the mark, takes it from those
// that lose it or that it no longer owns (drivenInputs), and to no other:
// a projectile or a planted flag a player owns but does not drive is moved
// by no one's input, on every machine.

// drivenMark marks a networked entity that has the game's Input on the
// host. It travels as one field, after the game's components (and the
// roster's); a save leaves it out (the host marks what it restores again).
type drivenMark struct{ on bool }

// drivenComponent is the mark's replicated component.
func drivenComponent() Component {
	return Replicate(replicate.IntegerCodec[drivenMark]("tandem.Driven"), HostOnly)
}

// drivenFilters are the queries both sides keep the mark and Input in step
// with, and the entities a pass found (changed after the query ends).
type drivenFilters struct {
	input, mark arche.ID
	unmarked    arche.MaskFilter // host: Input and NetworkIdentity, no mark
	unheld      arche.MaskFilter // host: the mark without Input
	marked      arche.MaskFilter // client: the mark and NetworkIdentity, no Input
	held        arche.Mask       // client: Input and NetworkIdentity
	found       []arche.Entity
}

func newDrivenFilters[I any](w *ecs.World) *drivenFilters {
	a := w.Arche()
	in, mark := arche.ComponentID[Input[I]](a), arche.ComponentID[drivenMark](a)
	return &drivenFilters{
		input: in, mark: mark,
		unmarked: arche.All(in, w.IDs.NetworkIdentity).Without(mark),
		unheld:   arche.All(mark).Without(in),
		marked:   arche.All(mark, w.IDs.NetworkIdentity).Without(in),
		held:     arche.All(in, w.IDs.NetworkIdentity),
	}
}

// drivenMarks is the host's pass: every networked entity with Input gets
// the mark, and one that lost its Input loses it, each change reported
// (ecs.MutateComponent) so it replicates. Cost: the entities it changes,
// and the archetypes.
func (f *drivenFilters) drivenMarks(w *ecs.World) {
	keepMarks(w, f.mark, drivenMark{on: true}, &f.unmarked, &f.unheld, &f.found)
}

// keepMarks is the host's pass of a mark of the engine's (drivenMark): each
// entity unmarked yields gets the mark, set to on, and
// each stale yields loses it, every change of a networked entity reported
// so it replicates; found is the scratch the entities are gathered in (a
// query's entities change after it ends).
func keepMarks[M any](w *ecs.World, mark arche.ID, on M, unmarked, stale *arche.MaskFilter, found *[]arche.Entity) {
	a := w.Arche()
	*found = gather((*found)[:0], a.Query(unmarked))
	for _, e := range *found {
		a.Add(e, mark)
		*(*M)(a.Get(e, mark)) = on
		ecs.MutateComponent(w, e, mark)
	}
	*found = gather((*found)[:0], a.Query(stale))
	for _, e := range *found {
		networked := a.Has(e, w.IDs.NetworkIdentity) // else nothing to report
		a.Remove(e, mark)
		if networked {
			ecs.MutateComponent(w, e, mark)
		}
	}
}

// gather appends the entities q yields to dst and returns it.
func gather(dst []arche.Entity, q arche.Query) []arche.Entity {
	for q.Next() {
		dst = append(dst, q.Entity())
	}
	return dst
}

// drivenInputs is a client's pass: an entity it owns that carries the mark
// gets Input (given to it after it arrived, or marked since), and a
// networked one with Input that lost the mark or is no longer its own loses
// Input. Cost: the marked entities (the players' driven ones), and the
// archetypes.
func (f *drivenFilters) drivenInputs(w *ecs.World, self ecs.PeerID) {
	a := w.Arche()
	ni := w.IDs.NetworkIdentity
	f.found = f.found[:0]
	q := a.Query(&f.marked)
	for q.Next() {
		if (*ecs.NetworkIdentity)(q.Get(ni)).Owner == self {
			f.found = append(f.found, q.Entity())
		}
	}
	for _, e := range f.found {
		a.Add(e, f.input)
	}
	f.found = f.found[:0]
	q = a.Query(&f.held)
	for q.Next() {
		if !q.Has(f.mark) || (*ecs.NetworkIdentity)(q.Get(ni)).Owner != self {
			f.found = append(f.found, q.Entity())
		}
	}
	for _, e := range f.found {
		a.Remove(e, f.input)
	}
}
