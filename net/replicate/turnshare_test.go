package replicate

import (
	"slices"
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// A fresh turn goes first under a full budget, as a stop does: a client
// moves an entity on by the velocity it holds while the budget holds its
// states back (interp's HeldBack), and drew a marcher carried straight on
// past its corner for as long as its turn waited behind the backlog (45
// send ticks here).
func TestAFreshTurnGoesFirstUnderAFullBudget(t *testing.T) {
	m := newTurnMarch(t)
	m.turn()
	// At the next send tick with the budget for a message (50 bytes a
	// tick, overdrawn by the backlog): three at most.
	if ticks := m.ticksToTurn(); ticks > 3 {
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
	// Only the turns of this tick, and not the peer's own entities (its
	// AuthState carries them).
	changes[1].urg = urgent
	changes[2].owner = p.id
	r.h.turning = len(changes) - 2
	p.turnFrom = 0
	p.grantTurns(changes, budget, false)
	var top []int
	for i := range changes {
		if changes[i].urg == urgTurn && !p.leavesOut(&changes[i]) && p.granted(i) {
			top = append(top, i)
		}
	}
	if !slices.Equal(top, []int{0, 3, 4}) {
		t.Fatalf("turns at the top %v; want [0 3 4]", top)
	}
}

// A young entity's turn is young (urgYoung: at the top for every peer, near
// or far); an older one's is a turn (urgTurn: within each peer's share).
func TestAYoungEntitysTurnIsYoung(t *testing.T) {
	for _, tc := range []struct {
		age  int // send ticks before its turn
		want uint8
	}{{1, urgYoung}, {10, urgTurn}} {
		r := newRig(t, HostConfig{SendEvery: 1})
		e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{X: 120}, &ecs.NetworkIdentity{})
		for range tc.age {
			r.tf.Get(e).X += 2
			ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
			r.s.Step()
		}
		_, v, _ := r.m.Get(e)
		*v = ecs.Velocity{Y: 120}
		ecs.MutateComponent(r.w, e, r.w.IDs.Velocity)
		r.s.Step()
		slot := r.slotOfEntity(e)
		var got *change
		for i := range r.h.changes {
			if r.h.changes[i].slot == slot {
				got = &r.h.changes[i]
			}
		}
		if got == nil || got.urg != tc.want {
			t.Fatalf("turned %d send ticks after its spawn: change %+v, want urgency %d", tc.age, got, tc.want)
		}
	}
}
