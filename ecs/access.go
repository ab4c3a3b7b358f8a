package ecs

import (
	"fmt"
	"reflect"

	arche "github.com/mlange-42/arche/ecs"
)

// Get returns a pointer to entity e's component T, or nil if e has none:
// for reading, or writing a component that is not replicated. A write to a
// replicated component through it goes unreported; write those through
// Mutate. Each call looks T up by its type: a system over many entities
// reads through a query or an arche generic.Map instead. It panics if e is
// not alive. The pointer is valid until the next structural change.
func Get[T any](w *World, e arche.Entity) *T {
	id := arche.ComponentID[T](&w.arche)
	if !w.arche.Has(e, id) {
		return nil
	}
	return (*T)(w.arche.Get(e, id))
}

// Mutate returns a pointer to entity e's component T for writing, and
// reports the write (MutateComponent) at once: write through it in the same
// step, before the step's replication runs (a system, a hook, a Do
// callback), and the network sends the value written. It is Get and
// MutateComponent in one call, with their costs. It panics, naming T, if e
// has no T, and if e is not alive. The pointer is valid until the next
// structural change.
func Mutate[T any](w *World, e arche.Entity) *T {
	id := arche.ComponentID[T](&w.arche)
	if !w.arche.Has(e, id) {
		panic(fmt.Sprintf("ecs: Mutate of %v, which has no %v: add it first", e, reflect.TypeFor[T]()))
	}
	MutateComponent(w, e, id)
	return (*T)(w.arche.Get(e, id))
}
