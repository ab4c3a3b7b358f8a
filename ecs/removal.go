package ecs

import arche "github.com/mlange-42/arche/ecs"

// RemoveEntity removes entity e from the world: at once, or, while a query
// holds the world locked (a system removing what it iterates), once the
// running system returns (Schedule.Step), with the removals made meanwhile
// in the order they were asked for; until then e is alive and Removing
// reports it. A dead entity, or one already waiting, is left alone. One
// asked for under a query outside a step is made by FlushRemovals, which
// the next step calls before its first system (and the root package's
// World calls when a Do or a hook returns).
func (w *World) RemoveEntity(e arche.Entity) {
	if !w.arche.Alive(e) {
		return
	}
	if !w.arche.IsLocked() {
		w.arche.RemoveEntity(e)
		return
	}
	if _, ok := w.removingSet[e]; ok {
		return
	}
	if w.removingSet == nil {
		w.removingSet = map[arche.Entity]struct{}{}
	}
	w.removingSet[e] = struct{}{}
	w.removing = append(w.removing, e)
}

// Removing reports whether RemoveEntity was asked to remove e while the world
// was locked, and e waits for the running system to return.
func (w *World) Removing(e arche.Entity) bool {
	if len(w.removing) == 0 {
		return false
	}
	_, ok := w.removingSet[e]
	return ok
}

// FlushRemovals makes the removals RemoveEntity deferred, unless a query
// still holds the world locked, and those asked for while it makes them
// (by a listener of a removal). Schedule.Step calls it before its first
// system and after each.
func (w *World) FlushRemovals() {
	if len(w.removing) == 0 || w.arche.IsLocked() {
		return
	}
	for i := 0; i < len(w.removing); i++ { // a removal's listener may add more
		if e := w.removing[i]; w.arche.Alive(e) {
			w.arche.RemoveEntity(e)
		}
	}
	clear(w.removing)
	w.removing = w.removing[:0]
	clear(w.removingSet)
}
