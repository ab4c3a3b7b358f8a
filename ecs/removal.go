package ecs

import arche "github.com/mlange-42/arche/ecs"

// RemoveEntity removes entity e from the world: at once, or, while a query
// holds the world locked (a system removing what it iterates), once the
// running system returns (Schedule.Step), with the removals made meanwhile
// in the order they were asked for; until then e is alive and Removing
// reports it. A dead entity, or one already waiting, is left alone. Outside
// a step, a removal asked for under a query waits for the next step's first
// system to return, or for FlushRemovals.
func (w *World) RemoveEntity(e arche.Entity) {
	if !w.arche.Alive(e) {
		return
	}
	if !w.arche.IsLocked() {
		w.arche.RemoveEntity(e)
		return
	}
	if !w.Removing(e) {
		w.removing = append(w.removing, e)
	}
}

// Removing reports whether RemoveEntity was asked to remove e while the world
// was locked, and e waits for the running system to return.
func (w *World) Removing(e arche.Entity) bool {
	for _, r := range w.removing {
		if r == e {
			return true
		}
	}
	return false
}

// FlushRemovals makes the removals RemoveEntity deferred, unless a query
// still holds the world locked. Schedule.Step calls it after each system.
func (w *World) FlushRemovals() {
	if len(w.removing) == 0 || w.arche.IsLocked() {
		return
	}
	for i, e := range w.removing {
		if w.arche.Alive(e) {
			w.arche.RemoveEntity(e)
		}
		w.removing[i] = arche.Entity{}
	}
	w.removing = w.removing[:0]
}
