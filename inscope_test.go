package tandem

import (
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// A peer's scope is drawn at the first step after its admission: in its
// PeerJoined observer InScope says no entity is in it (before, every
// entity far or near was, and none of those its Join hook made); from the
// next step its own disc is, and a prop far beyond the interest radius is
// not.
func TestInScopeIsDrawnAtTheStepAfterTheJoin(t *testing.T) {
	g := testGame()
	var far arche.Entity
	setup := g.Setup
	g.Setup = func(w *World) {
		setup(w)
		if w.Role == Joined {
			return
		}
		m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.ECS.Arche())
		far = m.NewWith(&ecs.Transform{X: 20_000}, &ecs.NetworkIdentity{})
	}
	p := newPair(t, g, condition.Config{Latency: 20 * time.Millisecond})
	h := p.host
	type seen struct{ own, far, ok bool }
	var atJoin seen
	h.OnEvent(func(e Event) {
		if e.Kind != PeerJoined {
			return
		}
		owned := h.World().ECS.Owned(e.Peer)
		atJoin = seen{own: len(owned) == 1 && h.InScope(e.Peer, owned[0]), far: h.InScope(e.Peer, far), ok: true}
	})
	p.run(time.Second)
	if !atJoin.ok || atJoin.own || atJoin.far {
		t.Fatalf("in the PeerJoined observer: %+v; want neither its disc nor the far prop in scope, its scope not drawn yet", atJoin)
	}
	peer := p.client.Peer()
	var own, farIn bool
	h.Do(func(w *World) {
		owned := w.ECS.Owned(peer)
		own = len(owned) == 1 && h.InScope(peer, owned[0])
		farIn = h.InScope(peer, far)
	})
	if !own || farIn {
		t.Fatalf("a second after the join: its disc in scope %v, the far prop %v; want true, false", own, farIn)
	}
}
