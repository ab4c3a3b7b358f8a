package ecs

import (
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"
)

// NetBatch creates networked entities of one archetype together: one arche
// batch, and the network index takes each entity as the iteration moves past
// it, without an arche event per entity for the index. Create it with
// World.NewNetworked and iterate it to the end; while it runs the world is
// locked (no structural change), as in any arche query.
type NetBatch struct {
	w       *World
	q       arche.Query
	detach  bool // the world's listener was taken off for the batch: it has no other listener
	pending bool // the current entity is created and not yet indexed
	slot    int32
}

// NewNetworked creates n networked entities with the components comps, which
// must include NetworkIdentity, and returns the batch to set them through:
//
//	b := w.NewNetworked(n, ids...)
//	for b.Next() {
//		*(*ecs.Transform)(b.Get(w.IDs.Transform)) = ...
//		b.Identify(ecs.NetworkIdentity{ID: id, Owner: owner})
//	}
//
// Each entity joins the network index with the NetworkIdentity it holds when
// Identify is called, or when Next moves past it (ID 0 gets a fresh id, as
// when NetworkIdentity is added). Listeners added with AddListener learn of
// the entities when the batch ends, after the index has them all. It panics
// if comps lacks NetworkIdentity or n < 1.
func (w *World) NewNetworked(n int, comps ...arche.ID) NetBatch {
	has := false
	for _, id := range comps {
		has = has || id == w.IDs.NetworkIdentity
	}
	if !has {
		panic("ecs: NewNetworked without NetworkIdentity among the components; add w.IDs.NetworkIdentity")
	}
	if n < 1 {
		panic("ecs: NewNetworked of no entities; create at least one")
	}
	b := NetBatch{w: w, detach: w.listeners == 0}
	if b.detach {
		w.arche.SetListener(nil)
	} else {
		w.index.quiet = true
	}
	b.q = w.arche.Batch().NewQ(n, comps...)
	return b
}

// Next moves to the next entity of the batch, indexing the one before; it
// returns false (and ends the batch) after the last.
func (b *NetBatch) Next() bool {
	if b.pending {
		b.index((*NetworkIdentity)(b.q.Get(b.w.IDs.NetworkIdentity)))
	}
	if b.q.Next() {
		b.pending = true
		return true
	}
	// arche has closed the query and told the listener, if it was left on,
	// of every entity: the index ignored those events.
	if b.detach {
		b.w.arche.SetListener(&b.w.dispatch)
	}
	b.w.index.quiet = false
	return false
}

// Get returns a pointer to component id of the current entity.
func (b *NetBatch) Get(id arche.ID) unsafe.Pointer { return b.q.Get(id) }

// Entity returns the current entity.
func (b *NetBatch) Entity() arche.Entity { return b.q.Entity() }

// Identify sets the current entity's NetworkIdentity to ni and indexes it
// now; it returns the entity's slot (World.NetSlot). Call it at most once
// an entity.
func (b *NetBatch) Identify(ni NetworkIdentity) int32 {
	p := (*NetworkIdentity)(b.q.Get(b.w.IDs.NetworkIdentity))
	*p = ni
	b.index(p)
	return b.slot
}

func (b *NetBatch) index(ni *NetworkIdentity) {
	b.pending = false
	b.slot = b.w.index.addIdentity(b.q.Entity(), ni)
}
