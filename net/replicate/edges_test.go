package replicate

import (
	"math/rand/v2"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// Configurations and orders of events at the edges: each test here once
// failed.

// run steps the rig n times, delivering everything.
func (r *rig) run(n int) {
	for range n {
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
	}
}

// At a budget smaller than a message, an entity the peer owns still
// arrives: its AuthState, which the peer would drop before the spawn, does
// not take the budget the spawn waits for.
func TestTinyBudgetSendsAnOwnedSpawn(t *testing.T) {
	for _, cfg := range []HostConfig{{BitsPerSecond: 500, SendEvery: 1}, {BitsPerSecond: 2000, SendEvery: 1}, {BitsPerSecond: 2000, SendEvery: 3}, {BitsPerSecond: 5000, SendEvery: 1}} {
		r := newRig(t, cfg)
		r.m.NewWith(&ecs.Transform{X: 1}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		r.m.NewWith(&ecs.Transform{X: 2}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
		r.run(600)
		if got := r.cw.Networked(); got != 2 {
			t.Fatalf("%d bit/s, a send every %d steps: the client holds %d of 2 entities after 10 s (%+v)", cfg.BitsPerSecond, cfg.SendEvery, got, r.h.Peer(1).Stats())
		}
	}
}

// A spawn lost after an earlier one arrived goes again: it carried what
// only a spawn says, here a new owner, both when the first spawn arrived
// before and when the peer held the entity long before.
func TestLostSecondSpawnGoesAgain(t *testing.T) {
	t.Run("first in flight", func(t *testing.T) {
		r, e, first, second := ownerChangeInFlight(t)
		for _, i := range first {
			r.deliver(i)
		}
		for _, i := range second {
			r.lose(i)
		}
		r.settle()
		wantOwner(t, r, e, 2)
	})
	t.Run("held long before", func(t *testing.T) {
		r := newRig(t, HostConfig{})
		e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		r.settle()
		ecs.SetOwner(r.w, e, 2)
		r.s.Step()
		for _, i := range r.next() {
			r.lose(i)
		}
		r.settle()
		wantOwner(t, r, e, 2)
	})
}

// ownerChangeInFlight spawns an entity on a rig's host and, its spawn on
// its way, gives it to peer 2: the messages of each of the two steps.
func ownerChangeInFlight(t *testing.T) (r *rig, e arche.Entity, first, second []int) {
	r = newRig(t, HostConfig{})
	e = r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.s.Step()
	first = r.next()
	ecs.SetOwner(r.w, e, 2)
	r.s.Step()
	return r, e, first, r.next()
}

// wantOwner fails t unless the client sees the host's entity e owned by
// owner.
func wantOwner(t *testing.T, r *rig, e arche.Entity, owner ecs.PeerID) {
	t.Helper()
	ce, ok := r.cw.EntityOf(mustID(r.w, e))
	if !ok {
		t.Fatal("the client does not hold the entity")
	}
	if ni, _ := r.cw.Identity(ce); ni.Owner != owner {
		t.Fatalf("the client sees owner %d, want %d", ni.Owner, owner)
	}
}

// A replicated component written and reported, then removed in the same
// step, is skipped: the host neither panics nor sends it.
func TestReportedThenRemovedInAStep(t *testing.T) {
	r := newRig(t, HostConfig{})
	e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	ecs.Mutate[ecs.Velocity](r.w, e).X = 5
	ecs.MutateComponent(r.w, e, r.w.IDs.Velocity)
	r.w.Arche().Remove(e, r.w.IDs.Velocity)
	r.move(e, 3)
	r.settle()
	ce, _ := r.cw.EntityOf(mustID(r.w, e))
	if got := (*ecs.Transform)(r.cw.Arche().Get(ce, r.cw.IDs.Transform)).X; got != 3 {
		t.Fatalf("the client holds x=%v, want the move after the removal, 3", got)
	}
	if v := (*ecs.Velocity)(r.cw.Arche().Get(ce, r.cw.IDs.Velocity)); v != nil && v.X == 5 {
		t.Fatal("the client was sent the velocity removed in the step it was written")
	}
}

// A JoinPage smaller than a page's head is taken as the smallest that
// carries something: the join ends.
func TestTinyJoinPageJoins(t *testing.T) {
	for _, page := range []int{1, 4, 8, 63} {
		w := ecs.NewWorld()
		h := NewHost(NewRegistry(w), HostConfig{JoinPage: page})
		if got := h.Config().JoinPage; got != minJoinPage {
			t.Fatalf("JoinPage %d taken as %d, want %d", page, got, minJoinPage)
		}
		s := ecs.NewSchedule(w, nil, 0)
		s.Add("replicate", h)
		m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
		for range 20 {
			m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		}
		c := newTestClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 1})
		l := &link{rng: rand.New(rand.NewPCG(1, 2)), delay: 1, peer: 1}
		h.AddPeer(1, l)
		for range 600 {
			s.Step()
			l.step(t, h, c)
		}
		if !c.Joined() || c.w.Networked() != 20 {
			t.Fatalf("JoinPage %d: joined %v with %d of 20 entities after 10 s", page, c.Joined(), c.w.Networked())
		}
	}
}

// A budget under a byte a send interval waits to fill up as a larger one
// does: a tick's first item goes every other send tick, not every one.
func TestBudgetUnderAByteAnInterval(t *testing.T) {
	for _, bps := range []int{200, 479, 480, 1000} {
		r := newRig(t, HostConfig{BitsPerSecond: bps, SendEvery: 1})
		e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		for range 600 {
			r.move(e, 100)
			r.run(1)
		}
		if st := r.h.Peer(1).Stats(); st.Messages > 301 {
			t.Fatalf("%d bit/s: %d states in 600 send ticks, want one every other tick at most", bps, st.Messages)
		}
	}
}

// velocityOf returns the client's Velocity of the host's entity e, nil if
// the client's entity has none.
func velocityOf(t *testing.T, r *rig, e arche.Entity) *ecs.Velocity {
	t.Helper()
	ce, ok := r.cw.EntityOf(mustID(r.w, e))
	if !ok {
		t.Fatal("the client does not hold the entity")
	}
	return (*ecs.Velocity)(r.cw.Arche().Get(ce, r.cw.IDs.Velocity))
}

// A replicated component removed from a live entity and reported is
// removed on the client, through a lost datagram too; added again, it
// comes back with its value; the entity's other components go on.
func TestComponentRemovalReachesClients(t *testing.T) {
	for _, lose := range []bool{false, true} {
		r := newRig(t, HostConfig{})
		e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{X: 1}, &ecs.NetworkIdentity{})
		r.settle()
		if v := velocityOf(t, r, e); v == nil || v.X != 1 {
			t.Fatalf("the client's velocity %v, want x=1", v)
		}
		r.w.Arche().Remove(e, r.w.IDs.Velocity)
		ecs.MutateComponent(r.w, e, r.w.IDs.Velocity)
		r.stepSend(lose)
		r.settle()
		if v := velocityOf(t, r, e); v != nil {
			t.Fatalf("lost %v: the client still holds the removed velocity %+v", lose, *v)
		}
		if got := r.c.Stats().Dropped; got != 1 {
			t.Fatalf("lost %v: the client counts %d components dropped, want 1", lose, got)
		}
		r.move(e, 4)
		r.settle()
		ce, _ := r.cw.EntityOf(mustID(r.w, e))
		if got := (*ecs.Transform)(r.cw.Arche().Get(ce, r.cw.IDs.Transform)).X; got != 4 {
			t.Fatalf("lost %v: after the removal the client holds x=%v, want 4", lose, got)
		}
		r.addVelocity(e, 7)
		if v := velocityOf(t, r, e); v == nil || v.X != 7 {
			t.Fatalf("lost %v: the velocity added again arrived as %v, want x=7", lose, v)
		}
	}
}

