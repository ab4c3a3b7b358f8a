package replicate

import (
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// A unit the game marks HostMoved on both sides mid-game, while its
// owner's last AuthState of it was lost, reaches its owner in its States:
// what may have gone in an AuthState alone goes there (movedState). (It
// went in neither stream again: AuthStates skip such a unit, and the
// owner's States took only changes made after the mark; standing still,
// its owner held a value the host never had.)
func TestAUnitMarkedAfterALostAuthStateReachesItsOwner(t *testing.T) {
	r := newOwnRig(t, 2, HostConfig{}) // a unit and an avatar the owner predicts
	unit := r.owned[0]
	ce, ok := r.cw.EntityOf(mustID(r.w, unit))
	if !ok {
		t.Fatal("setup: the owner does not hold its unit")
	}
	r.frame = r.w.Frame()
	r.move(unit, 5)
	r.step(true) // the AuthState that carried the move is lost
	// The game hands the unit to the host to walk: marked on both sides.
	r.w.Arche().Add(unit, r.w.IDs.HostMoved)
	r.cw.Arche().Add(ce, r.cw.IDs.HostMoved)
	for range 60 {
		r.step(false)
	}
	if got, want := ecs.Get[ecs.Transform](r.cw, ce).X, r.tf.Get(unit).X; got != want {
		t.Fatalf("60 sends after the unit was marked, its owner holds it at x = %v, the host at %v", got, want)
	}
}

// A unit the host marks and its owner's client predicts (a game that marks
// it on one side) loses and gains components on the client as on the
// host: one it lost goes in its owner's AuthStates until acknowledged
// (forced), as before the mark, and one it gained rides a State, which
// marks it on the client. (The lost one's spawn, to a client predicting
// the unit, only kept its image: the component stayed.)
func TestAUnitOnlyTheHostMarksLosesAndGainsComponents(t *testing.T) {
	t.Run("loses", func(t *testing.T) {
		r := newRig(t, HostConfig{})
		r.c.cfg.Auth = &authRecorder{}
		r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1}) // its avatar, predicted
		unit := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{X: 1}, &ecs.NetworkIdentity{Owner: 1})
		r.w.Arche().Add(unit, r.w.IDs.HostMoved)
		r.settle()
		ce, ok := r.cw.EntityOf(mustID(r.w, unit))
		if !ok || !r.cw.Arche().Has(ce, r.cw.IDs.Velocity) {
			t.Fatal("setup: the owner should hold its unit with a Velocity")
		}
		toggle(r.w, unit, r.w.IDs.Velocity, func() {}) // removed on the host
		r.settle()
		if r.cw.Arche().Has(ce, r.cw.IDs.Velocity) {
			t.Fatalf("the host's unit lost its Velocity; its owner's still has one (MarkedByHost %d)", r.c.Stats().MarkedByHost)
		}
	})
	t.Run("gains", func(t *testing.T) {
		r := newRig(t, HostConfig{})
		r.c.cfg.Auth = &authRecorder{}
		m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](r.w.Arche())
		r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1}) // its avatar, predicted
		unit := m.NewWith(&ecs.Transform{}, &ecs.NetworkIdentity{Owner: 1})
		r.w.Arche().Add(unit, r.w.IDs.HostMoved)
		r.settle()
		ce, ok := r.cw.EntityOf(mustID(r.w, unit))
		if !ok || r.cw.Arche().Has(ce, r.cw.IDs.Velocity) {
			t.Fatal("setup: the owner should hold its unit without a Velocity")
		}
		toggle(r.w, unit, r.w.IDs.Velocity, func() { (*ecs.Velocity)(r.w.Arche().Get(unit, r.w.IDs.Velocity)).X = 3 })
		r.settle()
		if !r.cw.Arche().Has(ce, r.cw.IDs.Velocity) {
			t.Fatalf("the host's unit gained a Velocity; its owner's has none (MarkedByHost %d)", r.c.Stats().MarkedByHost)
		}
	})
}

// A rejoin keeps the join page of a unit the host marks HostMoved as the
// baseline its next State is coded against.
func TestARejoinKeepsThePageOfAHostMarkedUnit(t *testing.T) {
	r := newRig(t, HostConfig{})
	r.c.cfg.Auth = &authRecorder{}
	unit := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.w.Arche().Add(unit, r.w.IDs.HostMoved)
	r.settle()
	r.move(unit, 3)
	r.settle()

	out := rejoin(t, r) // a resume
	for _, i := range r.next() {
		r.deliver(i)
	}

	r.move(unit, 3)
	r.s.Step()
	for _, i := range r.next() {
		m := out.msgs[i]
		if _, err := r.c.HandleDatagram(wire.Kind(m[0]), m[1:]); err != nil {
			t.Fatalf("the unit's first State after the rejoin: %v (DeltaMisses %d)", err, r.c.Stats().DeltaMisses)
		}
	}
	ce, _ := r.cw.EntityOf(mustID(r.w, unit))
	if x := ecs.Get[ecs.Transform](r.cw, ce).X; x != 6 || r.c.Stats().DeltaMisses != 0 {
		t.Fatalf("its owner holds the unit at x = %v, the host at 6 (DeltaMisses %d)", x, r.c.Stats().DeltaMisses)
	}
}

