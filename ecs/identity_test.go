package ecs

import (
	"strings"
	"testing"
)

// Writing NetworkIdentity directly leaves the owner index and the network
// behind: the next reported write of the entity says so, naming SetOwner.
func TestDirectIdentityWriteIsReported(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(ni *NetworkIdentity)
	}{
		{"owner", func(ni *NetworkIdentity) { ni.Owner = 7 }},
		{"id", func(ni *NetworkIdentity) { ni.ID = 99 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := NewWorld()
			w.SetReplicated(w.IDs.Transform)
			e := w.Arche().NewEntity(w.IDs.Transform, w.IDs.NetworkIdentity)
			MutateComponent(w, e, w.IDs.Transform)
			w.EndFrame()
			c.write((*NetworkIdentity)(w.Arche().Get(e, w.IDs.NetworkIdentity)))
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, "SetOwner") {
					t.Fatalf("a direct write of NetworkIdentity.%s was not reported naming SetOwner: %q", c.name, msg)
				}
			}()
			MutateComponent(w, e, w.IDs.Transform)
		})
	}
	// SetOwner is the way: no complaint.
	w := NewWorld()
	w.SetReplicated(w.IDs.Transform)
	e := w.Arche().NewEntity(w.IDs.Transform, w.IDs.NetworkIdentity)
	SetOwner(w, e, 3)
	MutateComponent(w, e, w.IDs.Transform)
	if got := w.Owned(3); len(got) != 1 || got[0] != e {
		t.Fatalf("Owned(3) = %v after SetOwner", got)
	}
}
