package ecs

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/ecs/event"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
)

// A system that removes what it iterates (RemoveEntity under a query, which
// arche refuses) has its removals made when it returns: until then the
// entities are alive and Removing says so; the next system does not see
// them, and the network index has forgotten them. Outside a query the
// removal is at once; asked for between steps under a query, it is made
// when the next step begins.
func TestRemovalsUnderAQueryWaitForTheSystem(t *testing.T) {
	w := NewWorld()
	var es []arche.Entity
	for range 5 {
		es = append(es, newNetworked(w, 1))
	}
	s := NewSchedule(w, clock.Real{}, 0)
	filter := generic.NewFilter1[Transform]()
	seen := 0
	s.Add("cull", SystemFunc(func(w *World) {
		q := filter.Query(w.Arche())
		for q.Next() {
			if e := q.Entity(); e != es[4] {
				w.RemoveEntity(e)
				w.RemoveEntity(e) // twice: once
				if !w.Alive(e) || !w.Removing(e) {
					t.Errorf("under the query, %v is alive %v, removing %v", e, w.Alive(e), w.Removing(e))
				}
			}
		}
	}))
	s.Add("count", SystemFunc(func(w *World) {
		q := filter.Query(w.Arche())
		seen = q.Count()
		q.Close()
	}))
	s.Step()
	if seen != 1 || len(w.Owned(1)) != 1 || w.Removing(es[0]) {
		t.Fatalf("the next system saw %d entities, the index holds %d of the owner's, removing %v; want 1, 1, false", seen, len(w.Owned(1)), w.Removing(es[0]))
	}

	w.RemoveEntity(es[4]) // no query: at once
	if w.Alive(es[4]) {
		t.Fatal("a removal outside a query waited")
	}
	e := newNetworked(w, 1)
	q := filter.Query(w.Arche())
	w.RemoveEntity(e)
	q.Close()
	if !w.Alive(e) {
		t.Fatal("a removal under a query between steps was made at once")
	}
	s.Step()
	if w.Alive(e) {
		t.Fatal("a removal asked for between steps under a query was not made by the next step")
	}
}

// cascade removes child when parent is removed (a listener of the game's).
type cascade struct {
	w             *World
	parent, child arche.Entity
}

func (c *cascade) Notify(_ *arche.World, evt arche.EntityEvent) {
	if evt.Entity == c.parent {
		c.w.RemoveEntity(c.child) // arche holds the world locked: deferred
	}
}
func (c *cascade) Subscriptions() event.Subscription { return event.EntityRemoved }
func (c *cascade) Components() *arche.Mask           { return nil }

// A removal a listener asks for while the deferred removals are made (a
// parent taking its child with it) is made with them, not dropped.
func TestRemovalsAskedWhileFlushingAreMade(t *testing.T) {
	w := NewWorld()
	parent, child := newNetworked(w, 1), newNetworked(w, 1)
	w.AddListener(&cascade{w: w, parent: parent, child: child})
	s := NewSchedule(w, clock.Real{}, 0)
	filter := generic.NewFilter1[Transform]()
	s.Add("cull", SystemFunc(func(w *World) {
		q := filter.Query(w.Arche())
		for q.Next() {
			if q.Entity() == parent {
				w.RemoveEntity(parent)
			}
		}
	}))
	s.Step()
	if w.Alive(parent) || w.Alive(child) || w.Removing(child) {
		t.Fatalf("after the step: parent alive %v, child alive %v, child waiting %v; want both gone", w.Alive(parent), w.Alive(child), w.Removing(child))
	}
}
