package ecs

import (
	"strings"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
)

// Get reads a component or says there is none; Mutate hands it out for
// writing and reports the write, once a frame, and refuses, naming the
// type, a component the entity lacks.
func TestGetAndMutate(t *testing.T) {
	w := NewWorld()
	w.SetReplicated(w.IDs.Transform)
	e := newNetworked(w, HostPeer)
	if Get[health](w, e) != nil {
		t.Fatal("Get of a component the entity lacks is not nil")
	}
	Get[Transform](w, e).Y = 3 // unreported
	if n := len(w.Journal().Changes(w)); n != 0 {
		t.Fatalf("Get reported %d changes", n)
	}
	Mutate[Transform](w, e).X = 5
	Mutate[Transform](w, e).X++
	ch := w.Journal().Changes(w)
	if len(ch) != 1 || ch[0].Entity != e || ch[0].Component != w.IDs.Transform {
		t.Fatalf("changes after two Mutates: %+v, want the Transform once", ch)
	}
	if got := *Get[Transform](w, e); got.X != 6 || got.Y != 3 {
		t.Fatalf("the Transform is %+v, want X 6, Y 3", got)
	}
	msg := func() (msg string) {
		defer func() { msg, _ = recover().(string) }()
		Mutate[health](w, e)
		return ""
	}()
	if !strings.Contains(msg, "ecs.health") || !strings.Contains(msg, "add it first") {
		t.Fatalf("Mutate of a missing component: panic %q, want one naming it", msg)
	}
}

// Get of a type no entity ever had registers nothing, so it may be called
// while a query holds the world (where registering would panic).
func TestGetInsideAQuery(t *testing.T) {
	type neverUsed struct{ N int }
	w := NewWorld()
	e := newNetworked(w, HostPeer)
	before := len(arche.ComponentIDs(w.Arche()))
	q := generic.NewFilter1[Transform]().Query(w.Arche())
	for q.Next() {
		if Get[neverUsed](w, q.Entity()) != nil || Get[Transform](w, q.Entity()) == nil {
			t.Fatal("Get inside a query: wrong answer")
		}
	}
	if n := len(arche.ComponentIDs(w.Arche())); n != before || Get[neverUsed](w, e) != nil {
		t.Fatalf("components registered: %d, before Get: %d", n, before)
	}
}
