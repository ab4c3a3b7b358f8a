package replicate

import (
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// A removal whose fate is unknown goes again at the next send tick: a
// client that never got the first copy (lost, its loss not known for a
// round trip and the reorder window) removes the entity from the second.
// The first copy delivered ends it, and the late news of the other copies,
// lost or delivered, sends nothing more.
func TestRemovalGoesAgainBeforeItsFateIsKnown(t *testing.T) {
	r := newRig(t, HostConfig{})
	e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	id := mustID(r.w, e)
	if _, ok := r.cw.EntityOf(id); !ok {
		t.Fatal("the client never got the entity")
	}
	r.w.Arche().RemoveEntity(e)
	r.s.Step()
	first := r.next()
	r.s.Step()
	second := r.next()
	if len(first) != 1 || len(second) != 1 {
		t.Fatalf("%d messages at the removal, %d at the send tick after it: want one each, the second a copy", len(first), len(second))
	}
	r.deliver(second[0])
	if _, ok := r.cw.EntityOf(id); ok {
		t.Fatal("the client still holds the entity after the removal's second copy arrived")
	}
	r.lose(first[0]) // the first copy's loss, known late
	for range 10 {
		r.s.Step()
	}
	p := r.h.Peer(1)
	if got := r.items(r.next()); len(got) != 0 || len(p.despawns) != 0 {
		t.Fatalf("%d messages, %d removals held after a copy of the removal was delivered: want none", len(got), len(p.despawns))
	}
	if st := p.Stats(); st.Despawns != 2 || st.Repeats != 1 || st.Resent != 0 {
		t.Fatalf("removals sent %d, repeated %d, resent %d: want 2, 1 and 0", st.Despawns, st.Repeats, st.Resent)
	}
}

// A removal no copy of which is answered goes maxRemovalCopies times, and
// again once copies are known lost.
func TestRemovalCopiesAreBounded(t *testing.T) {
	r := newRig(t, HostConfig{})
	e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	id := mustID(r.w, e)
	r.w.Arche().RemoveEntity(e)
	var sent []int
	for range 12 {
		r.s.Step()
		sent = append(sent, r.items(r.next())...)
	}
	if len(sent) != maxRemovalCopies {
		t.Fatalf("%d messages in 12 send ticks with no fate known: want %d copies of the removal", len(sent), maxRemovalCopies)
	}
	for _, i := range sent[:len(sent)-1] {
		r.lose(i) // older copies lost
	}
	r.lose(sent[len(sent)-1])
	r.s.Step()
	again := r.items(r.next())
	if len(again) != 1 {
		t.Fatalf("%d messages after the copies were lost: want the removal again", len(again))
	}
	r.deliver(again[0])
	if _, ok := r.cw.EntityOf(id); ok {
		t.Fatal("the client still holds the entity")
	}
	if p := r.h.Peer(1); len(p.despawns) != 0 {
		t.Fatalf("%d removals held after one was delivered", len(p.despawns))
	}
}

// items returns those of the messages msgs that carry items (a record's
// token): not the empty STATEs of quiet ticks.
func (r *rig) items(msgs []int) []int {
	var with []int
	for _, i := range msgs {
		if r.out.tokens[i] != 0 {
			with = append(with, i)
		}
	}
	return with
}
