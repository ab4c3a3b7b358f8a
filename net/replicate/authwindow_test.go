package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// An idle army's units take turns, each at least once in OwnRefresh sends
// (HostConfig.OwnRefresh: "a client's misprediction of a unit the host
// holds still is corrected within that many sends"), however the owner's
// list changes. The window of turns walks the owner's list by position
// (ownRefresh.window), and the list is kept by swap-removal: a unit the
// army loses just behind the window puts the last unit, whose turn had not
// come yet this round, where the window has passed; the end of a round
// takes the units whose turn has not come for a round, so it does not wait
// for the window to come round again (up to twice OwnRefresh sends, with
// the budget ample). A unit given to another player leaves the list so too.
func TestAShrinkingArmyKeepsItsTurns(t *testing.T) {
	for _, given := range []bool{false, true} {
		t.Run(map[bool]string{false: "removed", true: "given away"}[given], func(t *testing.T) { shrinkingArmy(t, given) })
	}
}

func shrinkingArmy(t *testing.T, given bool) {
	const n = 200
	r := settledArmy(t, n)
	refresh := r.h.cfg.OwnRefresh
	ids := map[arche.Entity]arche.Entity{} // client's entity -> host's
	for _, e := range r.owned {
		ids[r.clientOf(e)] = e
	}
	last := map[arche.Entity]int{}
	for _, e := range r.owned {
		last[e] = 0
	}
	deferred := r.h.Peer(1).Stats().AuthDeferred
	worst, removed := 0, 0
	const sends = 64
	for i := 1; i <= sends; i++ {
		if w := r.h.Peer(1).own.window; i > refresh && w > len(r.w.Owned(1))/2 && removed < 8 {
			// The army loses the unit the last turn passed (just behind
			// the window): the last unit of the list, its turn not come
			// yet this round, takes its place.
			gone := r.w.Owned(1)[w-1]
			if given {
				ecs.SetOwner(r.w, gone, 2)
			} else {
				r.w.Arche().RemoveEntity(gone)
			}
			delete(last, gone)
			removed++
		}
		f := r.step(false)
		for _, ce := range r.seen[f] {
			e, ok := ids[ce]
			if !ok {
				continue
			}
			if l, live := last[e]; live {
				if i > refresh {
					worst = max(worst, i-l)
				}
				last[e] = i
			}
		}
	}
	if d := r.h.Peer(1).Stats().AuthDeferred - deferred; d != 0 {
		t.Fatalf("the share deferred %d units: the budget was not ample", d)
	}
	if worst > refresh {
		t.Fatalf("with %d units lost behind the window, a unit standing still went %d sends between two AuthStates that carried it, want at most %d (OwnRefresh)", removed, worst, refresh)
	}
}
