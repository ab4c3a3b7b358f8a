package ecs

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/ecs/event"
)

// countListener counts the entity events it hears.
type countListener struct{ events int }

func (l *countListener) Notify(_ *arche.World, _ arche.EntityEvent) { l.events++ }
func (l *countListener) Subscriptions() event.Subscription {
	return event.EntityCreated | event.EntityRemoved
}
func (l *countListener) Components() *arche.Mask { return nil }

// TestEntityRoomFollowsArche: EntityRoom is how many entities a batch can
// bring without arche reallocating its index of entities: a batch of that
// many leaves no room and keeps the index, one more reallocates it (the room
// grows), and recycled ids count as room.
func TestEntityRoomFollowsArche(t *testing.T) {
	w := NewWorld()
	a := w.Arche()
	for range 300 { // one by one: arche appends, off the powers of two
		a.NewEntity(w.IDs.Transform)
	}
	room, ok := w.EntityRoom()
	if !ok {
		t.Fatal("EntityRoom cannot read arche's index of entities")
	}
	if room < 1 {
		t.Fatalf("room %d right after growing", room)
	}
	a.Batch().New(room, w.IDs.Transform)
	if got, _ := w.EntityRoom(); got != 0 {
		t.Fatalf("after a batch of the room (%d), room %d, want 0", room, got)
	}
	a.Batch().New(1, w.IDs.Transform)
	grown, _ := w.EntityRoom()
	if grown <= 0 {
		t.Fatalf("a batch past the room left room %d: the index did not grow as EntityRoom said", grown)
	}
	a.Batch().RemoveEntities(arche.All(w.IDs.Transform))
	if got, _ := w.EntityRoom(); got != grown+room+301 {
		t.Fatalf("after removing all %d entities room %d, want %d", room+301, got, grown+room+301)
	}
}

// TestReserveEntitiesKeepsTheWorld: ReserveEntities reallocates arche's
// index and pool when n entities would not fit, and not otherwise; the
// world's entities, their handles, its network index and its listeners are
// as before, and a batch of n then fits with neither slice reallocated.
func TestReserveEntitiesKeepsTheWorld(t *testing.T) {
	w := NewWorld()
	l := &countListener{}
	w.AddListener(l)
	b := w.NewNetworked(1000, w.IDs.NetworkIdentity, w.IDs.Transform)
	var first arche.Entity
	for i := 0; b.Next(); i++ {
		(*Transform)(b.Get(w.IDs.Transform)).X = float64(i)
		if i == 0 {
			first = b.Entity()
		}
	}
	heard := l.events
	room, _ := w.EntityRoom()
	if w.ReserveEntities(room) {
		t.Fatalf("ReserveEntities(%d) reallocated with room for %d", room, room)
	}
	n := room + 50_000
	index0, ids0, _ := w.archeSlices()
	indexCap0, idsCap0 := index0.Cap(), ids0.Cap()
	if !w.ReserveEntities(n) {
		t.Fatalf("ReserveEntities(%d) did not reallocate with room for %d", n, room)
	}
	// One reallocation a call: the index first, then the pool.
	if index, ids, _ := w.archeSlices(); index.Cap() == indexCap0 || ids.Cap() != idsCap0 {
		t.Fatalf("the first call grew arche's index %d → %d and pool %d → %d, want the index alone", indexCap0, index.Cap(), idsCap0, ids.Cap())
	}
	if !w.ReserveEntities(n) {
		t.Fatalf("the second ReserveEntities(%d) did not grow the pool", n)
	}
	if index, ids, _ := w.archeSlices(); ids.Cap() == idsCap0 {
		t.Fatalf("the second call left the pool at %d (index %d)", ids.Cap(), index.Cap())
	}
	if w.ReserveEntities(n) {
		t.Fatalf("a third ReserveEntities(%d) reallocated: the room was made", n)
	}
	before, _ := w.EntityRoom()
	if before < n {
		t.Fatalf("after ReserveEntities(%d) room %d", n, before)
	}
	if l.events != heard {
		t.Fatalf("listeners heard %d events of the reservation", l.events-heard)
	}
	if !w.Arche().Alive(first) || (*Transform)(w.Arche().Get(first, w.IDs.Transform)).X != 0 {
		t.Fatal("an entity's handle does not reach it after ReserveEntities")
	}
	q := w.Arche().Query(arche.All())
	if q.Count() != 1000 {
		t.Fatalf("the world holds %d entities after ReserveEntities, want 1000", q.Count())
	}
	x := 0.0
	for q.Next() {
		x += (*Transform)(q.Get(w.IDs.Transform)).X
	}
	if x != 999*1000/2 {
		t.Fatalf("the entities' transforms sum to %v after ReserveEntities", x)
	}
	index, ids, _ := w.archeSlices()
	indexCap, idsCap := index.Cap(), ids.Cap()
	b = w.NewNetworked(n, w.IDs.NetworkIdentity, w.IDs.Transform)
	for b.Next() {
	}
	if got, _ := w.EntityRoom(); got != before-n {
		t.Fatalf("a batch of %d after ReserveEntities: room %d, want %d (no reallocation)", n, got, before-n)
	}
	if index, ids, _ := w.archeSlices(); index.Cap() != indexCap || ids.Cap() != idsCap {
		t.Fatalf("a batch of %d after ReserveEntities reallocated arche's index (%d, was %d) or pool (%d, was %d)", n, index.Cap(), indexCap, ids.Cap(), idsCap)
	}
	if got := w.Networked(); got != 1000+n {
		t.Fatalf("networked %d, want %d", got, 1000+n)
	}
	if e, ok := w.EntityOf(1); !ok || e != first {
		t.Fatalf("network id 1 is %v (%v), want the first entity %v", e, ok, first)
	}
}

