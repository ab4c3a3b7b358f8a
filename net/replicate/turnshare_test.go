package replicate

import (
	"slices"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// A fresh turn goes first under a full budget, as a stop does: a client
// moves an entity on by the velocity it holds while the budget holds its
// states back (interp's HeldBack), and drew a marcher carried straight on
// past its corner for as long as its turn waited behind the backlog (44
// send ticks here).
func TestAFreshTurnGoesFirstUnderAFullBudget(t *testing.T) {
	r := newRig(t, HostConfig{BitsPerSecond: 24_000, SendEvery: 1})
	ents := r.marchers(300)
	turner := ents[len(ents)/2]
	turned := false
	step := func() {
		r.march(ents, func(e arche.Entity) bool { return e == turner && turned })
		if turned {
			r.tf.Get(turner).Y += 2
			ecs.MutateComponent(r.w, turner, r.w.IDs.Transform)
		}
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
	}
	for range 120 {
		step()
	}
	_, v, _ := r.m.Get(turner)
	*v = ecs.Velocity{Y: 120}
	ecs.MutateComponent(r.w, turner, r.w.IDs.Velocity)
	turned = true
	ticks := 0
	for ; ticks < 60 && r.clientVelocity(turner).Y != 120; ticks++ {
		step()
	}
	// At the next send tick with the budget for a message (50 bytes a
	// tick, overdrawn by the backlog): three at most.
	if ticks > 3 {
		t.Fatalf("the turn reached the client %d send ticks after it; want within 3", ticks)
	}
}

// When more entities turn in a send tick than a peer's turnShare holds,
// they take the top in turns by id, from after the last one taken: each
// turn gets it once before any gets it twice, whichever turn first.
func TestTurnsTakeTheTopInTurns(t *testing.T) {
	r := newRig(t, HostConfig{BitsPerSecond: 24_000, SendEvery: 1})
	ents := r.spread(10, 30)
	p := r.h.Peer(1)
	changes := make([]change, len(ents))
	for i, e := range ents {
		changes[i] = change{slot: r.slotOfEntity(e), id: mustID(r.w, e), urg: urgTurn}
	}
	slices.SortFunc(changes, func(a, b change) int { return int(a.id) - int(b.id) })
	p.pk.avgBits = 40
	budget := turnShare * 3 * (40 + gapBound) // room for three at the top
	r.h.turning = len(changes)
	var got [][]int
	for range 4 {
		p.grantTurns(changes, budget, false)
		var top []int
		for i := range changes {
			if p.granted(i) {
				top = append(top, i)
			}
		}
		got = append(got, top)
	}
	want := [][]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 1, 9}}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("send ticks' turns at the top %v; want %v", got, want)
		}
	}
	// Only the turns of this tick, and the peer's own entities left out.
	changes[4].urg = urgent
	r.h.turning = len(changes) - 1
	p.turnFrom = 0
	p.grantTurns(changes, budget, false)
	var top []int
	for i := range changes {
		if changes[i].urg == urgTurn && p.granted(i) {
			top = append(top, i)
		}
	}
	if !slices.Equal(top, []int{0, 1, 2}) {
		t.Fatalf("turns at the top %v; want [0 1 2]", top)
	}
}
