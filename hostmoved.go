package tandem

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// A game says an entity is moved by the host alone (ecs.HostMoved: a
// strategy game's unit, which its owner draws from the host's states and
// does not predict) on the host, where it makes the entity: the host's
// AuthStates then leave it out of their refresh turns, and a replicated
// mark of the engine's own (movedMark, kept by the host's pass each step
// and right after Join) tells every client, whose pass gives the entity
// ecs.HostMoved as the mark arrives and takes it away as the mark goes. In
// between the client's game may take it away itself, to predict the
// entity, or add it to an entity the host did not mark: the pass acts on
// the mark's changes only (movedSeen records that it acted), not at every
// step.

// movedMark marks a networked entity that has ecs.HostMoved on the host. It
// travels as one field, after tandem.Driven; a save leaves it out (the
// host's HostMoved is not saved either: the game marks what it restores
// again, and the pass marks it then).
type movedMark struct{ on bool }

// movedSeen is a client's note that it gave an entity ecs.HostMoved for
// its mark (or the entity had it then): the mark's going takes it away.
type movedSeen struct{}

// movedComponent is the mark's replicated component.
func movedComponent() Component {
	return Replicate(replicate.IntegerCodec[movedMark]("tandem.HostMoved"), HostOnly)
}

// movedFilters are the queries of both sides' passes, and the entities a
// pass found (changed after the query ends).
type movedFilters struct {
	mark, seen arche.ID
	unmarked   arche.MaskFilter // host: HostMoved and NetworkIdentity, no mark
	unmoved    arche.MaskFilter // host: the mark without HostMoved
	arrived    arche.MaskFilter // client: the mark and NetworkIdentity, not seen
	gone       arche.MaskFilter // client: seen without the mark
	found      []arche.Entity
}

func newMovedFilters(w *ecs.World) *movedFilters {
	a := w.Arche()
	mark, seen := arche.ComponentID[movedMark](a), arche.ComponentID[movedSeen](a)
	return &movedFilters{
		mark: mark, seen: seen,
		unmarked: arche.All(w.IDs.HostMoved, w.IDs.NetworkIdentity).Without(mark),
		unmoved:  arche.All(mark).Without(w.IDs.HostMoved),
		arrived:  arche.All(mark, w.IDs.NetworkIdentity).Without(seen),
		gone:     arche.All(seen).Without(mark),
	}
}

// marks is the host's pass: every networked entity with HostMoved gets the
// mark, and one that lost HostMoved loses it, each change reported so it
// replicates. Cost: the entities it changes, and the archetypes.
func (f *movedFilters) marks(w *ecs.World) {
	keepMarks(w, f.mark, movedMark{on: true}, &f.unmarked, &f.unmoved, &f.found)
}

// moves is a client's pass: an entity whose mark arrived gets HostMoved,
// one whose mark went loses it. Cost: the entities whose mark changed, and
// the archetypes.
func (f *movedFilters) moves(w *ecs.World) {
	a := w.Arche()
	f.found = gather(f.found[:0], a.Query(&f.arrived))
	for _, e := range f.found {
		a.Add(e, f.seen)
		if !a.Has(e, w.IDs.HostMoved) {
			a.Add(e, w.IDs.HostMoved)
		}
	}
	f.found = gather(f.found[:0], a.Query(&f.gone))
	for _, e := range f.found {
		a.Remove(e, f.seen)
		if a.Has(e, w.IDs.HostMoved) {
			a.Remove(e, w.IDs.HostMoved)
		}
	}
}
