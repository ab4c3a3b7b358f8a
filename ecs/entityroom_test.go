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

// TestGrowEntitiesMakesRoomUnseen: GrowEntities reallocates arche's index
// when n entities would not fit, and not otherwise; the world's entities,
// its network index and its listeners see nothing of the placeholders, and
// a batch of n then fits without a reallocation.
func TestGrowEntitiesMakesRoomUnseen(t *testing.T) {
	w := NewWorld()
	l := &countListener{}
	w.AddListener(l)
	b := w.NewNetworked(1000, w.IDs.NetworkIdentity, w.IDs.Transform)
	for i := 0; b.Next(); i++ {
		(*Transform)(b.Get(w.IDs.Transform)).X = float64(i)
	}
	heard := l.events
	room, _ := w.EntityRoom()
	if w.GrowEntities(room) {
		t.Fatalf("GrowEntities(%d) grew with room for %d", room, room)
	}
	n := room + 500
	if !w.GrowEntities(n) {
		t.Fatalf("GrowEntities(%d) did not grow with room for %d", n, room)
	}
	if got, _ := w.EntityRoom(); got < n {
		t.Fatalf("after GrowEntities(%d) room %d", n, got)
	}
	if l.events != heard {
		t.Fatalf("listeners heard %d events of the placeholders", l.events-heard)
	}
	if got := w.Networked(); got != 1000 {
		t.Fatalf("networked %d after GrowEntities, want 1000", got)
	}
	q := w.Arche().Query(arche.All())
	if q.Count() != 1000 {
		t.Fatalf("the world holds %d entities after GrowEntities, want 1000", q.Count())
	}
	x := 0.0
	for q.Next() {
		x += (*Transform)(q.Get(w.IDs.Transform)).X
	}
	if x != 999*1000/2 {
		t.Fatalf("the entities' transforms sum to %v after GrowEntities", x)
	}
	before, _ := w.EntityRoom()
	b = w.NewNetworked(n, w.IDs.NetworkIdentity, w.IDs.Transform)
	for b.Next() {
	}
	if got, _ := w.EntityRoom(); got != before-n {
		t.Fatalf("a batch of %d after GrowEntities: room %d, want %d (no reallocation)", n, got, before-n)
	}
	if got := w.Networked(); got != 1000+n {
		t.Fatalf("networked %d, want %d", got, 1000+n)
	}
}