// A removal made without a report is found by the audit, which sends it
// and says so; CheckReports stops the host on it.
func TestUnreportedRemovalIsFound(t *testing.T) {
	var found []UnreportedError
	r := newRig(t, HostConfig{OnUnreported: func(err *UnreportedError) { found = append(found, *err) }})
	e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{X: 1}, &ecs.NetworkIdentity{})
	r.settle()
	r.w.Arche().Remove(e, r.w.IDs.Velocity)
	r.settle()
	if len(found) != 1 || !found[0].Removed || found[0].Added || r.h.Unreported() != 1 {
		t.Fatalf("the audit found %+v (%d unreported), want the one removal", found, r.h.Unreported())
	}
	if v := velocityOf(t, r, e); v != nil {
		t.Fatal("the client still holds the velocity the audit found removed")
	}

	r = newRig(t, HostConfig{CheckReports: true})
	e = r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{X: 1}, &ecs.NetworkIdentity{})
	r.settle()
	r.w.Arche().Remove(e, r.w.IDs.Velocity)
	defer func() {
		err, ok := recover().(*UnreportedError)
		if !ok || !err.Removed {
			t.Fatalf("CheckReports panicked with %v, want an UnreportedError of a removal", err)
		}
	}()
	r.s.Step()
	t.Fatal("CheckReports let an unreported removal pass")
}

