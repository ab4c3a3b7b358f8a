package ecs

import (
	"reflect"

	arche "github.com/mlange-42/arche/ecs"
)

// arche keeps one record per entity id ever given (its archetype and row) in
// a slice that a batch doubles when the batch's entities do not fit: one
// allocation of the whole index and a copy of every record, a pointer each,
// which while the collector marks takes a write barrier per record (at
// 65,536 entities 2 MiB allocated and 65,536 barriers, 1-4 ms in a frame).
// arche says nothing of that slice, so EntityRoom reads its length and
// capacity, and the count of recycled ids, by reflection (reading only);
// GrowEntities then makes the reallocation happen when a caller chooses,
// for a frame that does nothing else.

// archeFields locates, once, arche's index of entities and its pool's count
// of recycled ids in an arche.World value; ok is false if arche's layout is
// not the one read here (room unknown, GrowEntities does nothing).
var archeFields = func() (f struct {
	entities, pool, available []int
	ok                        bool
}) {
	t := reflect.TypeFor[arche.World]()
	ents, ok1 := t.FieldByName("entities")
	pool, ok2 := t.FieldByName("entityPool")
	if !ok1 || !ok2 || ents.Type.Kind() != reflect.Slice || pool.Type.Kind() != reflect.Struct {
		return f
	}
	avail, ok3 := pool.Type.FieldByName("available")
	if !ok3 || avail.Type.Kind() != reflect.Uint32 {
		return f
	}
	f.entities, f.pool, f.available = ents.Index, pool.Index, avail.Index
	f.ok = true
	return f
}()

// EntityRoom returns how many entities w can create in one batch without
// arche reallocating its index of entities, and ok == false if that cannot
// be read from arche.
func (w *World) EntityRoom() (room int, ok bool) {
	if !archeFields.ok {
		return 0, false
	}
	v := reflect.ValueOf(&w.arche).Elem()
	ents := v.FieldByIndex(archeFields.entities)
	avail := int(v.FieldByIndex(archeFields.pool).FieldByIndex(archeFields.available).Uint())
	// arche grows the index when a batch of count makes
	// len + count - recycled reach its capacity.
	return ents.Cap() - ents.Len() + avail - 1, true
}

// entityPlaceholder is the zero-size component of the entities GrowEntities
// creates and removes at once: no one else has it.
type entityPlaceholder struct{}

// GrowEntities makes room in arche's index of entities for n more, now, if
// they would not fit (EntityRoom): it creates just enough placeholder
// entities in one batch for arche to reallocate the index, and removes them,
// their ids recycled for the entities that follow; listeners see neither.
// It reports whether it grew the index. Call it with no query open.
func (w *World) GrowEntities(n int) bool {
	room, ok := w.EntityRoom()
	if !ok || n <= room {
		return false
	}
	id := arche.ComponentID[entityPlaceholder](&w.arche)
	w.arche.SetListener(nil)
	w.arche.Batch().New(room+1, id)
	w.arche.Batch().RemoveEntities(arche.All(id))
	w.arche.SetListener(&w.dispatch)
	return true
}
