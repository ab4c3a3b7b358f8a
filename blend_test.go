package tandem

import (
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// A component registered with a blend is drawn like the pose: for a remote
// entity, blended between received states at the render time, in the past,
// while the component itself holds the newest state received.
func TestBlendedComponentIsDrawnInThePast(t *testing.T) {
	g := counterGame(func(w *World) arche.Entity {
		m := generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, label](w.ECS.Arche())
		return m.NewWith(&ecs.Transform{Y: 500}, &ecs.Velocity{}, &ecs.NetworkIdentity{}, &ecs.Interpolated{}, &label{})
	})
	drawn, newest, ok, _ := drawnCounter(t, g)
	if !ok || drawn.N <= 0 || drawn.N >= newest.N {
		t.Fatalf("Blended gave %d (ok %t) with the newest state %d: want a value drawn in the past, below the newest", drawn.N, ok, newest.N)
	}
}

// An entity of the game's own components alone, with no ecs.Transform, has
// its blended components drawn in the past too; it has no pose to draw.
func TestBlendedComponentWithoutAPose(t *testing.T) {
	g := counterGame(func(w *World) arche.Entity {
		m := generic.NewMap2[ecs.NetworkIdentity, label](w.ECS.Arche())
		return m.NewWith(&ecs.NetworkIdentity{}, &label{})
	})
	arrived := g.Arrived
	g.Arrived = func(w *World, e arche.Entity) {
		if w.ECS.Arche().Has(e, w.ECS.IDs.Transform) {
			arrived(w, e) // a body for what has a pose
		}
	}
	drawn, newest, ok, posed := drawnCounter(t, g)
	if !ok || drawn.N <= 0 || drawn.N >= newest.N {
		t.Fatalf("Blended gave %d (ok %t) with the newest state %d: want a value drawn in the past, below the newest", drawn.N, ok, newest.N)
	}
	if posed {
		t.Fatal("View.Pose drew an entity without a Transform")
	}
}

// A component whose values do not blend (replicate.Discrete) is drawn at
// the drawn time too: one of the values received, older than the newest,
// never a value between two.
func TestDiscreteComponentIsDrawnWithThePose(t *testing.T) {
	g := counterGameBlended(func(w *World) arche.Entity {
		m := generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, label](w.ECS.Arche())
		return m.NewWith(&ecs.Transform{Y: 500}, &ecs.Velocity{}, &ecs.NetworkIdentity{}, &ecs.Interpolated{}, &label{})
	}, replicate.Discrete[label])
	drawn, newest, ok, _ := drawnCounter(t, g)
	if !ok || drawn.N <= 0 || drawn.N >= newest.N {
		t.Fatalf("Blended gave %d (ok %t) with the newest state %d: want a value drawn in the past, below the newest", drawn.N, ok, newest.N)
	}
	if drawn.N%10 != 0 {
		t.Fatalf("Blended gave %d: want one of the values the host had (multiples of 10), not a blend of two", drawn.N)
	}
}

// counterGame is the test game with label blended, whose host spawns one
// more entity (spawn) and counts up in its label, 10 a step.
func counterGame(spawn func(w *World) arche.Entity) *Game[push] {
	return counterGameBlended(spawn, func(a, b *label, alpha float64) label {
		return label{N: a.N + int32(float64(b.N-a.N)*alpha)}
	})
}

// counterGameBlended is counterGame with label blended by blend.
func counterGameBlended(spawn func(w *World) arche.Entity, blend func(a, b *label, alpha float64) label) *Game[push] {
	g := testGame()
	blended := labelCodec
	blended.Blend = blend
	g.Components[2] = Replicate(blended, HostValue)
	setup := g.Setup
	g.Setup = func(w *World) {
		setup(w)
		if w.Role == Joined {
			return
		}
		counter := spawn(w)
		id := arche.ComponentID[label](w.ECS.Arche())
		w.Schedule.Add("count", ecs.SystemFunc(func(ew *ecs.World) {
			(*label)(ew.Arche().Get(counter, id)).N += 10
			ecs.MutateComponent(ew, counter, id)
		}))
	}
	return g
}

// drawnCounter runs host and client of g (its first networked entity
// counting up in its label) for two seconds and returns the label the
// client draws it with, the newest it received, and whether View.Pose
// drew it.
func drawnCounter(t *testing.T, g *Game[push]) (drawn, newest label, ok, posed bool) {
	t.Helper()
	p := newPair(t, g, condition.Config{Latency: 30 * time.Millisecond})
	p.run(2 * time.Second)
	p.client.View(p.clk.Now(), func(v *View) {
		e, found := v.World.ECS.EntityOf(1)
		if !found {
			t.Fatal("the counter did not arrive")
		}
		drawn, ok = Blended[label](v, e)
		newest = *(*label)(v.World.ECS.Arche().Get(e, arche.ComponentID[label](v.World.ECS.Arche())))
		_, posed = v.Pose(e)
	})
	t.Logf("drawn %d, newest received %d", drawn.N, newest.N)
	return drawn, newest, ok, posed
}
