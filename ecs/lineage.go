package ecs

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
)

// A world's lineage: the runs its current one comes from, each restored
// from a save the one before it wrote. A host names it to its clients, so
// that a client that held the world of another run knows which network ids
// still name the entities it held.

// RunStart names one run of a world: from its start, or its restore from a
// save, to its end.
type RunStart struct {
	// Run is the run's name: a random number, never 0.
	Run uint64
	// Fresh is the first network id the run gave: the ids below it are the
	// save's it was restored from (1 for a world never restored).
	Fresh NetID
}

// MaxLineage is the most runs a lineage names: a world's own and those of
// the saves before it, the newest kept.
const MaxLineage = 8

// lineage is a world's: its own run's name, drawn when first asked for,
// and the runs before it, oldest first.
type lineage struct {
	run  uint64
	past []RunStart
}

// Lineage appends to dst the runs this world comes from, oldest first,
// and last its own (its name, and FreshNetIDs), at most MaxLineage in all,
// and returns the extended slice. The world's own run is named by a random
// number drawn at the first call and kept for the world's life; a world
// restored from a save has the save's runs before it (SetAncestors).
//
// A host tells its clients its world's lineage. A client that held the
// world of another run keeps what it held under the ids below the lower of
// the first fresh ids the two lineages give after the newest run both name
// (the ids of saves that run wrote), and drops the rest (KeptBelow): a host killed after its last save gave
// ids to entities the save lacks, and the run restored from that save gives
// them again.
func (w *World) Lineage(dst []RunStart) []RunStart {
	for w.lin.run == 0 {
		var b [8]byte
		rand.Read(b[:])
		w.lin.run = binary.LittleEndian.Uint64(b[:])
	}
	dst = append(dst, w.lin.past...)
	return append(dst, RunStart{Run: w.lin.run, Fresh: w.index.fresh})
}

// SetAncestors sets the runs before this world's own, oldest first (the
// lineage of the save it was restored from; the newest MaxLineage-1 are
// kept), and names the world's own run anew: a restored world is another
// run, whatever asked for its lineage before. A layer that restores a
// world calls it after SetNextNetID. It panics if a run is named 0 or its
// first fresh id is 0, if the fresh ids go down, or if the last is past
// the world's own first fresh id (FreshNetIDs).
func (w *World) SetAncestors(runs []RunStart) {
	runs = runs[max(0, len(runs)-(MaxLineage-1)):]
	for i, r := range runs {
		if r.Run == 0 || r.Fresh == 0 || i > 0 && r.Fresh < runs[i-1].Fresh || r.Fresh > w.index.fresh {
			panic(fmt.Sprintf("ecs: SetAncestors: run %d of %d is {%d, %d}: runs are named, their fresh ids start at 1, never go down and are not past the world's first fresh id %d (call SetNextNetID first)", i, len(runs), r.Run, r.Fresh, w.index.fresh))
		}
	}
	w.lin.past = append(w.lin.past[:0], runs...)
	w.lin.run = 0 // drawn anew by Lineage
}

// KeptBelow compares the lineage of a world a machine held (held) with that
// of the world it meets now (now), both oldest first as Lineage gives
// them: the ids below the id it returns name the same entities in both
// worlds; those at or past it may name others. 0: all are kept (the same
// run). 1: none (no run in common, or held is empty).
func KeptBelow(held, now []RunStart) NetID {
	for i := len(held) - 1; i >= 0; i-- {
		for j := len(now) - 1; j >= 0; j-- {
			if held[i].Run != now[j].Run {
				continue
			}
			// The newest run both name: the ids below the first fresh id
			// given after it, on either side, are of that run's saves.
			var cut NetID
			if i+1 < len(held) {
				cut = held[i+1].Fresh
			}
			if j+1 < len(now) && (cut == 0 || now[j+1].Fresh < cut) {
				cut = now[j+1].Fresh
			}
			return cut
		}
	}
	return 1
}
