package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// A full budget is spent: 1,500 entities marching at one speed (their
// items a few bits each, the velocity predicting the pose) on 64 kbit/s,
// every message delivered, take 90% of the budget or more, as sent, while
// items wait. (Choosing by priority counted 24 bits for every item's id
// gap and for the age of every baseline not the newest, and an explicit
// head for the common one: items of 5 to 15 bits were counted at 40, a
// tick kept the budget for a third of what it could send, and the
// budget's two intervals of savings overflowed: here 50% of it was spent,
// and in a rig of 1,500 marching units a player on 256 kbit/s 34%.)
func TestAFullBudgetIsSpent(t *testing.T) {
	const bits = 64_000
	r := newRig(t, HostConfig{BitsPerSecond: bits, SendEvery: 2})
	ents := r.marchers(1500)
	step := func() (spent int) {
		r.march(ents, nil)
		r.s.Step()
		for _, i := range r.next() {
			if m := r.out.msgs[i]; wire.Kind(m[0]) == wire.KindState {
				body := m[1:]
				spent += len(body) + wire.MessageOverhead(len(body)) + r.h.cfg.DatagramOverhead
			}
			r.deliver(i)
		}
		return spent
	}
	for range 120 {
		step()
	}
	spent, deferred := 0, r.h.Peer(1).Stats().Deferred
	const steps = 600 // ten seconds
	for range steps {
		spent += step()
	}
	budget := bits / 8 * steps / 60
	if r.h.Peer(1).Stats().Deferred == deferred {
		t.Fatal("nothing waited: the budget was not full, and the test tests nothing")
	}
	if spent < budget*9/10 || spent > budget*21/20 {
		t.Fatalf("a full budget of %d bytes in %d steps spent %d (%.0f%%); want 90%% of it at least, and no more than 5%% over",
			budget, steps, spent, 100*float64(spent)/float64(budget))
	}
}

// marchers spreads n entities (rig.spread) and sets them marching along x
// at 120 units a second (2 a step at 60 steps a second): march moves them.
func (r *rig) marchers(n int) []arche.Entity {
	ents := r.spread(n, 30)
	for _, e := range ents {
		_, v, _ := r.m.Get(e)
		v.X = 120
		ecs.MutateComponent(r.w, e, r.w.IDs.Velocity)
	}
	return ents
}

// march moves the marchers a step on, but those stopped says stand.
func (r *rig) march(ents []arche.Entity, stopped func(arche.Entity) bool) {
	for _, e := range ents {
		if stopped != nil && stopped(e) {
			continue
		}
		r.tf.Get(e).X += 2
		ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
	}
}
