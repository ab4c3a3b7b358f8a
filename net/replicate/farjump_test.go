package replicate

import (
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// A jump across the world's whole range (its change past what an int32
// holds in wire steps) reaches the client exactly, and in time: its
// residual and its urgency are taken in full, not wrapped (from near one
// end of the range to the other, wrapped, it is two units: not urgent).
func TestJumpAcrossTheWholeRange(t *testing.T) {
	const top, bottom = 4194303, -4194303 // the range's ends
	r := newRig(t, HostConfig{Interest: InterestConfig{Off: true}})
	e := r.m.NewWith(&ecs.Transform{X: top - 4.0/512}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	r.tf.Get(e).X = bottom
	ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
	r.s.Step()
	for _, i := range r.next() {
		r.deliver(i)
	}
	ce, ok := r.cw.EntityOf(mustID(r.w, e))
	if !ok {
		t.Fatal("the client does not hold the entity")
	}
	if x := (*ecs.Transform)(r.cw.Arche().Get(ce, r.cw.IDs.Transform)).X; x != bottom {
		t.Fatalf("after the jump's send tick the client has x=%v, want %v", x, bottom)
	}
}

// An update coded against the newest image the client held when it was
// sent, overtaken by the next update of the entity, cannot be decoded (that
// image was replaced): the client reads past it, as older than what it
// holds, and applies the rest of its message, which the host was told
// arrived. A jump of millions of units in it once made the decoding
// overflow and the whole message be refused: the other entity's update in
// it was lost for good.
func TestOvertakenUpdateAgainstTheNewestIsReadPast(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{Off: true}})
	e := r.m.NewWith(&ecs.Transform{X: -1.2e6}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	crate := r.m.NewWith(&ecs.Transform{X: 10}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	r.tf.Get(e).X = 1.87e6
	ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
	ecs.ReportTeleport(r.w, e)
	r.move(crate, 50)
	r.s.Step()
	first := r.next()
	r.move(e, 100)
	r.s.Step()
	for _, i := range r.next() {
		r.deliver(i)
	}
	ignored := r.c.Stats().Ignored
	for _, i := range first { // overtaken on the way
		m := r.out.msgs[i]
		if _, err := r.c.HandleDatagram(wire.Kind(m[0]), m[1:]); err != nil {
			t.Fatalf("the overtaken message: %v", err)
		}
		r.h.Delivered(1, r.out.tokens[i])
	}
	if r.c.Stats().Ignored == ignored {
		t.Fatal("the overtaken update was not read past")
	}
	r.settle()
	for _, ent := range [...]struct {
		name string
		x    float64
		id   ecs.NetID
	}{{"crate", 60, mustID(r.w, crate)}, {"jumper", 1.87e6 + 100, mustID(r.w, e)}} {
		ce, _ := r.cw.EntityOf(ent.id)
		if x := (*ecs.Transform)(r.cw.Arche().Get(ce, r.cw.IDs.Transform)).X; x != ent.x {
			t.Errorf("the %s is at x=%v on the client, %v on the host", ent.name, x, ent.x)
		}
	}
}
