package tandem

import (
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// unitsGame gives each player three units it owns, which the host alone
// moves: the host marks them ecs.HostMoved as it makes them, and nothing on
// a client marks anything.
func unitsGame() *Game[push] {
	g := testGame()
	g.Join = func(w *World, p Peer) error {
		m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.ECS.Arche())
		for i := range 3 {
			e := m.NewWith(&ecs.Transform{X: float64(100 * i)}, &ecs.NetworkIdentity{Owner: p.ID})
			w.ECS.Arche().Add(e, w.ECS.IDs.HostMoved)
		}
		return nil
	}
	g.Arrived = nil
	return g
}

// The host's HostMoved mark reaches the clients: a player's units marked
// on the host alone are HostMoved on its client from its join on; one the
// host unmarks loses it there; one the client unmarks itself, to predict
// it, stays unmarked.
func TestHostMovedMarkReachesTheClient(t *testing.T) {
	p := newPair(t, unitsGame(), condition.Config{Latency: 20 * time.Millisecond})
	p.run(time.Second / 2)
	peer := p.client.Peer()
	marks := func() map[ecs.NetID]bool {
		got := map[ecs.NetID]bool{}
		p.client.Do(func(w *World) {
			for _, e := range w.ECS.Owned(peer) {
				ni, _ := w.ECS.Identity(e)
				got[ni.ID] = w.ECS.Arche().Has(e, w.ECS.IDs.HostMoved)
			}
		})
		return got
	}
	got := marks()
	if len(got) != 3 {
		t.Fatalf("the client holds %d of its units, want 3", len(got))
	}
	for id, on := range got {
		if !on {
			t.Fatalf("unit %d, HostMoved on the host, is not on the client: %v", id, got)
		}
	}
	// The host takes the mark off its unit 0; the client takes it off
	// unit 1 itself.
	var unmarked, own ecs.NetID
	p.host.Do(func(w *World) {
		e := w.ECS.Owned(peer)[0]
		w.ECS.Arche().Remove(e, w.ECS.IDs.HostMoved)
		ni, _ := w.ECS.Identity(e)
		unmarked = ni.ID
	})
	p.client.Do(func(w *World) {
		for _, e := range w.ECS.Owned(peer) {
			if ni, _ := w.ECS.Identity(e); ni.ID != unmarked {
				w.ECS.Arche().Remove(e, w.ECS.IDs.HostMoved)
				own = ni.ID
				return
			}
		}
	})
	p.run(time.Second / 2)
	got = marks()
	for id, on := range got {
		if want := id != unmarked && id != own; on != want {
			t.Fatalf("unit %d HostMoved %v on the client, want %v (the host unmarked %d, the client %d): %v", id, on, want, unmarked, own, got)
		}
	}
}
