package replicate

import (
	"math/rand/v2"
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// TestSlotIDsMirrorTheEntities spawns and removes entities for a while and
// checks, after every step, that the slots' id array (which acknowledgements
// read) says what the entity states say: the live entity's id, 0 for none.
func TestSlotIDsMirrorTheEntities(t *testing.T) {
	host := newScene(5, 50)
	h := NewHost(host.reg, HostConfig{})
	host.sched = ecs.NewSchedule(host.w, nil, 0)
	host.sched.Add("scene", host).Add("replicate", h)
	c := newTestClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 1})
	l := &link{rng: rand.New(rand.NewPCG(1, 2)), loss: 0.1, peer: 1}
	h.AddPeer(1, l)
	removed := 0
	for range 600 {
		before := host.w.Networked()
		host.sched.Step()
		l.step(t, h, c)
		if host.w.Networked() < before {
			removed++
		}
		if len(h.ids) != len(h.ents) {
			t.Fatalf("%d slot ids for %d entity states", len(h.ids), len(h.ents))
		}
		for slot := range h.ents {
			e := &h.ents[slot]
			if h.ids[slot] != e.id || e.flags&eLive == 0 && e.id != 0 {
				t.Fatalf("slot %d: id %d, its entity's state says %d (live %v)", slot, h.ids[slot], e.id, e.flags&eLive != 0)
			}
		}
	}
	if removed == 0 {
		t.Fatal("the scene removed no entity")
	}
}
