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
	more    int        // entities still to create, in the next shards, once q ends
	comps   []arche.ID // the batch's components, without shard tags
}

// Arche keeps an archetype's components in one array per component and
// doubles it when it is full, copying it whole: at 65,536 entities one call
// allocates and copies megabytes, a frame's time at once. NewNetworked spreads
// what it creates over shards of at most shardSize entities, each an
// archetype of its own by the set of zero-size shard tags it carries (the
// shard's number in shardBits tags), so a doubling copies at most half a
// shard. A shard of 2,048 is what two batches of a join page of the default
// components (about a thousand entities each) fill without a doubling at
// all: arche sizes an archetype's arrays by powers of two from 128, so a
// first batch of more than 1,024 makes them 2,048 long and the second fills
// them; a join of 100,000 such entities then allocates each component array
// once, with nothing copied (larger entities, fewer to a page, double a
// shard once or twice, copying at most 1,024). Past shardCount shards
// (131,072 entities), the shards are used again in turn.
const (
	shardSize  = 1 << 11
	shardBits  = 6
	shardCount = 1 << shardBits
)

// The shard tags: zero-size components, one bit of a shard's number each.
type (
	netShard0 struct{}
	netShard1 struct{}
	netShard2 struct{}
	netShard3 struct{}
	netShard4 struct{}
	netShard5 struct{}
)

// shardIDs registers the shard tags in w, once.
func (w *World) shardIDs() *[shardBits]arche.ID {
	if !w.shards.registered {
		w.shards.ids = [shardBits]arche.ID{
			arche.ComponentID[netShard0](&w.arche),
			arche.ComponentID[netShard1](&w.arche),
			arche.ComponentID[netShard2](&w.arche),
			arche.ComponentID[netShard3](&w.arche),
			arche.ComponentID[netShard4](&w.arche),
			arche.ComponentID[netShard5](&w.arche),
		}
		w.shards.registered = true
	}
	return &w.shards.ids
}

// Bookkeeping returns the ids of the zero-size components this package puts
// on entities for its own bookkeeping (NewNetworked's shard tags), which carry
// no game state: a save, or anything that lists an entity's components, may
// pass them over. The slice is w's: do not change it.
func (w *World) Bookkeeping() []arche.ID { return w.shardIDs()[:] }

// shardState is what a World keeps for NewNetworked's shards.
type shardState struct {
	registered bool
	ids        [shardBits]arche.ID
	made       uint64     // entities NewNetworked created, all shards
	comps      []arche.ID // scratch: a batch's components with its shard's tags
}

// startShard creates up to n of the batch's entities in the current shard
// (what is left of it) and returns how many.
func (b *NetBatch) startShard(n int) int {
	w := b.w
	st := &w.shards
	ids := w.shardIDs()
	k := min(n, shardSize-int(st.made%shardSize))
	shard := (st.made / shardSize) % shardCount
	st.comps = append(st.comps[:0], b.comps...)
	for bit := range shardBits {
		if shard&(1<<bit) != 0 {
			st.comps = append(st.comps, ids[bit])
		}
	}
	st.made += uint64(k)
	b.q = w.arche.Batch().NewQ(k, st.comps...)
	return k
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
// the entities of each shard (below) when Next is done with its last, after
// the index has them. It panics
// if comps lacks NetworkIdentity or n < 1.
//
// The entities are spread over archetypes of at most 2,048 by zero-size
// tag components of this package (arche would otherwise copy a growing
// archetype whole, megabytes in one frame): a filter that names its
// components matches them as always; one made Exclusive, or a look at all of
// an entity's component ids, sees the tags (World.Bookkeeping lists them).
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
	b := NetBatch{w: w, detach: w.listeners == 0, comps: comps}
	if b.detach {
		w.arche.SetListener(nil)
	} else {
		w.index.quiet = true
	}
	b.more = n - b.startShard(n)
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
	return b.nextShard()
}

// nextShard moves to the first entity of the batch's next shard, or ends
// the batch when none is left.
func (b *NetBatch) nextShard() bool {
	if b.more > 0 {
		b.more -= b.startShard(b.more)
		b.q.Next()
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
	b.pending = false
	b.slot = b.w.index.addIdentity(b.q.Entity(), p)
	return b.slot
}

func (b *NetBatch) index(ni *NetworkIdentity) {
	b.pending = false
	b.slot = b.w.index.addIdentity(b.q.Entity(), ni)
}