// TestReserveEntitiesCountsRecycledIDs: ids arche recycles are room
// already, so a reservation takes from the pool only the ids it has not
// given, and creating them all then grows neither slice.
func TestReserveEntitiesCountsRecycledIDs(t *testing.T) {
	w := NewWorld()
	a := w.Arche()
	a.Batch().New(5000, w.IDs.Transform)
	a.Batch().RemoveEntities(arche.All(w.IDs.Transform))
	room, _ := w.EntityRoom()
	_, before, _ := w.archeSlices()
	idsBefore := before.Cap()
	n := room + 20_000
	if calls := reserveAll(w, n); calls != 2 {
		t.Fatalf("ReserveEntities(%d) with room for %d reallocated %d times, want 2 (index and pool)", n, room, calls)
	}
	index, ids, recycled := w.archeSlices()
	if recycled != 5000 {
		t.Fatalf("%d recycled ids after the reservation, want 5000", recycled)
	}
	// The pool gives the 5,000 recycled ids first: it holds room for the
	// n-5,000 new ones, or twice what it held if that is more.
	if want := max(2*idsBefore, ids.Len()+n-5000); ids.Cap() != want {
		t.Fatalf("after ReserveEntities(%d) with 5,000 ids recycled the pool holds %d, want %d", n, ids.Cap(), want)
	}
	indexCap, idsCap := index.Cap(), ids.Cap()
	a.Batch().New(n, w.IDs.Transform)
	if index, ids, _ := w.archeSlices(); index.Cap() != indexCap || ids.Cap() != idsCap {
		t.Fatalf("%d entities after ReserveEntities(%d) reallocated arche's index (%d, was %d) or pool (%d, was %d)", n, n, index.Cap(), indexCap, ids.Cap(), idsCap)
	}
	q := a.Query(arche.All(w.IDs.Transform))
	got := q.Count()
	q.Close()
	if got != n {
		t.Fatalf("the world holds %d entities, want %d", got, n)
	}
}

// TestReserveEntitiesGrowsAShortPool: with room in arche's index (which
// doubles) and little in its pool of ids (which grows by a quarter), the
// room is the pool's, and ReserveEntities grows the pool alone; a batch of
// that many then reallocates neither.
func TestReserveEntitiesGrowsAShortPool(t *testing.T) {
	w := NewWorld()
	for range 10 {
		w.Arche().Batch().New(2048, w.IDs.Transform)
	}
	index, ids, recycled := w.archeSlices()
	n := indexRoom(index, recycled) - 100
	if poolRoom(ids, recycled) >= n {
		t.Fatalf("the pool has room for %d, the index %d: the case needs a short pool", poolRoom(ids, recycled), indexRoom(index, recycled))
	}
	if room, _ := w.EntityRoom(); room != poolRoom(ids, recycled) {
		t.Fatalf("EntityRoom %d, want the pool's %d", room, poolRoom(ids, recycled))
	}
	indexCap := index.Cap()
	if !w.ReserveEntities(n) {
		t.Fatalf("ReserveEntities(%d) did not grow a pool with room for %d", n, poolRoom(ids, recycled))
	}
	index, ids, _ = w.archeSlices()
	if index.Cap() != indexCap {
		t.Fatalf("ReserveEntities(%d) reallocated the index (%d, was %d), which had room", n, index.Cap(), indexCap)
	}
	idsCap := ids.Cap()
	w.Arche().Batch().New(n, w.IDs.Transform)
	if index, ids, _ := w.archeSlices(); index.Cap() != indexCap || ids.Cap() != idsCap {
		t.Fatalf("a batch of %d after ReserveEntities reallocated arche's index (%d, was %d) or pool (%d, was %d)", n, index.Cap(), indexCap, ids.Cap(), idsCap)
	}
}

// reserveAll calls ReserveEntities(n) until it has made the room and
// returns how many calls reallocated.
func reserveAll(w *World, n int) int {
	calls := 0
	for w.ReserveEntities(n) {
		calls++
		if calls > 2 {
			panic("ReserveEntities reallocated more than its two slices")
		}
	}
	return calls
}

// childOf is a relation, for TestReserveEntitiesKeepsRelations.
type childOf struct{ arche.Relation }

// TestReserveEntitiesKeepsRelations: after ReserveEntities, entities made
// one at a time serve as relation targets, and removing a target (arche's
// bitset of targets, sized by the index's capacity, is read then) and
// resetting the world give what they give in a world arche grew itself.
func TestReserveEntitiesKeepsRelations(t *testing.T) {
	type outcome struct {
		set, removed, made arche.Entity
		targetAlive        bool
		held               int
	}
	run := func(reserve bool) outcome {
		w := NewWorld()
		a := w.Arche()
		rel := arche.ComponentID[childOf](a)
		a.NewEntity(w.IDs.Transform)
		if reserve && reserveAll(w, 10_000) == 0 {
			t.Fatal("ReserveEntities(10000) did not reallocate a world of one entity")
		}
		var target arche.Entity
		for range 5000 {
			target = a.NewEntity(w.IDs.Transform)
		}
		child := a.NewEntity(rel)
		a.Relations().Set(child, rel, target)
		var o outcome
		o.set = a.Relations().Get(child, rel)
		a.RemoveEntity(target)
		o.removed = a.Relations().Get(child, rel)
		o.targetAlive = a.Alive(target)
		a.Reset()
		o.made = a.NewEntity(w.IDs.Transform)
		q := a.Query(arche.All())
		o.held = q.Count()
		q.Close()
		return o
	}
	if got, want := run(true), run(false); got != want {
		t.Fatalf("with ReserveEntities %+v, as arche grows itself %+v", got, want)
	}
}
