package replicate

import (
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// An order whose AuthState is lost goes first in the whole AuthState that
// follows the loss, not last of the walking army in its catch-up: a unit
// told something is told again until an AuthState that carried it is
// acknowledged.
func TestAnOrderWhoseAuthStateIsLostGoesFirstInTheNext(t *testing.T) {
	const n = 200
	r, order, walk := orderedArmy(t, n)
	for range 30 {
		walk()
		r.step(false)
	}
	u := r.owned[123]
	cu := r.clientOf(u)
	(*unitOrder)(r.w.Arche().Get(u, order)).Target = 7
	ecs.MutateComponent(r.w, u, order)
	walk()
	r.step(true) // the AuthState with the order is lost
	walk()
	f := r.step(false)
	for _, e := range r.seen[f] {
		if e == cu {
			return
		}
	}
	later := 0
	for k := 1; k <= 10; k++ {
		walk()
		f := r.step(false)
		for _, e := range r.seen[f] {
			if e == cu && later == 0 {
				later = k
			}
		}
	}
	t.Fatalf("the ordered unit, its AuthState lost, was not in the next one (%d of %d were); it came %d AuthStates later", len(r.seen[f]), n, later)
}
