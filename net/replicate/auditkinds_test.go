package replicate

import (
	"fmt"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// A host in play finds a system that forgets its reports within a few
// steps though its entities are few and far along the slots: the audit
// looks at each archetype in turn, beside its walk of the slots.
// Props made in shards (ecs.World.NewNetworked's, each its own archetype)
// count as one kind.
func TestTheAuditFindsAForgetfulKindSoon(t *testing.T) {
	for _, sharded := range []bool{false, true} {
		t.Run(fmt.Sprintf("sharded-%v", sharded), func(t *testing.T) { forgetfulKind(t, sharded) })
	}
}

func forgetfulKind(t *testing.T, sharded bool) {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	if sharded {
		b := w.NewNetworked(30000, w.IDs.Transform, w.IDs.NetworkIdentity)
		for b.Next() {
		}
	} else {
		props := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.Arche())
		for i := range 10000 {
			props.NewWith(&ecs.Transform{X: float64(i)}, &ecs.NetworkIdentity{})
		}
	}
	walkers := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	walking := generic.NewFilter3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity]()
	var found []UnreportedError
	h := NewHost(reg, HostConfig{OnUnreported: func(ue *UnreportedError) { found = append(found, *ue) }})
	sched := ecs.NewSchedule(w, nil, 0)
	walk := false
	sched.Add("walk", ecs.SystemFunc(func(w *ecs.World) {
		q := walking.Query(w.Arche())
		for q.Next() {
			t, _, _ := q.Get()
			t.X++ // no report: a bug
		}
	})).Add("spawn", ecs.SystemFunc(func(*ecs.World) {
		if walk {
			for range 5 {
				walkers.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
			}
			walk = false
		}
	})).AddTo(ecs.StageOutput, "replicate", h)
	sched.Step()
	walk = true
	steps := 0
	for ; len(found) == 0 && steps < 3000; steps++ {
		sched.Step()
	}
	if len(h.kinds) != 2 {
		t.Errorf("the audit keeps %d kinds, want 2 (the props, the walkers)", len(h.kinds))
	}
	if len(found) == 0 || found[0].Component != "Transform" || !found[0].Audit {
		t.Fatalf("after %d steps the audit found %+v, want the walkers' Transform", steps, found)
	}
	if steps > 2*kindEvery {
		t.Fatalf("the audit found the forgotten reports after %d steps, want %d at most (two kinds of entity)", steps, 2*kindEvery)
	}
}
