package ecs

import (
	"strings"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
)

// TestSetNextNetID: a restored counter is what the next entity gets, ids
// in use are never given again, and a counter below them panics.
func TestSetNextNetID(t *testing.T) {
	w := NewWorld()
	m := generic.NewMap2[Transform, NetworkIdentity](w.Arche())
	m.NewWith(&Transform{}, &NetworkIdentity{ID: 7})
	w.SetNextNetID(40)
	e := newNetworked(w, HostPeer)
	if id, _ := w.Identity(e); id.ID != 40 || w.NextNetID() != 41 {
		t.Fatalf("after SetNextNetID(40) the next entity got %d, counter %d", id.ID, w.NextNetID())
	}
	for _, bad := range []NetID{0, 40} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "SetNextNetID") {
					t.Errorf("SetNextNetID(%d) with id 40 in use: panic %v", bad, r)
				}
			}()
			w.SetNextNetID(bad)
		}()
	}
}

// TestSetJournaled: a journaled host-only component's
// reports are in the journal with its bit, like a replicated one's.
func TestSetJournaled(t *testing.T) {
	w := NewWorld()
	id := arche.ComponentID[health](w.Arche())
	bit := w.SetJournaled(id)
	e := newNetworked(w, HostPeer)
	w.Arche().Add(e, id)
	MutateComponent(w, e, id)
	ch := w.Journal().Changes(w)
	if len(ch) != 1 || ch[0].Component != id || ch[0].Bit != bit {
		t.Fatalf("journal %+v, want the write of the journaled component with bit %d", ch, bit)
	}
}
