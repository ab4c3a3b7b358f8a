package ecs

import (
	"reflect"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
)

// capacityOf returns the capacity of the archetype with exactly comps.
func capacityOf(t *testing.T, w *World, comps ...arche.ID) int {
	t.Helper()
	want := map[reflect.Type]bool{}
	for _, id := range comps {
		info, _ := arche.ComponentInfo(w.Arche(), id)
		want[info.Type] = true
	}
nodes:
	for _, n := range w.Arche().Stats().Nodes {
		if len(n.ComponentTypes) != len(want) {
			continue
		}
		for _, tp := range n.ComponentTypes {
			if !want[tp] {
				continue nodes
			}
		}
		return n.Capacity
	}
	return 0
}

func TestReserveAllocatesOnceAndLeavesNoTrace(t *testing.T) {
	w := NewWorld()
	ids := []arche.ID{w.IDs.NetworkIdentity, w.IDs.Transform}
	if !w.Reserve(5000, ids...) {
		t.Fatal("Reserve refused an empty archetype")
	}
	if got := capacityOf(t, w, ids...); got < 5000 {
		t.Fatalf("capacity after Reserve(5000): %d", got)
	}
	if w.Networked() != 0 || w.Arche().Stats().Entities.Used != 0 {
		t.Fatalf("Reserve left entities: %d networked, %d in arche", w.Networked(), w.Arche().Stats().Entities.Used)
	}
	if j := w.Journal(); len(j.spawned) != 0 || len(j.despawned) != 0 {
		t.Fatalf("Reserve was journaled: %d spawns, %d despawns", len(j.spawned), len(j.despawned))
	}
	before := capacityOf(t, w, ids...)
	for range 5000 {
		newNetworked(w, 1)
	}
	if got := capacityOf(t, w, ids...); got != before {
		t.Fatalf("creating the reserved 5000 grew the archetype from %d to %d", before, got)
	}
	if w.Networked() != 5000 {
		t.Fatalf("networked: %d, want 5000", w.Networked())
	}
	// The index still sees entities: ids are fresh and distinct.
	seen := map[NetID]bool{}
	for slot := int32(0); int(slot) < w.NetSlots(); slot++ {
		if _, id, ok := w.SlotEntity(slot); ok {
			if seen[id] {
				t.Fatalf("network id %d twice", id)
			}
			seen[id] = true
		}
	}
	if w.Reserve(100, ids...) {
		t.Fatal("Reserve took an archetype that holds entities")
	}
	if w.Reserve(0, w.IDs.Velocity) {
		t.Fatal("Reserve(0) reported a reservation")
	}
}
