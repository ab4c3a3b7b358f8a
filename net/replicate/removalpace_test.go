package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Removals keep pace with a storm of short-lived shots on a full budget:
// 1,000 weaving figures and 16 shots a step (960 a second, each living 90
// steps) keep 64 kbit/s full, and every removal of a shot the client held
// reaches it within a quarter of a second. (Each removal's id gap was
// counted at 24 bits where it took a few: the half of the budget kept for
// removals sent fewer than came, those waiting grew older and their ages
// longer, and a removal reached the client up to 236 steps late, its shot
// drawn flying on meanwhile.)
func TestRemovalsKeepPaceWithShotsOnAFullBudget(t *testing.T) {
	const (
		bits    = 64_000
		perStep = 16
		life    = 90
		steps   = 600
		late    = 15 // steps: a quarter of a second
	)
	r := newRig(t, HostConfig{BitsPerSecond: bits, SendEvery: 2})
	marchers := r.marchers(1000)
	type shot struct {
		e    arche.Entity
		id   ecs.NetID
		born int
	}
	var live []shot
	removedAt := map[ecs.NetID]int{} // shots removed, by the step of their removal
	held := map[ecs.NetID]bool{}     // shots the client ever held
	worst, deferred := 0, r.h.Peer(1).Stats().Deferred
	for step := range steps + 120 {
		for i, e := range marchers { // weaving: no velocity predicts them
			r.tf.Get(e).Y += float64(((step+i)%7 - 3) * 10)
			ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
		}
		kept := live[:0]
		for _, s := range live {
			if step-s.born < life {
				r.tf.Get(s.e).X += 10
				ecs.MutateComponent(r.w, s.e, r.w.IDs.Transform)
				kept = append(kept, s)
				continue
			}
			removedAt[s.id] = step
			r.w.Arche().RemoveEntity(s.e)
		}
		live = kept
		if step < steps {
			for i := range perStep {
				e := r.m.NewWith(&ecs.Transform{X: float64(i * 40), Y: 5000}, &ecs.Velocity{X: 600}, &ecs.NetworkIdentity{})
				live = append(live, shot{e: e, id: mustID(r.w, e), born: step})
			}
		}
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
		for id, at := range removedAt {
			if _, ok := r.cw.EntityOf(id); ok {
				held[id] = true
				if step-at > late {
					worst = max(worst, step-at)
				}
				continue
			}
			delete(removedAt, id)
		}
		for _, s := range live {
			if _, ok := r.cw.EntityOf(s.id); ok {
				held[s.id] = true
			}
		}
	}
	if r.h.Peer(1).Stats().Deferred == deferred {
		t.Fatal("nothing waited: the budget was not full, and the test tests nothing")
	}
	if len(held) < steps*perStep/2 {
		t.Fatalf("the client held %d of %d shots: too few to tell", len(held), steps*perStep)
	}
	if worst > 0 {
		t.Errorf("a removed shot stayed on the client %d steps after its removal (of %d shots it held); want %d at most", worst, len(held), late)
	}
	if n := len(removedAt); n != 0 {
		t.Errorf("%d removed shots are still held 120 steps after the last was made", n)
	}
}