// authSink is an AuthHandler that counts the states it is given.
type authSink struct{ n int }

func (a *authSink) AuthState(ecs.Frame, arche.Entity, State) { a.n++ }

// A replicated component added to, or removed from, an entity a client
// owns is added or removed there too (its AuthState lists every component
// the host's entity has), whether the client predicts it (an Auth handler,
// which still gets every state) or not.
func TestOwnedEntityGainsAndLosesComponents(t *testing.T) {
	for _, predicts := range []bool{false, true} {
		r := newRig(t, HostConfig{})
		sink := &authSink{}
		if predicts {
			r.c.cfg.Auth = sink
		}
		e := r.w.Arche().NewEntity(r.w.IDs.Transform, r.w.IDs.NetworkIdentity)
		ecs.SetOwner(r.w, e, 1)
		r.settle()
		if v := velocityOf(t, r, e); v != nil {
			t.Fatal("the client's entity has a velocity before one was added")
		}
		r.addVelocity(e, 3)
		if v := velocityOf(t, r, e); v == nil || v.X != 3 {
			t.Fatalf("predicts %v: the owner's entity has velocity %v, want x=3", predicts, v)
		}
		r.w.Arche().Remove(e, r.w.IDs.Velocity)
		ecs.MutateComponent(r.w, e, r.w.IDs.Velocity)
		r.settle()
		if v := velocityOf(t, r, e); v != nil {
			t.Fatalf("predicts %v: the owner's entity keeps the removed velocity %+v", predicts, *v)
		}
		if st := r.c.Stats(); st.Gained != 1 || st.Dropped != 1 {
			t.Fatalf("predicts %v: %d components gained, %d dropped; want 1 and 1", predicts, st.Gained, st.Dropped)
		}
		if predicts && sink.n == 0 {
			t.Fatal("the Auth handler was given no state")
		}
	}
}

// addVelocity adds a Velocity of x to the host's entity e, reports it and
// settles.
func (r *rig) addVelocity(e arche.Entity, x float64) {
	toggle(r.w, e, r.w.IDs.Velocity, func() { (*ecs.Velocity)(r.w.Arche().Get(e, r.w.IDs.Velocity)).X = x })
	r.settle()
}

// stepToggling adds component id to the host's entity e, or removes it
// (toggle), and steps: the step's messages.
func (r *rig) stepToggling(e arche.Entity, id arche.ID) []int {
	toggle(r.w, e, id, func() {})
	r.s.Step()
	return r.next()
}

// deliverIn delivers the messages of each batch, the batches in the order
// given.
func (r *rig) deliverIn(batches ...[]int) {
	for _, b := range batches {
		for _, i := range b {
			r.deliver(i)
		}
	}
}

