package replicate

import (
	"errors"
	"math/rand/v2"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// fullQueueOut captures messages, and refuses them at once while refuse is
// set (a full queue: the record's items are lost at once).
type fullQueueOut struct {
	capture
	refuse bool
}

func (o *fullQueueOut) QueueDatagram(kind wire.Kind, payload []byte, token uint32) error {
	if o.refuse {
		return errors.New("queue full")
	}
	return o.capture.QueueDatagram(kind, payload, token)
}

// Entities going in and out of the peer's scope, removed and made again,
// their messages' fates late, out of order, lost or refused at once: after
// every step and every fate each removal counts exactly the copies of it in
// flight (at most removalCopies), one taken back stays flying, no copy
// goes while its entity is in scope; and after a quiet, lossless while no
// removal is left and the client holds exactly what is in scope.
func TestRemovalLifeCycle(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		removalLife(t, seed, 6)
		if t.Failed() {
			return
		}
	}
}

// The same with enough entities that the peer's queue of removals is found
// by its index (past removalScan), which must follow the queue through
// every change.
func TestRemovalLifeCycleIndexed(t *testing.T) {
	indexed := false
	for seed := uint64(1); seed <= 6; seed++ {
		indexed = removalLife(t, seed, 4*removalScan) || indexed
		if t.Failed() {
			return
		}
	}
	if !indexed {
		t.Fatalf("no run queued more than %d removals: the index was never used", removalScan)
	}
}

// removalLife is one run of TestRemovalLifeCycle with n entities going in
// and out of scope; it reports whether the queue of removals was ever found
// by its index.
func removalLife(t *testing.T, seed uint64, n int) (indexed bool) {
	rng := rand.New(rand.NewPCG(seed, 7))
	w, h, s, m := scopedHost()
	creg := NewRegistry(ecs.NewWorld())
	tf := generic.NewMap[ecs.Transform](w.Arche())
	c := newTestClient(creg, ClientConfig{Local: 1})
	out := &fullQueueOut{}
	h.AddPeer(1, out)
	s.Step()
	for _, l := range out.lane {
		if _, err := c.HandleLane(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Pump(); err != nil || !c.Joined() {
		t.Fatalf("join: %v", err)
	}
	m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	var ents []arche.Entity
	for range n {
		ents = append(ents, m.NewWith(&ecs.Transform{X: 100}, &ecs.Velocity{}, &ecs.NetworkIdentity{}))
	}
	p := h.Peer(1)
	type fate struct {
		i, at     int
		delivered bool
	}
	var pending []fate
	seen := 0
	slotOf := func(id ecs.NetID) int {
		for i, x := range h.ids {
			if x == id {
				return i
			}
		}
		return -1
	}
	check := func(step int, when string) {
		t.Helper()
		if ix := &p.rmIndex; ix.valid {
			indexed = true
			if ix.at.len() != len(p.despawns) {
				t.Fatalf("seed %d step %d %s: the index holds %d removals, the queue %d", seed, step, when, ix.at.len(), len(p.despawns))
			}
			for i, d := range p.despawns {
				if at, ok := ix.at.get(d.id); !ok || int(at) != i {
					t.Fatalf("seed %d step %d %s: the index has removal %d at %d (%v), the queue at %d", seed, step, when, d.id, at, ok, i)
				}
			}
		}
		for _, d := range p.despawns {
			if d.back && !d.flying {
				t.Fatalf("seed %d step %d %s: back without flying: %+v", seed, step, when, d)
			}
			if d.copies > p.removalCopies() {
				t.Fatalf("seed %d step %d %s: copies %d > max: %+v", seed, step, when, d.copies, d)
			}
			n := 0
			rs := &p.recs
			for tok := rs.oldest; tok != rs.next; tok++ {
				r := rs.get(tok)
				if r == nil || r.auth || d.from == 0 || r.frame < d.from || r.frame > d.at {
					continue
				}
				for k := range r.n {
					if it := rs.item(r, k); it.kind == itemDespawn && it.id == d.id {
						n++
					}
				}
			}
			if n != int(d.copies) {
				t.Fatalf("seed %d step %d %s: entry %+v counts %d copies, %d in flight", seed, step, when, d, d.copies, n)
			}
		}
	}
	step := 0
	run := func(n int, churn bool, lossy bool) {
		for range n {
			step++
			if churn {
				for i, e := range ents {
					if !w.Arche().Alive(e) {
						if rng.IntN(10) == 0 {
							ents[i] = m.NewWith(&ecs.Transform{X: 100}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
						}
						continue
					}
					switch rng.IntN(12) {
					case 0, 1:
						if tf.Get(e).X > 500 {
							tf.Get(e).X = 100
						} else {
							tf.Get(e).X = 1000
						}
						ecs.MutateComponent(w, e, w.IDs.Transform)
					case 2:
						w.Arche().RemoveEntity(e)
					}
				}
			}
			out.refuse = lossy && rng.IntN(15) == 0
			s.Step()
			// Removal copies sent this step: none for an entity in scope.
			for ; seen < len(out.msgs); seen++ {
				tok := out.tokens[seen]
				if r := p.recs.get(tok); r != nil {
					for k := range r.n {
						it := p.recs.item(r, k)
						if it.kind != itemDespawn {
							continue
						}
						if sl := slotOf(it.id); sl >= 0 && p.slots[sl].flags&fOut == 0 {
							t.Fatalf("seed %d step %d: removal of %d sent while it is in the peer's scope", seed, step, it.id)
						}
					}
				}
				delay := 1 + rng.IntN(6)
				pending = append(pending, fate{i: seen, at: step + delay, delivered: !lossy || rng.IntN(4) != 0})
			}
			check(step, "after step")
			keep := pending[:0]
			rng.Shuffle(len(pending), func(a, b int) { pending[a], pending[b] = pending[b], pending[a] })
			for _, f := range pending {
				if f.at > step {
					keep = append(keep, f)
					continue
				}
				tok := out.tokens[f.i]
				if f.delivered {
					msg := out.msgs[f.i]
					if _, err := c.HandleDatagram(wire.Kind(msg[0]), msg[1:]); err != nil {
						t.Fatalf("seed %d: %v", seed, err)
					}
					if tok != 0 {
						h.Delivered(1, tok)
					}
				} else if tok != 0 {
					h.Lost(1, tok)
				}
				check(step, "after a fate")
			}
			pending = keep
		}
	}
	run(300, true, true)
	run(200, false, false)
	if len(p.despawns) != 0 {
		t.Fatalf("seed %d: removals left after a quiet, lossless while: %+v", seed, p.despawns)
	}
	// The client holds what is in scope, no more.
	for i, id := range h.ids {
		if id == 0 || i == 0 {
			continue
		}
		_, held := c.w.EntityOf(id)
		in := p.slots[i].flags&fOut == 0
		if held != in {
			t.Fatalf("seed %d: entity %d in scope %v, held by the client %v", seed, id, in, held)
		}
	}
	checkOwned(t, h)
	st := p.Stats()
	t.Logf("seed %d: despawns %d repeats %d resent %d", seed, st.Despawns, st.Repeats, st.Resent)
	return indexed
}
