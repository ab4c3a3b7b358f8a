package replicate

import (
	"math/rand/v2"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

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

// A removal no copy of which is answered goes minRemovalCopies times, and
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
	if len(sent) != minRemovalCopies {
		t.Fatalf("%d messages in 12 send ticks with no fate known: want %d copies of the removal", len(sent), minRemovalCopies)
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

// The newest copy's loss known first (a datagram the connection refuses is
// lost at once, while older copies are in flight), then the older ones':
// each is counted off all the same, so the removal goes again with its
// copies, four in flight at most. (Counted only while a copy was flying,
// the count stayed at four with one in flight, and the removal waited for
// each loss to be known again.)
func TestRemovalCopiesCountedOffWhenTheNewestIsLostFirst(t *testing.T) {
	r := newRig(t, HostConfig{})
	e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	r.w.Arche().RemoveEntity(e)
	var sent []int
	for range minRemovalCopies {
		r.s.Step()
		sent = append(sent, r.items(r.next())...)
	}
	if len(sent) != minRemovalCopies {
		t.Fatalf("%d copies, want %d", len(sent), minRemovalCopies)
	}
	p := r.h.Peer(1)
	r.lose(sent[len(sent)-1]) // the newest, first
	for _, i := range sent[:len(sent)-1] {
		r.lose(i) // then the older ones
	}
	var again []int
	for range 12 {
		r.s.Step()
		again = append(again, r.items(r.next())...)
	}
	t.Logf("despawn entry after all %d copies were lost: %+v; copies sent in 12 ticks after: %d", minRemovalCopies, p.despawns, len(again))
	if len(again) != minRemovalCopies {
		t.Fatalf("%d copies went in 12 send ticks with none in flight before them: want %d (entry %+v)", len(again), minRemovalCopies, p.despawns)
	}
}

// A peer packed from the tape of the peer before it (the same state) sends
// the same copies of removals, and counts them in PeerStats.Repeats alike.
func TestTapeFollowerCountsRepeats(t *testing.T) {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	h := NewHost(reg, HostConfig{SendEvery: 1})
	s := ecs.NewSchedule(w, nil, 0)
	s.Add("replicate", h)
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	var es []arche.Entity
	for i := range 20 {
		es = append(es, m.NewWith(&ecs.Transform{X: float64(i)}, &ecs.Velocity{}, &ecs.NetworkIdentity{}))
	}
	outs := []*fatedOut{
		{rng: rand.New(rand.NewPCG(1, 1)), delay: 3},
		{rng: rand.New(rand.NewPCG(1, 1)), delay: 3},
	}
	for i, o := range outs {
		h.AddPeer(ecs.PeerID(i+1), o)
	}
	step := 0
	run := func(n int) {
		for range n {
			step++
			for _, o := range outs {
				o.now = step
			}
			s.Step()
			for i, o := range outs {
				keep := o.pending[:0]
				for _, f := range o.pending {
					if f.at > step {
						keep = append(keep, f)
						continue
					}
					if f.delivered {
						h.Delivered(ecs.PeerID(i+1), f.token)
					} else {
						h.Lost(ecs.PeerID(i+1), f.token)
					}
				}
				o.pending = keep
			}
		}
	}
	run(60)
	for _, e := range es[:5] {
		w.Arche().RemoveEntity(e)
	}
	run(20)
	a, b := h.Peer(1).Stats(), h.Peer(2).Stats()
	t.Logf("followed %d tapes; peer 1: despawns %d, repeats %d; peer 2: despawns %d, repeats %d", h.tape.followed, a.Despawns, a.Repeats, b.Despawns, b.Repeats)
	if outs[0].sum != outs[1].sum || a.Despawns != b.Despawns || a.Repeats == 0 {
		t.Fatalf("the peers did not send alike, or nothing was repeated: the test does not test what it says")
	}
	if a.Repeats != b.Repeats {
		t.Fatalf("peer 2 sent the same %d removals as peer 1 but counts %d repeats, peer 1 %d", b.Despawns, b.Repeats, a.Repeats)
	}
}

// An entity that leaves the peer's scope and comes back while copies of its
// removal are in flight gets no more copies, and the copies arriving late,
// before, around or after the spawn that brought it back, leave it on the
// client.
func TestNoRemovalCopyAfterScopeReentry(t *testing.T) {
	for _, order := range []string{"spawn first", "copy between", "copies first"} {
		r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}})
		r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
		e := r.m.NewWith(&ecs.Transform{X: 100}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		r.settle()
		id := mustID(r.w, e)
		r.move(e, 1000)
		r.s.Step()
		c1 := r.items(r.next())
		r.s.Step()
		c2 := r.items(r.next())
		r.move(e, -1000)
		r.s.Step()
		back := r.items(r.next())
		var later []int
		for range 8 {
			r.s.Step()
			later = append(later, r.items(r.next())...)
		}
		p := r.h.Peer(1)
		if p.Stats().Repeats != 1 || len(p.despawns) != 1 || !p.despawns[0].back {
			t.Fatalf("%s: repeats %d, removals %+v: want one repeat before the entity came back, none after", order, p.Stats().Repeats, p.despawns)
		}
		var seq []int
		switch order {
		case "spawn first":
			seq = append(append(append(seq, back...), c1...), c2...)
		case "copy between":
			seq = append(append(append(seq, c1...), back...), c2...)
		case "copies first":
			seq = append(append(append(seq, c1...), c2...), back...)
		}
		for _, i := range append(seq, later...) {
			r.deliver(i)
		}
		r.settle()
		if _, ok := r.cw.EntityOf(id); !ok {
			t.Fatalf("%s: the client lost the entity that came back", order)
		}
		if len(p.despawns) != 0 {
			t.Fatalf("%s: removals left: %+v", order, p.despawns)
		}
	}
}

// rttOut is a rig's capture that says how long its connection takes to
// learn a datagram's fate.
type rttOut struct {
	*capture
	fate time.Duration
}

func (o rttOut) FateAfter() time.Duration { return o.fate }

// TestRemovalCopiesCoverTheRoundTrip: over a link that takes longer than
// four send ticks to learn a datagram's fate, a removal goes again at every
// send tick until its first copy's fate can be known (the round trip, the
// reorder window and the peer's acknowledgement delay), up to
// maxRemovalCopies; over a short one, minRemovalCopies.
// (Four copies at 30 Hz cover 133 ms: at 300 ms of round trip and 20% loss,
// one removal in 500 waited for its loss to be known, a shot drawn half a
// second after it hit.)
func TestRemovalCopiesCoverTheRoundTrip(t *testing.T) {
	for _, c := range []struct {
		fate time.Duration
		want int
	}{{20 * time.Millisecond, minRemovalCopies}, {125 * time.Millisecond, 8}, {time.Second, maxRemovalCopies}} {
		r := newRig(t, HostConfig{}) // 60 sends a second
		e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		r.settle()
		r.h.Peer(1).out = rttOut{capture: r.out, fate: c.fate}
		r.w.Arche().RemoveEntity(e)
		var sent []int
		for range 40 {
			r.s.Step()
			sent = append(sent, r.items(r.next())...)
		}
		if len(sent) != c.want {
			t.Errorf("fates known after %v: the removal went %d times with no fate known, want %d", c.fate, len(sent), c.want)
		}
	}
}