// A spawn sent before a component's removal and arriving after the
// removal's spawn does not add it back: for an entity new to the client and
// for one it held long before (an owner change's spawn in flight).
func TestLateSpawnDoesNotAddBackARemovedComponent(t *testing.T) {
	for _, held := range []bool{false, true} {
		r := newRig(t, HostConfig{})
		e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{X: 1}, &ecs.NetworkIdentity{})
		if held {
			r.settle()
			ecs.SetOwner(r.w, e, 2)
		}
		r.s.Step()
		first := r.next()
		second := r.stepToggling(e, r.w.IDs.Velocity)
		r.deliverIn(second, first)
		r.settle()
		if v := velocityOf(t, r, e); v != nil {
			t.Fatalf("held %v: the client holds the removed velocity %+v", held, *v)
		}
	}
}

// hitPoints is a component that is not delta-coded.
type hitPoints struct{ HP int32 }

// At a predicting owner, an AuthState older than one applied does not undo
// it: a component removed and added back stays.
func TestLateAuthStateDoesNotUndoANewerOne(t *testing.T) {
	r := newRig(t, HostConfig{})
	r.c.cfg.Auth = &authSink{}
	e := r.w.Arche().NewEntity(r.w.IDs.Transform, r.w.IDs.Velocity, r.w.IDs.NetworkIdentity)
	ecs.SetOwner(r.w, e, 1)
	r.settle()
	first := r.stepToggling(e, r.w.IDs.Velocity)  // removed
	second := r.stepToggling(e, r.w.IDs.Velocity) // added back
	r.deliverIn(second, first)
	if velocityOf(t, r, e) == nil {
		t.Fatalf("the late AuthState undid the newer one: the velocity is gone (%+v)", r.c.Stats())
	}
	r.settle()
	if velocityOf(t, r, e) == nil {
		t.Fatal("the client lost the velocity the host's entity has")
	}
}

// An entity whose position is removed leaves the interest grid: like one
// that never had a position, it is in every peer's scope.
func TestRemovedPositionLeavesTheGrid(t *testing.T) {
	r := newRig(t, HostConfig{})
	r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	far := r.m.NewWith(&ecs.Transform{X: 100000}, &ecs.Velocity{X: 1}, &ecs.NetworkIdentity{})
	r.settle()
	if _, ok := r.cw.EntityOf(mustID(r.w, far)); ok {
		t.Fatal("the far entity is in the peer's scope at first: the test tests nothing")
	}
	r.w.Arche().Remove(far, r.w.IDs.Transform)
	ecs.MutateComponent(r.w, far, r.w.IDs.Transform)
	r.settle()
	if v := velocityOf(t, r, far); v == nil || v.X != 1 {
		t.Fatalf("the entity that lost its position arrived with velocity %v, want x=1", v)
	}
}

// An update of a component that is not delta-coded, sent before its
// removal and arriving after the removal's spawn, does not add it back:
// whether the client held it (a write's update) or never did (the
// addition's update; the spawn dates its absence all the same).
func TestLateUpdateDoesNotAddBackARemovedComponent(t *testing.T) {
	for _, held := range []bool{true, false} {
		r := newRigWith(t, HostConfig{}, func(reg *Registry) { Register(reg, IntegerCodec[hitPoints]("hp")) })
		w := r.w
		hp, chp := arche.ComponentID[hitPoints](w.Arche()), arche.ComponentID[hitPoints](r.cw.Arche())
		e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		if held {
			w.Arche().Add(e, hp)
		}
		r.settle()
		if !held {
			w.Arche().Add(e, hp)
		}
		(*hitPoints)(w.Arche().Get(e, hp)).HP = 5
		ecs.MutateComponent(w, e, hp)
		r.s.Step()
		update := r.next()
		w.Arche().Remove(e, hp)
		ecs.MutateComponent(w, e, hp)
		r.s.Step()
		removal := r.next()
		r.deliverIn(removal, update)
		r.settle()
		ce, _ := r.cw.EntityOf(mustID(w, e))
		if r.cw.Arche().Has(ce, chp) {
			t.Fatalf("held %v: the client holds hp=%d, which the host removed", held, (*hitPoints)(r.cw.Arche().Get(ce, chp)).HP)
		}
	}
}

