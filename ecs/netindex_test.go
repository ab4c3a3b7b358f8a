package ecs

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
)

// TestIDTablePagesFollowIDsInUse: ids far apart each get a page of their
// own, lookups find exactly what was claimed, an id claimed twice keeps its
// first slot, and a page goes when its last id does.
func TestIDTablePagesFollowIDsInUse(t *testing.T) {
	var tab idTable
	ids := []NetID{1, 1023, 1024, 1025, 5 << idPageBits, 1<<31 + 7}
	for i, id := range ids {
		if !tab.claim(id, int32(i)) {
			t.Fatalf("claim(%d) refused an id not in use", id)
		}
	}
	if tab.n != len(ids) {
		t.Fatalf("n = %d, want %d", tab.n, len(ids))
	}
	for i, id := range ids {
		if s, ok := tab.get(id); !ok || s != int32(i) {
			t.Fatalf("get(%d) = %d %v, want %d", id, s, ok, i)
		}
	}
	for _, id := range []NetID{0, 2, 1026, 6 << idPageBits, 1 << 31, 1<<32 - 1} {
		if _, ok := tab.get(id); ok {
			t.Fatalf("get(%d) found an id never set", id)
		}
	}
	if tab.claim(1024, 40) { // claimed again: refused, nothing changed
		t.Fatal("claim(1024) took an id in use")
	}
	if s, _ := tab.get(1024); s != 2 || tab.n != len(ids) {
		t.Fatalf("after a second claim: slot %d, n %d", s, tab.n)
	}
	pages := func() int {
		n := 0
		for _, p := range tab.pages {
			if p != nil {
				n++
			}
		}
		return n
	}
	if got := pages(); got != 4 {
		t.Fatalf("%d pages for ids in 4 ranges", got)
	}
	tab.remove(1)
	tab.remove(1) // twice: no effect
	if got := pages(); got != 4 {
		t.Fatalf("page freed while id 1023 is still in it")
	}
	tab.remove(1023)
	if tab.pages[0] != nil {
		t.Fatal("page 0 kept after its last id left")
	}
	tab.remove(1<<31 + 7)
	tab.remove(5 << idPageBits)
	tab.remove(1024)
	tab.remove(1025)
	if tab.n != 0 || pages() != 0 {
		t.Fatalf("empty table: n %d, %d pages", tab.n, pages())
	}
}

// TestIndexAcrossChunks checks the index against a plain map through many
// entities (several chunks of slots and pages of ids), removals in random
// order and slots reused.
func TestIndexAcrossChunks(t *testing.T) {
	w := NewWorld()
	m := generic.NewMap2[Transform, NetworkIdentity](w.Arche())
	rng := rand.New(rand.NewPCG(3, 4))
	live := map[NetID]arche.Entity{}
	check := func() {
		t.Helper()
		if w.Networked() != len(live) {
			t.Fatalf("Networked() = %d, want %d", w.Networked(), len(live))
		}
		for id, e := range live {
			got, ok := w.EntityOf(id)
			if !ok || got != e {
				t.Fatalf("EntityOf(%d) = %v %v, want %v", id, got, ok, e)
			}
			slot, ok := w.NetSlot(e)
			if !ok {
				t.Fatalf("entity %v of id %d has no slot", e, id)
			}
			se, sid, ok := w.SlotEntity(slot)
			if !ok || se != e || sid != id {
				t.Fatalf("SlotEntity(%d) = %v %d %v, want %v %d", slot, se, sid, ok, e, id)
			}
			if ni, _ := w.Identity(e); w.SlotOwner(slot) != ni.Owner {
				t.Fatalf("SlotOwner(%d) = %d, the entity's owner %d", slot, w.SlotOwner(slot), ni.Owner)
			}
		}
	}
	const n = 3*(1<<chunkBits) + 100
	for i := range n {
		e := m.NewWith(&Transform{}, &NetworkIdentity{Owner: PeerID(i % 3)})
		ni, _ := w.Identity(e)
		live[ni.ID] = e
	}
	check()
	slots := w.NetSlots()
	for id, e := range live {
		if rng.IntN(3) == 0 {
			w.Arche().RemoveEntity(e)
			delete(live, id)
		}
	}
	check()
	for id := range live {
		if _, ok := w.EntityOf(id + NetID(n)); ok {
			t.Fatalf("id %d found, never given", id+NetID(n))
		}
	}
	// New entities take the freed slots: the tables do not grow.
	for range n - len(live) {
		e := m.NewWith(&Transform{}, &NetworkIdentity{})
		ni, _ := w.Identity(e)
		live[ni.ID] = e
	}
	check()
	if w.NetSlots() != slots {
		t.Fatalf("slots grew from %d to %d with as many entities", slots, w.NetSlots())
	}
}

