package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// inScopeOf reports whether entity e is in peer id's scope, by the host's
// grid.
func (r *rig) inScopeOf(id ecs.PeerID, e arche.Entity) bool {
	slot, _ := r.w.NetSlot(e)
	return r.h.grid.inScope(r.h.Peer(id), slot)
}

// A step that gives away an entity of a peer and takes in a spawn in a new
// cell inside that entity's square counts the new cell's cover from the
// squares the peer has as the step goes, the one it is about to lose too:
// the new entity is out of the peer's scope once the step is over (the
// cover was counted from the world's owners, without that square, then the
// square was taken away: it went below 0, and the entity stayed in scope for
// good).
func TestSpawnInNewCellAsOwnerGivesAway(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 100}})
	given := r.m.NewWith(&ecs.Transform{X: 50, Y: 50}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.m.NewWith(&ecs.Transform{X: 5050, Y: 50}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.settle()
	ecs.SetOwner(r.w, given, ecs.HostPeer)
	spawned := r.m.NewWith(&ecs.Transform{X: 150, Y: 50}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	slot, _ := r.w.NetSlot(spawned)
	if n := r.h.Peer(1).scope.cover[r.h.ents[slot].cell]; n != 0 {
		t.Errorf("the new cell, 49 cells from the peer's only entity, is covered %d times, want 0", n)
	}
	if _, held := r.cw.EntityOf(mustID(r.w, spawned)); held {
		t.Error("the client holds the new entity, 49 cells from the only one it owns")
	}
}

// A peer added again after one of the entities it owns is removed or given
// away, before the step takes that in, counts that entity's square until the
// step takes it away: its other entity's square stays, and follows it (the
// peer counted what the world said it owned, the step then took the gone
// one's square away too, and the peer had no square that moved).
func TestAddPeerAfterOwnedEntityGoesCountsItTillTheStep(t *testing.T) {
	for _, how := range []string{"removed", "given away"} {
		t.Run(how, func(t *testing.T) {
			r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 100}})
			body := r.m.NewWith(&ecs.Transform{X: 50, Y: 50}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
			ship := r.m.NewWith(&ecs.Transform{X: 5050, Y: 50}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
			far := r.m.NewWith(&ecs.Transform{X: 9050, Y: 50}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
			r.settle()
			r.h.ParkPeer(1)
			if how == "removed" {
				r.w.Arche().RemoveEntity(body)
			} else {
				ecs.SetOwner(r.w, body, ecs.HostPeer)
			}
			p := r.h.AddPeer(1, &capture{})
			if len(p.scope.own) != 2 {
				t.Fatalf("added again: %d squares, want 2 (the step has yet to take the %s entity in)", len(p.scope.own), how)
			}
			r.s.Step()
			if len(p.scope.own) != 1 {
				t.Fatalf("after the step: %d squares, want 1", len(p.scope.own))
			}
			r.tf.Get(ship).X = 9150
			ecs.MutateComponent(r.w, ship, r.w.IDs.Transform)
			r.s.Step()
			if !r.inScopeOf(1, far) {
				t.Error("the ship moved next to an entity: it is not in the peer's scope")
			}
		})
	}
}

// A cover that would go below 0 (a square taken away that was never given)
// stays 0, where it wrapped to 65535 and held the cell in the peer's scope
// for good; in the package's tests (strictGrid) it panics.
func TestCoverStaysAtZero(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 100}})
	r.m.NewWith(&ecs.Transform{X: 50, Y: 50}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	far := r.m.NewWith(&ecs.Transform{X: 5050, Y: 50}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	p, g := r.h.Peer(1), &r.h.grid
	slot, _ := r.w.NetSlot(far)
	ci := r.h.ents[slot].cell
	defer func(was bool) { strictGrid = was }(strictGrid)
	strictGrid = false
	g.shiftSquare(p, 50, 0, -1)
	if n := p.scope.cover[ci]; n != 0 || r.inScopeOf(1, far) {
		t.Errorf("a square never given taken away: cover %d, in scope %v; want 0, out", n, r.inScopeOf(1, far))
	}
	strictGrid = true
	defer func() {
		if recover() == nil {
			t.Error("strictGrid: a cover gone below 0 did not panic")
		}
	}()
	g.shiftSquare(p, 50, 0, -1)
}

// A peer whose last entity with a position goes while it is parked comes
// back holding that entity's square, as it would have had it been there
// (it came back seeing the whole world); one whose entities all go while it
// is away holds the square of the last to go.
func TestParkedPeerLosesItsLastEntity(t *testing.T) {
	for _, how := range []string{"removed", "given away", "one of two"} {
		t.Run(how, func(t *testing.T) {
			r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}})
			avatar := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
			near := r.m.NewWith(&ecs.Transform{X: 200}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
			far := r.m.NewWith(&ecs.Transform{X: 5000}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
			var ship arche.Entity
			if how == "one of two" {
				ship = r.m.NewWith(&ecs.Transform{X: 5000}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
			}
			r.settle()
			r.h.ParkPeer(1)
			if how == "given away" {
				ecs.SetOwner(r.w, avatar, ecs.HostPeer)
			} else {
				if how == "one of two" {
					r.w.Arche().RemoveEntity(ship) // the ship first, then the avatar
					r.s.Step()
				}
				r.w.Arche().RemoveEntity(avatar)
			}
			r.s.Step()
			p := r.h.AddPeer(1, &capture{})
			if !p.scope.held || p.scope.hx != 0 || !r.inScopeOf(1, near) || r.inScopeOf(1, far) {
				t.Errorf("back: held %v at (%d, %d), near in scope %v, far %v; want held at (0, 0), near only", p.scope.held, p.scope.hx, p.scope.hy, r.inScopeOf(1, near), r.inScopeOf(1, far))
			}
		})
	}
}

// A peer parked with the game's square standing in for the one it held
// between lives, whose square Unfocus takes away while it is away, comes
// back holding the square where its last entity was, as Unfocus does for a
// peer that is there (it came back seeing the whole world).
func TestUnfocusWhileParkedHoldsTheLastSquare(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}})
	avatar := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	near := r.m.NewWith(&ecs.Transform{X: 200}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	far := r.m.NewWith(&ecs.Transform{X: 5000}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	r.w.Arche().RemoveEntity(avatar)
	r.settle()
	r.h.Focus(1, 5000, 0)
	r.h.ParkPeer(1)
	r.h.Unfocus(1)
	p := r.h.AddPeer(1, &capture{})
	if !p.scope.held || p.scope.pinned || !r.inScopeOf(1, near) || r.inScopeOf(1, far) {
		t.Errorf("back: held %v, pinned %v, near in scope %v, far %v; want held, near only", p.scope.held, p.scope.pinned, r.inScopeOf(1, near), r.inScopeOf(1, far))
	}
}
