package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// A new owner (or a lost component) goes to every peer as a spawn of an
// entity it holds, which gains as a change does, not as still decor
// entering a scope: two entities the client holds are given to peer 7 at
// once while movers fill the budget, one moving, one that has stood still
// (a parked car a player takes), and one still given to the client
// itself: the new owner reaches the client as soon for each.
func TestReownOfStillEntityGainsAsAChange(t *testing.T) {
	r := newRig(t, HostConfig{BitsPerSecond: 48_000})
	var movers []arche.Entity
	for i := range 200 {
		movers = append(movers, r.m.NewWith(&ecs.Transform{X: float64(i)}, &ecs.Velocity{}, &ecs.NetworkIdentity{}))
	}
	still := r.m.NewWith(&ecs.Transform{X: -5}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	moving := r.m.NewWith(&ecs.Transform{X: -7}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	mine := r.m.NewWith(&ecs.Transform{X: -9}, &ecs.Velocity{}, &ecs.NetworkIdentity{}) // still, given to the client itself
	step := 0
	shift := func() float64 { // +50 a step, back by 4,800 every 97: they stay about where they are, never where they were
		step++
		if step%97 == 0 {
			return -96 * 50
		}
		return 50
	}
	var dx float64
	for range 1200 { // all in, then the movers saturate the budget
		dx = shift()
		for _, e := range movers {
			r.move(e, dx)
		}
		r.move(moving, dx)
		r.stepDeliver()
	}
	for _, e := range []arche.Entity{still, moving} {
		if _, ok := r.cw.EntityOf(mustID(r.w, e)); !ok {
			t.Fatal("the client does not hold the entity yet")
		}
	}
	ecs.SetOwner(r.w, still, 7)
	ecs.SetOwner(r.w, moving, 7)
	ecs.SetOwner(r.w, mine, 1)
	ownedBy := func(e arche.Entity, o ecs.PeerID) bool {
		ce, _ := r.cw.EntityOf(mustID(r.w, e))
		ni, _ := r.cw.Identity(ce)
		return ni.Owner == o
	}
	owned := func(e arche.Entity) bool { return ownedBy(e, 7) }
	tStill, tMoving, tMine := -1, -1, -1
	for tick := 1; tick <= 300 && (tStill < 0 || tMoving < 0 || tMine < 0); tick++ {
		dx = shift()
		for _, e := range movers {
			r.move(e, dx)
		}
		r.move(moving, dx)
		r.stepDeliver()
		if tStill < 0 && owned(still) {
			tStill = tick
		}
		if tMoving < 0 && owned(moving) {
			tMoving = tick
		}
		if tMine < 0 && ownedBy(mine, 1) {
			tMine = tick
		}
	}
	t.Logf("deferred so far %d; the new owner reached the client after %d send ticks for the moving entity, %d for the still one, %d for the still one given to the client itself", r.h.Peer(1).Stats().Deferred, tMoving, tStill, tMine)
	if tMoving < 0 || tStill < 0 || tMine < 0 || tStill > 2*tMoving || tMine > 2*tMoving {
		t.Fatalf("the reown spawn of a still entity took %d send ticks (%d given to the client itself), that of a moving one %d: it aged as still decor entering", tStill, tMine, tMoving)
	}
}
