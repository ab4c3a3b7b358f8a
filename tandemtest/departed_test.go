package tandemtest_test

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/tandemtest"
)

// A game's Departed hook runs on a client for every entity it removes, just
// before, the entity still whole: one that left the player's interest (and
// Arrived again when it came back) and one the host removed, once drawn to
// its removal; as many times as the client counts removals, and never for
// an entity that stays.
func TestDepartedRunsForEveryEntityTheClientRemoves(t *testing.T) {
	const far = 20000.0 // past the interest's default radius (4,096 units)
	var crate arche.Entity
	moves := map[ecs.Frame]float64{} // host frame → the crate's new x
	var removeAt ecs.Frame
	g := movingWalkers(func(w *tandem.World) {
		m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.ECS.Arche())
		crate = m.NewWith(&ecs.Transform{X: 300}, &ecs.NetworkIdentity{})
		w.Schedule.Add("move", ecs.SystemFunc(func(ew *ecs.World) {
			if ew.Frame() == removeAt {
				ew.Arche().RemoveEntity(crate)
			}
			if x, ok := moves[ew.Frame()]; ok {
				ecs.Mutate[ecs.Transform](ew, crate).X = x
				ecs.ReportTeleport(ew, crate)
			}
		}))
	})
	var arrived, departed []ecs.NetID
	g.Arrived = func(w *tandem.World, e arche.Entity) {
		if id, _ := w.ECS.Identity(e); id.Owner == ecs.HostPeer {
			arrived = append(arrived, id.ID)
		}
	}
	g.Departed = func(w *tandem.World, e arche.Entity) {
		id, ok := w.ECS.Identity(e)
		if !ok || !w.ECS.Arche().Has(e, w.ECS.IDs.Transform) {
			t.Errorf("Departed was given entity %v without its components", e)
		}
		departed = append(departed, id.ID)
	}
	r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	var f ecs.Frame
	r.Host.Do(func(w *tandem.World) { f = w.ECS.Frame() })
	moves[f+10] = far // out of her interest
	moves[f+70] = 400 // back in
	removeAt = f + 130
	r.Step(200)
	held := 0
	ann.Do(func(w *tandem.World) {
		q := generic.NewFilter1[ecs.NetworkIdentity]().Query(w.ECS.Arche())
		for q.Next() {
			if q.Get().Owner == ecs.HostPeer {
				held++
			}
		}
	})
	st := ann.NetStats().Replication
	t.Logf("arrived %v, departed %v; the client counts %d removals, holds %d of the host's", arrived, departed, st.Despawns, held)
	if len(arrived) != 2 || len(departed) != 2 || arrived[0] != departed[0] || arrived[1] != departed[1] {
		t.Fatalf("the crate arrived %v and departed %v, want it to arrive, leave her interest, come back and be removed", arrived, departed)
	}
	if uint64(len(departed)) != st.Despawns || held != 0 {
		t.Fatalf("Departed ran %d times, the client counts %d removals and holds %d of the host's entities", len(departed), st.Despawns, held)
	}
}