// A unit its owner predicted through a rejoin (neither side marked it
// then) and that the game marks HostMoved on both sides later has its
// baseline: its first State is coded against the rejoin's page, which the
// client keeps of what it predicts too. (It did not: ErrNoBaseline, the
// message counted malformed.)
func TestAUnitMarkedAfterARejoinHasItsBaseline(t *testing.T) {
	r := newRig(t, HostConfig{})
	r.c.cfg.Auth = &authRecorder{}
	unit := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	r.settle()
	out := rejoin(t, r)
	r.settle()
	// The game hands the unit to the host to walk, on both sides.
	ce, _ := r.cw.EntityOf(mustID(r.w, unit))
	r.w.Arche().Add(unit, r.w.IDs.HostMoved)
	r.cw.Arche().Add(ce, r.cw.IDs.HostMoved)
	r.move(unit, 3)
	r.s.Step()
	for _, i := range r.next() {
		m := out.msgs[i]
		if _, err := r.c.HandleDatagram(wire.Kind(m[0]), m[1:]); err != nil {
			t.Fatalf("the unit's first State once marked: %v (DeltaMisses %d)", err, r.c.Stats().DeltaMisses)
		}
	}
	if x := ecs.Get[ecs.Transform](r.cw, ce).X; x != 3 {
		t.Fatalf("its owner holds the unit at x = %v, the host at 3", x)
	}
}

// rejoin joins peer 1 again on a new connection, as a resume does, and
// returns the connection's capture, r's from now on.
func rejoin(t *testing.T, r *rig) *capture {
	t.Helper()
	r.h.RemovePeer(1)
	r.c.Rejoin(1, 0, 0)
	out := &capture{}
	r.h.AddPeer(1, out)
	for i := 0; i < 20 && !r.c.Joined(); i++ {
		r.s.Step()
		for _, m := range out.lane {
			if _, err := r.c.HandleLane(m); err != nil {
				t.Fatal(err)
			}
		}
		out.lane = out.lane[:0]
		if err := r.c.Pump(); err != nil {
			t.Fatal(err)
		}
	}
	if !r.c.Joined() {
		t.Fatal("the rejoin did not finish")
	}
	r.out, r.seen = out, len(out.msgs)
	return out
}

// A State of an entity sent while it was another's that arrives after the
// spawn that gave it to this client does not mark it HostMoved: the host
// never marked it, and the client goes on predicting it.
func TestAStateFromBeforeAGiftMarksNothing(t *testing.T) {
	r := newRig(t, HostConfig{})
	r.c.cfg.Auth = &authRecorder{}
	r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1}) // its avatar, predicted
	x := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 2})
	r.settle()
	r.move(x, 4)
	r.s.Step()
	late := r.next() // its State, held on the way
	ecs.SetOwner(r.w, x, 1)
	r.settle() // the spawn that gives it
	ce, _ := r.cw.EntityOf(mustID(r.w, x))
	if ni, _ := r.cw.Identity(ce); ni.Owner != 1 {
		t.Fatalf("setup: the client holds the entity as peer %d's", ni.Owner)
	}
	for _, i := range late {
		r.deliver(i)
	}
	if r.cw.Arche().Has(ce, r.cw.IDs.HostMoved) || r.c.Stats().MarkedByHost != 0 {
		t.Fatalf("a State from before the gift marked the entity HostMoved (MarkedByHost %d)", r.c.Stats().MarkedByHost)
	}
}

// A unit that changed after its owner's join, in an AuthState that was
// lost before the owner acknowledged any, and that the game then marks
// HostMoved on both sides, reaches its owner in its States: the join's
// pages carried it as it was before the change, no AuthState since.
func TestAUnitChangedAfterTheJoinAndMarkedReachesItsOwner(t *testing.T) {
	r := newRig(t, HostConfig{})
	r.c.cfg.Auth = &authRecorder{}
	r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1}) // its avatar, predicted
	unit := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	step := func(loseAuth bool) {
		r.s.Step()
		for _, i := range r.next() {
			if loseAuth && wire.Kind(r.out.msgs[i][0]) == wire.KindAuthState {
				r.lose(i)
				continue
			}
			r.deliver(i)
		}
	}
	for i := 0; i < 60 && !r.c.Joined(); i++ {
		step(true) // every AuthState lost from the start
	}
	if !r.c.Joined() {
		t.Fatal("setup: the join did not end")
	}
	r.move(unit, 5)
	step(true)
	ce, _ := r.cw.EntityOf(mustID(r.w, unit))
	r.w.Arche().Add(unit, r.w.IDs.HostMoved)
	r.cw.Arche().Add(ce, r.cw.IDs.HostMoved)
	for range 60 {
		step(false)
	}
	if got, want := ecs.Get[ecs.Transform](r.cw, ce).X, r.tf.Get(unit).X; got != want {
		t.Fatalf("its owner holds the unit at x = %v, the host at %v", got, want)
	}
}