// TestReserveOwnedMakesRoomAhead: after ReserveOwned(p, n), n entities
// given to p join its list where it is, with no copy; a peer not seen
// before gets its list, and n ≤ 0 changes nothing.
func TestReserveOwnedMakesRoomAhead(t *testing.T) {
	w := NewWorld()
	m := generic.NewMap2[Transform, NetworkIdentity](w.Arche())
	m.NewWith(&Transform{}, &NetworkIdentity{Owner: 7})
	w.ReserveOwned(7, 1000)
	w.ReserveOwned(3, 0)
	if len(w.Owned(3)) != 0 {
		t.Fatalf("ReserveOwned of nothing listed %d entities", len(w.Owned(3)))
	}
	before := unsafe.SliceData(w.Owned(7))
	if c := cap(w.Owned(7)); c < 1001 {
		t.Fatalf("room for %d after ReserveOwned(7, 1000) with one entity", c)
	}
	for range 1000 {
		m.NewWith(&Transform{}, &NetworkIdentity{Owner: 7})
	}
	if got := w.Owned(7); len(got) != 1001 || unsafe.SliceData(got) != before {
		t.Fatalf("peer 7 owns %d entities; the list moved: %v", len(got), unsafe.SliceData(got) != before)
	}
}

// TestReserveNetworkedAllocatesAhead: ReserveNetworked makes the index's
// tables ready a chunk at a time, says when it is done, and the entities
// then indexed find their tables made: no chunk is added or replaced.
func TestReserveNetworkedAllocatesAhead(t *testing.T) {
	const n = 10000
	w := NewWorld()
	calls := 0
	for w.ReserveNetworked(n) {
		if calls++; calls > 10 {
			t.Fatal("ReserveNetworked never reports it is done")
		}
	}
	if want := (n + 1<<chunkBits - 1) >> chunkBits; calls != want {
		t.Fatalf("%d calls allocated, want %d (a chunk of each table a call)", calls, want)
	}
	x := &w.index
	entries := append([][]netEntry(nil), x.entries.c...)
	slots := append([][]int32(nil), x.slots.c...)
	b := w.NewNetworked(n, w.IDs.Transform, w.IDs.NetworkIdentity)
	for b.Next() {
	}
	if w.Networked() != n {
		t.Fatalf("%d networked entities, want %d", w.Networked(), n)
	}
	same := func(a, b [][]int32) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if unsafe.SliceData(a[i]) != unsafe.SliceData(b[i]) {
				return false
			}
		}
		return true
	}
	if len(x.entries.c) != len(entries) || !same(slots, x.slots.c) {
		t.Fatalf("indexing added or replaced chunks: entries %d then %d, slots %d then %d", len(entries), len(x.entries.c), len(slots), len(x.slots.c))
	}
	for i := range entries {
		if unsafe.SliceData(entries[i]) != unsafe.SliceData(x.entries.c[i]) {
			t.Fatalf("entry chunk %d replaced", i)
		}
	}
	if w.ReserveNetworked(0) || w.ReserveNetworked(-5) {
		t.Fatal("ReserveNetworked of nothing allocated")
	}
}
