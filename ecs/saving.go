package ecs

import (
	"fmt"

	arche "github.com/mlange-42/arche/ecs"
)

// What a layer that saves a world needs of it, beside the journal:
// host-only components reported like replicated ones, and the network-id
// counter carried across a restart.

// SetJournaled marks component id so that MutateComponent reports of it are
// journaled, and returns its journal bit, without anything replicating it:
// the journal is shared, and a replicator skips the bits no codec of its
// claims. A layer that tracks writes by the journal (saves of host-only
// components) marks what it tracks this way. It is SetReplicated under a name
// that says what it does for such components; marking twice returns the same
// bit, and both count towards MaxReplicated. A game built on package tandem does not call it: the engine does.
func (w *World) SetJournaled(id arche.ID) uint8 { return w.SetReplicated(id) }

// SetNextNetID sets the network id the next entity added with ID zero gets,
// for a host restoring a saved world: ids given before the save, including
// those of entities removed since, are never given again. It panics if id is
// zero or not above every id in use. A game built on package tandem does not call it: the engine does.
func (w *World) SetNextNetID(id NetID) {
	if id == 0 {
		panic("ecs: SetNextNetID(0); network ids start at 1")
	}
	if id < w.index.nextID {
		for i := range w.index.entries.n {
			if en := w.index.entries.at(i); en.id >= id {
				panic(fmt.Sprintf("ecs: SetNextNetID(%d), but network id %d is in use; the counter only moves past the ids given", id, en.id))
			}
		}
	}
	w.index.nextID, w.index.fresh = id, id
}

// FreshNetIDs returns the first network id this world's run gives: the
// entities with ids below it came from the save it was restored from
// (SetNextNetID), those at or past it were made since. It is the last run's
// Fresh in Lineage, which a host tells its clients (a host killed after its
// last save and restarted from it gives the ids the killed one gave after
// that save again). 1 for a world never restored.
func (w *World) FreshNetIDs() NetID { return w.index.fresh }
