package replicate

import (
	"math/rand/v2"
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// The index answers as a map of the same entries does, through random
// insertions, updates and deletions of clustered and scattered ids (id 0
// among them), and keeps at least twice as much room as entries.
func TestIDIndexIsAMap(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		var x idIndex
		want := map[ecs.NetID]int32{}
		spread := uint32(1) << (4 + rng.IntN(24))
		for op := range 20_000 {
			id := ecs.NetID(rng.Uint32N(spread))
			switch rng.IntN(3) {
			case 0, 1:
				v := int32(op)
				x.put(id, v)
				want[id] = v
			case 2:
				x.del(id)
				delete(want, id)
			}
			if op%97 == 0 {
				if x.len() != len(want) || 2*x.len() > len(x.keys) && len(x.keys) > 0 {
					t.Fatalf("seed %d op %d: %d entries in %d slots, the map %d", seed, op, x.len(), len(x.keys), len(want))
				}
				for k, v := range want {
					if got, ok := x.get(k); !ok || got != v {
						t.Fatalf("seed %d op %d: id %d at %d (%v), want %d", seed, op, k, got, ok, v)
					}
				}
				probe := ecs.NetID(rng.Uint32N(spread))
				if _, ok := x.get(probe); ok != (func() bool { _, in := want[probe]; return in }()) {
					t.Fatalf("seed %d op %d: id %d found %v", seed, op, probe, ok)
				}
			}
		}
		x.clear()
		if x.len() != 0 {
			t.Fatalf("seed %d: %d entries after clear", seed, x.len())
		}
		for k := range want {
			if _, ok := x.get(k); ok {
				t.Fatalf("seed %d: id %d found after clear", seed, k)
			}
		}
	}
}
