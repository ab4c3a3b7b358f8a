package ecs

import (
	"fmt"
	"reflect"

	arche "github.com/mlange-42/arche/ecs"
)

// Get returns a pointer to entity e's component T, or nil if e has none (or
// T is no component of the world: Get registers no type). For reading, or
// for writing a component that is neither replicated nor saved; a write to
// one of those through it goes unreported (the network does not send it, a
// save does not keep it): write those through Mutate. Each call looks T up
// by its type: a system over many entities reads through a query or an
// arche generic.Map instead. It panics if e is not alive. The pointer is
// valid until the next structural change.
func Get[T any](w *World, e arche.Entity) *T {
	id, ok := lookup[T](w)
	if !ok || !w.arche.Has(e, id) {
		return nil
	}
	return (*T)(w.arche.Get(e, id))
}

// Mutate returns a pointer to entity e's component T for writing, and
// reports the write (MutateComponent) at once. The report is this step's:
// write through the pointer in the same step, before the step's
// replication and saving run (in a system before the output stage, a hook,
// a Do callback), and call Mutate again for a write in a later step. As with
// MutateComponent, the report is ignored for an entity without
// NetworkIdentity or a component neither replicated nor saved: the write
// stays local. It is Get and MutateComponent in one call, with their costs.
// It panics, naming T, if e has no T, and if e is not alive.
func Mutate[T any](w *World, e arche.Entity) *T {
	id, ok := lookup[T](w)
	if !ok || !w.arche.Has(e, id) {
		panic(fmt.Sprintf("ecs: Mutate of %v, which has no %v: add it first", e, reflect.TypeFor[T]()))
	}
	MutateComponent(w, e, id)
	return (*T)(w.arche.Get(e, id))
}

// lookup returns T's component id in w without registering T, which a
// world iterating a query refuses: from the types found before, else from
// arche's registered components (found once per type).
func lookup[T any](w *World) (arche.ID, bool) {
	tp := reflect.TypeFor[T]()
	if id, ok := w.types[tp]; ok {
		return id, true
	}
	for _, id := range arche.ComponentIDs(&w.arche) {
		if info, ok := arche.ComponentInfo(&w.arche, id); ok && info.Type == tp {
			w.types[tp] = id
			return id, true
		}
	}
	return arche.ID{}, false
}