// A predicting owner keeps the image of a spawn it skips: the host, told
// it arrived, codes later updates against it once the entity is another's.
func TestSkippedSpawnIsABaseline(t *testing.T) {
	r := newRig(t, HostConfig{})
	r.c.cfg.Auth = &authSink{}
	e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{X: 1}, &ecs.NetworkIdentity{Owner: 1})
	r.settle()
	r.w.Arche().Remove(e, r.w.IDs.Velocity)
	ecs.MutateComponent(r.w, e, r.w.IDs.Velocity)
	r.s.Step()
	removal := r.next()
	ecs.SetOwner(r.w, e, ecs.HostPeer)
	r.s.Step()
	given := r.next()
	r.deliverIn(removal)
	for _, i := range given { // arrives, its notice does not
		r.arrive(i)
	}
	for range 30 {
		r.move(e, 5)
		r.s.Step()
		for _, i := range r.next() {
			r.arrive(i)
		}
	}
	if st := r.c.Stats(); st.DeltaMisses != 0 {
		t.Fatalf("%d updates coded against an image the client did not keep", st.DeltaMisses)
	}
}

// Of two owner changes whose spawns arrive in the wrong order, the newer
// one stands: to another peer and back, and to this client last.
func TestOwnerChangesOvertaken(t *testing.T) {
	for _, last := range []ecs.PeerID{ecs.HostPeer, 1} {
		r := newRig(t, HostConfig{})
		e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		r.settle()
		ecs.SetOwner(r.w, e, 2)
		r.s.Step()
		first := r.next()
		ecs.SetOwner(r.w, e, last)
		r.s.Step()
		second := r.next()
		r.deliverIn(second, first)
		r.settle()
		wantOwner(t, r, e, last)
	}
}

// The spawn that makes an entity, overtaken by the spawn of an owner change
// made while it was on its way, does not set the owner back.
func TestFirstSpawnOvertakenByAnOwnerChange(t *testing.T) {
	r, e, first, second := ownerChangeInFlight(t)
	r.deliverIn(second, first)
	r.settle()
	wantOwner(t, r, e, 2)
}

// A component removed (its spawn on the way), then the entity moved, the
// move's update overtaking the spawn: the update says nothing of what it
// does not carry, and the spawn, older than the update the client applied,
// still takes away the component that is not delta-coded, which the client
// held as of an older frame. (Updates may go while a later spawn of the
// entity is on its way, once an earlier one was acknowledged.)
func TestRemovalOvertakenByAMoveStillRemoves(t *testing.T) {
	r := newRigWith(t, HostConfig{}, func(reg *Registry) { Register(reg, IntegerCodec[hitPoints]("hp")) })
	w := r.w
	hp, chp := arche.ComponentID[hitPoints](w.Arche()), arche.ComponentID[hitPoints](r.cw.Arche())
	e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	w.Arche().Add(e, hp)
	(*hitPoints)(w.Arche().Get(e, hp)).HP = 5
	r.settle()
	w.Arche().Remove(e, hp)
	ecs.MutateComponent(w, e, hp)
	r.s.Step()
	removal := r.next()
	for _, i := range removal {
		r.h.Delivered(1, r.out.tokens[i]) // acknowledged: the next change goes as an update
	}
	r.move(e, 50)
	r.s.Step()
	move := r.next()
	r.deliverIn(move)
	for _, i := range removal {
		r.arrive(i) // the spawn, after the move
	}
	r.settle()
	ce, _ := r.cw.EntityOf(mustID(w, e))
	if r.cw.Arche().Has(ce, chp) {
		t.Fatalf("the client holds hp=%d, which the host removed", (*hitPoints)(r.cw.Arche().Get(ce, chp)).HP)
	}
}
