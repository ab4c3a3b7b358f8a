package tandem

import (
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// A component registered with a blend is drawn like the pose: for a remote
// entity, blended between received states at the render time, in the past,
// while the component itself holds the newest state received.
func TestBlendedComponentIsDrawnInThePast(t *testing.T) {
	g := testGame()
	blended := labelCodec
	blended.Blend = func(a, b *label, alpha float64) label {
		return label{N: a.N + int32(float64(b.N-a.N)*alpha)}
	}
	g.Components[2] = Replicate(blended, HostValue)
	var counter arche.Entity
	setup := g.Setup
	g.Setup = func(w *World) {
		setup(w)
		if w.Role == Joined {
			return
		}
		m := generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, label](w.ECS.Arche())
		counter = m.NewWith(&ecs.Transform{Y: 500}, &ecs.Velocity{}, &ecs.NetworkIdentity{}, &ecs.Interpolated{}, &label{})
		w.Schedule.Add("count", ecs.SystemFunc(func(ew *ecs.World) {
			l := (*label)(ew.Arche().Get(counter, arche.ComponentID[label](ew.Arche())))
			l.N += 10
			ecs.MutateComponent(ew, counter, arche.ComponentID[label](ew.Arche()))
		}))
	}
	p := newPair(t, g, condition.Config{Latency: 30 * time.Millisecond})
	p.run(2 * time.Second)
	var drawn, newest label
	var ok bool
	p.client.View(p.clk.Now(), func(v *View) {
		e, found := v.World.ECS.EntityOf(1)
		if !found {
			t.Fatal("the counter did not arrive")
		}
		drawn, ok = Blended[label](v, e)
		newest = *(*label)(v.World.ECS.Arche().Get(e, arche.ComponentID[label](v.World.ECS.Arche())))
	})
	t.Logf("drawn %d, newest received %d", drawn.N, newest.N)
	if !ok || drawn.N <= 0 || drawn.N >= newest.N {
		t.Fatalf("Blended gave %d (ok %t) with the newest state %d: want a value drawn in the past, below the newest", drawn.N, ok, newest.N)
	}
}
