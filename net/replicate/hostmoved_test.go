package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// appliedRecorder is an Observer that counts the states it was told of, by
// entity.
type appliedRecorder struct{ applied map[arche.Entity]int }

func (o *appliedRecorder) Applied(e arche.Entity, _ ecs.Frame) { o.applied[e]++ }
func (o *appliedRecorder) Removed(arche.Entity)                {}

// An AUTH_STATE of an entity its owner's client marked ecs.HostMoved goes to
// the entity and the Observer, as another's state does, not to the Auth
// handler: the client does not predict it.
func TestAHostMovedEntitysStatesAreApplied(t *testing.T) {
	r := newRig(t, HostConfig{})
	rec := &authRecorder{}
	obs := &appliedRecorder{applied: map[arche.Entity]int{}}
	r.c.cfg.Auth, r.c.cfg.Observer = rec, obs
	unit := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.settle()
	ce, ok := r.cw.EntityOf(mustID(r.w, unit))
	if !ok {
		t.Fatal("the unit never reached its owner")
	}
	r.cw.Arche().Add(ce, r.cw.IDs.HostMoved)
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
