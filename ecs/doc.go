// Package ecs is Tandem's layer over the arche entity-component system: the
// world, resources, a fixed-step schedule, the core components every networked
// game shares, and the change journal that tells the network what changed.
//
// It is the bottom of the simulation stack. Storage and queries are arche's:
// systems use arche's generic API (generic.NewFilter2, generic.NewMap1, ...)
// on World.Arche directly. This package adds what networking needs on top:
//
//   - NetworkIdentity gives an entity a network id and an owning peer. The
//     world indexes networked entities by id and by owner through arche's
//     listener, never by scanning, so per-tick work walks only the index.
//   - MutateComponent reports that a replicated component of a networked
//     entity was written, added or removed. The journal keeps, for the
//     current frame, each (entity, component) reported, once. The host
//     replicates exactly what was reported: a write nobody reports stays on
//     the host. Mutate hands out a component for writing and reports it in
//     one call; Get reads one.
//   - Schedule runs ordered systems at a fixed step from an injectable clock.
//     A system may remove what it iterates (World.RemoveEntity): the
//     removals are made when it returns.
//
// Threads: a World, its journal, index and schedule belong to one goroutine,
// the simulation's. Nothing here is safe for concurrent use.
//
// Errors: misuse by the programmer (a dead entity, a component that is not
// registered, a duplicate network id) panics with a message saying what to fix.
package ecs
