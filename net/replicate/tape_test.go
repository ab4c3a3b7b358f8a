package replicate

import (
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// fatedOut is an Out that hashes what it is given and decides each
// datagram's fate by its own seeded rules: lost with probability loss, and
// its notice given delay steps after it was sent.
type fatedOut struct {
	rng       *rand.Rand
	loss      float64
	delay     int
	failEvery int // every failEvery-th datagram is refused (0: none)
	pending   []tapeFate
	sum       uint64
	sent      int
	refused   int
	now       int // the step being taken
}

type tapeFate struct {
	at        int
	token     uint32
	delivered bool
}

func (o *fatedOut) QueueDatagram(kind wire.Kind, p []byte, token uint32) error {
	f := fnv.New64a()
	f.Write([]byte{byte(kind), byte(token), byte(token >> 8)})
	f.Write(p)
	o.sum = o.sum*31 + f.Sum64()
	o.sent++
	if o.failEvery > 0 && o.sent%o.failEvery == 0 {
		o.refused++
		return errRefusedForTest
	}
	if token != 0 {
		o.pending = append(o.pending, tapeFate{at: o.now + o.delay, token: token, delivered: o.rng.Float64() >= o.loss})
	}
	return nil
}

// errRefusedForTest is the error of a datagram fatedOut refuses.
var errRefusedForTest = errors.New("refused by the test's connection")

func (o *fatedOut) SendLane(transport.Lane, []byte) error { return nil }
func (o *fatedOut) LaneBuffered(transport.Lane) int       { return 0 }

// tapeRun is one host and its peers, stepped for TestTapedPackingIsFullPacking.
type tapeRun struct {
	h     *HostReplicator
	sched *ecs.Schedule
	outs  []*fatedOut
	steps int
}

func newTapeRun(off bool) *tapeRun {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	mv := newMover(w, 3, 9)
	for range 300 {
		mv.live = append(mv.live, mv.m.NewWith(&ecs.Transform{X: mv.rng.Float64() * 500}, &ecs.Velocity{X: mv.rng.NormFloat64() * 100}, &ecs.NetworkIdentity{}))
	}
	r := &tapeRun{h: NewHost(reg, HostConfig{BitsPerSecond: 90_000})}
	r.h.tape.off = off
	// Now and then an entity is given to peer 3 and taken back, so that
	// changes of a peer's own entities come and go.
	reown := ecs.SystemFunc(func(w *ecs.World) {
		if f := w.Frame(); f%50 == 10 && len(mv.live) > 0 {
			ecs.SetOwner(w, mv.live[int(f/50)%len(mv.live)], 3)
		} else if f%50 == 40 {
			for _, e := range w.Owned(3) {
				ecs.SetOwner(w, e, ecs.HostPeer)
			}
		}
	})
	r.sched = ecs.NewSchedule(w, nil, 0)
	r.sched.Add("move", mv).Add("reown", reown).Add("replicate", r.h)
	// Peers 1, 2, 4 and 7 acknowledge everything by the next step; 5 loses
	// some; 6 hears late.
	for i, rule := range []struct {
		loss  float64
		delay int
	}{{0, 0}, {0, 0}, {0, 0}, {0, 0}, {0.03, 0}, {0, 3}, {0, 0}} {
		o := &fatedOut{rng: rand.New(rand.NewPCG(uint64(i), 1)), loss: rule.loss, delay: rule.delay}
		r.outs = append(r.outs, o)
		r.h.AddPeer(ecs.PeerID(i+1), o)
	}
	return r
}

func (r *tapeRun) step() {
	r.steps++
	for _, o := range r.outs {
		o.now = r.steps
	}
	r.sched.Step()
	for i, o := range r.outs {
		keep := o.pending[:0]
		for _, f := range o.pending {
			if f.at > r.steps {
				keep = append(keep, f)
				continue
			}
			if f.delivered {
				r.h.Delivered(ecs.PeerID(i+1), f.token)
			} else {
				r.h.Lost(ecs.PeerID(i+1), f.token)
			}
		}
		o.pending = keep
	}
}

// TestTapedPackingIsFullPacking checks that a peer packed from the tape of
// the peer before it ends in exactly the state, with exactly the messages,
// that packing it in full gives: the same host run twice, with and without
// tapes, through spawns, removals, changes of owner, losses, late notices
// and ticks short of budget.
func TestTapedPackingIsFullPacking(t *testing.T) {
	taped, full := newTapeRun(false), newTapeRun(true)
	for range 1500 {
		taped.step()
		full.step()
	}
	for i := range taped.outs {
		id := ecs.PeerID(i + 1)
		a, b := taped.h.Peer(id), full.h.Peer(id)
		if taped.outs[i].sum != full.outs[i].sum || taped.outs[i].sent != full.outs[i].sent {
			t.Errorf("peer %d: %d datagrams taped, %d in full, or their bytes differ", id, taped.outs[i].sent, full.outs[i].sent)
		}
		if a.Stats() != b.Stats() {
			t.Errorf("peer %d: stats\n taped %+v\n full  %+v", id, a.Stats(), b.Stats())
		}
		if !slices.Equal(a.slots, b.slots) || !slices.Equal(a.dirty, b.dirty) || !slices.Equal(a.despawns, b.despawns) ||
			a.tokens != b.tokens || a.pk.avgBits != b.pk.avgBits || a.pk.gapBits != b.pk.gapBits || a.turn != b.turn || a.turnFrom != b.turnFrom {
			t.Errorf("peer %d: state differs", id)
		}
		for k := range a.wheel {
			if !slices.Equal(a.wheel[k], b.wheel[k]) {
				t.Errorf("peer %d: wheel bucket %d differs", id, k)
			}
		}
	}
	tp := &taped.h.tape
	t.Logf("taped: %d packings followed a tape, %d tapes kept; %d send ticks", tp.followed, tp.kept, taped.h.tick)
	if tp.followed < uint64(taped.h.tick) || full.h.tape.followed != 0 {
		t.Errorf("followed %d tapes in %d send ticks (full: %d): the test does not test what it says", tp.followed, taped.h.tick, full.h.tape.followed)
	}
	if st := taped.h.Peer(1).Stats(); st.Deferred == 0 || st.Despawns == 0 || st.Resent != 0 {
		t.Errorf("peer 1: %+v: the budget never ran short, nothing was removed, or it lost", st)
	}
	if taped.h.Peer(5).Stats().Resent == 0 {
		t.Error("peer 5 lost nothing")
	}
}
