package ecs

import (
	"reflect"
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"
)

// arche keeps one record per entity id ever given (its archetype and row) in
// a slice that a batch doubles when the batch's entities do not fit, and the
// ids themselves in a pool that grows by append: each growth allocates the
// whole slice anew and copies it, which while the collector marks costs a
// write barrier per record and an assist for the bytes allocated (at 65,536
// entities 2 MiB and 1–6 ms in a frame). arche says nothing of either slice,
// so EntityRoom reads their lengths and capacities, and the count of
// recycled ids, by reflection; ReserveEntities gives both slices the room a
// caller asks for, when it chooses (for a join, at its start, when the
// world holds few entities and nothing is copied), by writing the two slice
// headers, each a copy of what it held with more capacity. Nothing else in
// arche refers to those slices' arrays.

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
// arche reallocating its index of entities, and ok == false if that cannot
// be read from arche.
func (w *World) EntityRoom() (room int, ok bool) {
	if !archeFields.ok {
		return 0, false
	}
	index, _, recycled := w.archeSlices()
	// arche grows the index when a batch of count makes
	// len + count - recycled reach its capacity.
	return index.Cap() - index.Len() + recycled - 1, true
}

// ReserveEntities makes room for n more entities than w can create without
// arche reallocating (EntityRoom): it reallocates arche's index of entities
// and its pool of ids now, each to hold n more than it does (at least twice
// its capacity, as arche grows it), copying what they hold. It reports
// whether it reallocated. Creating entities with room for them allocates
// nothing in arche's index or pool. Call it with no query open; it does
// nothing if arche's layout cannot be read.
func (w *World) ReserveEntities(n int) bool {
	room, ok := w.EntityRoom()
	if !ok || n <= room {
		return false
	}
	index, ids, recycled := w.archeSlices()
	fresh := n - recycled // ids the pool will give that it has not given before
	grow(index, max(2*index.Cap(), index.Len()+fresh+1))
	if ids.Cap() < ids.Len()+fresh {
		grow(ids, max(ids.Len()+fresh, ids.Cap()))
	}
	return true
}

// grow replaces the slice s by a copy with capacity c.
func grow(s reflect.Value, c int) {
	t := reflect.MakeSlice(s.Type(), s.Len(), c)
	reflect.Copy(t, s)
	s.Set(t)
}
