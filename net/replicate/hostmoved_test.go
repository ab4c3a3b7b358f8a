package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// appliedRecorder is an Observer that counts the states it was told of, by
// entity.
type appliedRecorder struct{ applied map[arche.Entity]int }

func (o *appliedRecorder) Applied(e arche.Entity, _ ecs.Frame) { o.applied[e]++ }
func (o *appliedRecorder) Removed(arche.Entity)                {}

// hostMovedUnit is a rig whose client (peer 1) records the AuthStates its
// prediction gets and the states its Observer is told of, with a unit the
// client owns, marked ecs.HostMoved on the client (ce).
func hostMovedUnit(t *testing.T) (r *rig, rec *authRecorder, obs *appliedRecorder, unit, ce arche.Entity) {
	t.Helper()
	r = newRig(t, HostConfig{})
	rec = &authRecorder{}
	obs = &appliedRecorder{applied: map[arche.Entity]int{}}
	r.c.cfg.Auth, r.c.cfg.Observer = rec, obs
	unit = r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.settle()
	ce, ok := r.cw.EntityOf(mustID(r.w, unit))
	if !ok {
		t.Fatal("the unit never reached its owner")
	}
	r.cw.Arche().Add(ce, r.cw.IDs.HostMoved)
	return r, rec, obs, unit, ce
}

// An AuthState of an entity its owner's client marked ecs.HostMoved goes to
// the entity and the Observer, as another's state does, not to the Auth
// handler: the client does not predict it.
func TestAHostMovedEntitysStatesAreApplied(t *testing.T) {
	r, rec, obs, unit, ce := hostMovedUnit(t)
	rec.seen, obs.applied[ce] = nil, 0
	r.move(unit, 300)
	r.settle()
	if len(rec.seen) != 0 || obs.applied[ce] == 0 {
		t.Fatalf("the unit's states: %d to the Auth handler (want 0), %d to the Observer (want some)", len(rec.seen), obs.applied[ce])
	}
	if x := (*ecs.Transform)(r.cw.Arche().Get(ce, r.cw.IDs.Transform)).X; x != 300 {
		t.Fatalf("the owner's unit is at x = %v, the host's at 300", x)
	}
}

// A teleport of a unit its owner's client marked ecs.HostMoved is marked a
// jump (Interpolated.Snap) on the owner's client, from its AuthState, as
// the same teleport of another player's entity is from its state. (It was
// blended across the map on the owner's screen.)
func TestAHostMovedTeleportIsAJump(t *testing.T) {
	for _, owner := range []ecs.PeerID{2, 1} {
		r := newRig(t, HostConfig{})
		r.c.cfg.Auth = &authRecorder{}
		r.c.cfg.Observer = &appliedRecorder{applied: map[arche.Entity]int{}}
		unit := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: owner})
		r.settle()
		ce, ok := r.cw.EntityOf(mustID(r.w, unit))
		if !ok {
			t.Fatal("the unit never reached the client")
		}
		a := r.cw.Arche()
		if owner == 1 {
			// What Client.arrived and the game's Arrived give it.
			a.Add(ce, r.cw.IDs.Interpolated, r.cw.IDs.HostMoved)
		}
		r.drawn(unit).Snap = false // drawn since (the interpolator clears it)
		r.teleport(unit, 5000)
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
		if r.clientX(unit) != 5000 {
			t.Fatalf("owner %d: the client holds x = %v, want 5000", owner, r.clientX(unit))
		}
		if !r.drawn(unit).Snap {
			t.Errorf("owner %d (client is peer 1; HostMoved when its own): the teleport to x = 5000 is not marked a jump: drawn sliding across", owner)
		}
	}
}

// A unit the client owns and marked ecs.HostMoved, kept while drawn to its
// removal from the client's scope (given to another player, far away), then
// given back, stays: its spawn is taken as another's entity's is, which
// ends its leaving. (Taken as a repeated spawn of a predicted entity, it
// left the mark and the leaving record, and the next Depart removed a unit
// the host has in the client's scope.)
func TestAHostMovedUnitComingBackStays(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}})
	d := &drawer{removed: map[arche.Entity]int{}}
	r.c.cfg.Observer = d
	r.c.cfg.Auth = &authRecorder{}
	r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	unit := r.m.NewWith(&ecs.Transform{X: 10000}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.settle()
	id := mustID(r.w, unit)
	ce, ok := r.cw.EntityOf(id)
	if !ok {
		t.Fatal("the unit never reached its owner")
	}
	r.cw.Arche().Add(ce, r.cw.IDs.Interpolated, r.cw.IDs.HostMoved)
	ecs.SetOwner(r.w, unit, 2) // given away, far from the client's square: leaves its scope
	for range 10 {
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
		r.c.Depart()
	}
	dep := generic.NewMap[ecs.Departing](r.cw.Arche())
	if !r.cw.Arche().Alive(ce) || !dep.Has(ce) {
		t.Fatalf("setup: the unit should be kept while drawn, marked Departing (alive %v)", r.cw.Arche().Alive(ce))
	}
	ecs.SetOwner(r.w, unit, 1) // given back: in scope again
	for range 10 {
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
	}
	if dep.Has(ce) {
		t.Errorf("the unit, back in the client's scope and its own, is still marked Departing")
	}
	d.drawnTo = r.w.Frame() + 100
	r.c.Depart()
	if _, ok := r.cw.EntityOf(id); !ok {
		t.Fatalf("the client removed its own unit, which the host has in its scope (host %d entities, client %d)", r.w.Networked(), r.cw.Networked())
	}
}

// A unit whose ecs.HostMoved mark the client takes away (its player takes
// it over) is predicted again: its next AuthState goes to prediction and
// tells the Observer, which then draws it as a simulated entity.
func TestAUnitUnmarkedIsPredictedAgain(t *testing.T) {
	r, rec, obs, unit, ce := hostMovedUnit(t)
	r.move(unit, 100)
	r.settle()
	r.cw.Arche().Remove(ce, r.cw.IDs.HostMoved)
	rec.seen, obs.applied[ce] = nil, 0
	r.move(unit, 100)
	r.settle()
	r.move(unit, 100)
	r.settle()
	if len(rec.seen) == 0 || obs.applied[ce] != 1 {
		t.Fatalf("unmarked: %d states to prediction (want some), %d to the Observer (want 1, to stop drawing it from states)", len(rec.seen), obs.applied[ce])
	}
}

// Rejoin forgets the frames of the host the client held its world from,
// HostMovedFrame as Frame: the host rejoined (one restored from a save)
// may number its frames otherwise.
func TestRejoinForgetsHostMovedFrame(t *testing.T) {
	r, _, _, unit, _ := hostMovedUnit(t)
	r.h.Peer(1).SetInputFrame(5000)
	r.move(unit, 10)
	r.settle()
	if r.c.HostMovedFrame() != 5000 {
		t.Fatalf("HostMovedFrame %d after a state of frame 5000", r.c.HostMovedFrame())
	}
	r.c.Rejoin(1, 60, 0)
	if f, m := r.c.Frame(), r.c.HostMovedFrame(); f != 0 || m != 0 {
		t.Fatalf("after Rejoin: Frame %d, HostMovedFrame %d; want both 0", f, m)
	}
}
