package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// An entity made and removed within one step (the journal lists its
// removal, not its spawn), in a slot freed before, while a peer joins: the
// host never held it, and the join's count of what it brings stays the
// entities it pages (it was taken one lower: FINAL said 8 of 9).
func TestAJoinDoesNotCountWhatNeverLived(t *testing.T) {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	h := NewHost(reg, HostConfig{})
	s := ecs.NewSchedule(w, nil, 0)
	s.Add("replicate", h)
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	var es []arche.Entity
	for i := range 10 {
		es = append(es, m.NewWith(&ecs.Transform{X: float64(i)}, &ecs.Velocity{}, &ecs.NetworkIdentity{}))
	}
	s.Step()
	w.Arche().RemoveEntity(es[0]) // frees a slot
	s.Step()
	out := &capture{}
	p := h.AddPeer(1, out)
	// A shot made and gone within one frame, in the freed slot.
	shot := m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	w.Arche().RemoveEntity(shot)
	for i := 0; p.Joining(); i++ {
		if i > 10 {
			t.Fatal("join did not end")
		}
		s.Step()
	}
	fin := out.lane[len(out.lane)-1]
	if wire.Kind(fin[0]) != wire.KindJoinFinal {
		t.Fatal("no FINAL")
	}
	r := wire.NewReader(fin[1:])
	r.Uvarint32()
	r.Uvarint()
	total := r.Count(1 << 30)
	held := r.Uvarint()
	if total != int(held) || total != p.Held() {
		t.Fatalf("FINAL: total %d, held %d; the peer's scope holds %d", total, held, p.Held())
	}
}
