package ecs

import (
	"reflect"
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"
)

// arche keeps one record per entity id ever given (its archetype and row) in
// an index it doubles when a batch's entities do not fit, and the ids
// themselves in a pool that grows by append, a quarter at a time: each growth
// allocates the whole slice anew and copies it, which while the collector
// marks costs an assist for the bytes allocated and, for the index, a write
// barrier per record (at 65,536 entities 2 MiB and 1–6 ms in a frame). arche
// says nothing of either slice, so EntityRoom reads their lengths and
// capacities, and the count of recycled ids, by reflection; ReserveEntities
// gives both slices the room a caller asks for, one a call, when it chooses
// (for a join, at its start, while the world holds few entities and little
// is copied), by writing the two slice headers, each a copy of what it held
// with more capacity. arche reads both slices through the world each time
// and keeps no other reference to their arrays; the one thing sized by the
// index's capacity, the bitset of relation targets, arche extends to that
// capacity itself whenever it creates an entity.

// archeFields locates, once, arche's index of entities and its pool's ids
// and count of recycled ids in an arche.World value; ok is false if arche's
// layout is not the one read here (room unknown, ReserveEntities does
// nothing).
var archeFields = func() (f struct {
	entities, pool, poolIDs, available []int
	ok                                 bool
}) {
	t := reflect.TypeFor[arche.World]()
	ents, ok1 := t.FieldByName("entities")
	pool, ok2 := t.FieldByName("entityPool")
	if !ok1 || !ok2 || ents.Type.Kind() != reflect.Slice || pool.Type.Kind() != reflect.Struct {
		return f
	}
	avail, ok3 := pool.Type.FieldByName("available")
	ids, ok4 := pool.Type.FieldByName("entities")
	if !ok3 || !ok4 || avail.Type.Kind() != reflect.Uint32 || ids.Type != reflect.TypeFor[[]arche.Entity]() {
		return f
	}
	f.entities, f.pool, f.poolIDs, f.available = ents.Index, pool.Index, ids.Index, avail.Index
	f.ok = true
	return f
}()

// archeSlices is arche's index of entities and its pool's ids in w, as
// settable values, and the count of recycled ids.
func (w *World) archeSlices() (index, ids reflect.Value, recycled int) {
	v := reflect.ValueOf(&w.arche).Elem()
	pool := v.FieldByIndex(archeFields.pool)
	return settable(v.FieldByIndex(archeFields.entities)), settable(pool.FieldByIndex(archeFields.poolIDs)),
		int(pool.FieldByIndex(archeFields.available).Uint())
}

// settable returns the addressable field f without reflection's read-only
// mark for unexported fields.
func settable(f reflect.Value) reflect.Value {
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// EntityRoom returns how many entities w can create in one batch without
// arche reallocating its index of entities or its pool of ids, and
// ok == false if that cannot be read from arche.
func (w *World) EntityRoom() (room int, ok bool) {
	if !archeFields.ok {
		return 0, false
	}
	index, ids, recycled := w.archeSlices()
	return min(indexRoom(index, recycled), poolRoom(ids, recycled)), true
}

// indexRoom is how many entities a batch can bring without arche
// reallocating its index: it grows the index when a batch of count makes
// len + count - recycled reach the capacity.
func indexRoom(index reflect.Value, recycled int) int {
	return index.Cap() - index.Len() + recycled - 1
}

// poolRoom is how many entities can be created without arche's pool of ids
// growing: recycled ids are given first, then new ones appended.
func poolRoom(ids reflect.Value, recycled int) int {
	return ids.Cap() - ids.Len() + recycled
}

// ReserveEntities makes room for w to create n entities in one batch
// without arche reallocating its index of entities or its pool of ids. Each
// call reallocates at most one of the two, the index first, to the room
// asked for or to twice its capacity if that is more (as arche grows its
// index), what it holds copied, and reports whether it reallocated: called
// until it returns false, it has made the room, and creating up to n
// entities then allocates nothing in either. One allocation a call (some
// 16 bytes an entity for the index, 8 for the pool) lets a loading client
// spread the work over frames. Call it with no query open; it does nothing
// if arche's layout cannot be read.
func (w *World) ReserveEntities(n int) bool {
	if !archeFields.ok {
		return false
	}
	index, ids, recycled := w.archeSlices()
	fresh := n - recycled // ids the pool will give that it has not given before
	if indexRoom(index, recycled) < n {
		grow(index, max(2*index.Cap(), index.Len()+fresh+1))
		return true
	}
	if poolRoom(ids, recycled) < n {
		grow(ids, max(2*ids.Cap(), ids.Len()+fresh))
		return true
	}
	return false
}

// grow replaces the slice s by a copy with capacity c.
func grow(s reflect.Value, c int) {
	t := reflect.MakeSlice(s.Type(), s.Len(), c)
	reflect.Copy(t, s)
	s.Set(t)
}
