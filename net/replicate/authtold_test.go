package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// unitOrder is an order given to a unit, a component of the game's.
type unitOrder struct{ Target int32 }

// A unit of a walking army of 200 that is given an order (a change of a
// component of the game's, not of its motion) goes in its owner's next
// AuthState, where the share of the budget sends the army longest unsent
// first and the ordered unit waited its turn among the walkers (8 steps on
// average, 12 at worst, in a strategy trial; a watcher saw the order in 4).
func TestAnOrderedUnitGoesFirstInItsOwnersAuthState(t *testing.T) {
	const n = 200
	r, order, walk := orderedArmy(t, n)
	for range 30 {
		walk()
		r.step(false)
	}
	deferred := r.h.Peer(1).Stats().AuthDeferred
	for k := range 10 {
		u := r.owned[(37*k+11)%n]
		(*unitOrder)(r.w.Arche().Get(u, order)).Target = int32(k + 1)
		ecs.MutateComponent(r.w, u, order)
		walk()
		f := r.step(false)
		ni, _ := r.w.Identity(u)
		carried := false
		for _, e := range r.seen[f] {
			got, _ := r.c.w.Identity(e)
			carried = carried || got.ID == ni.ID
		}
		if !carried {
			t.Fatalf("order %d: the unit given it was not in its owner's next AuthState (%d of the %d walking were)", k, len(r.seen[f]), n)
		}
	}
	if r.h.Peer(1).Stats().AuthDeferred == deferred {
		t.Fatal("the share of the budget deferred none of the walking army: the test tests nothing")
	}
}

// orderedArmy is an ownRig whose peer 1 owns n units walking at 60 units a
// second, each with a unitOrder (the ID returned), settled; walk moves
// each a unit, as a step of their walk.
func orderedArmy(t *testing.T, n int) (r *ownRig, order arche.ID, walk func()) {
	r = &ownRig{rig: newRigWith(t, HostConfig{}, func(reg *Registry) { Register(reg, IntegerCodec[unitOrder]("order")) }), seen: authFrames{}}
	r.c.cfg.Auth = r.seen
	order = arche.ComponentID[unitOrder](r.w.Arche())
	for range n {
		e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{X: 60}, &ecs.NetworkIdentity{Owner: 1})
		r.w.Arche().Add(e, order)
		r.owned = append(r.owned, e)
	}
	r.settle()
	walk = func() {
		for _, e := range r.owned {
			r.move(e, 1)
		}
	}
	return r, order, walk
}
