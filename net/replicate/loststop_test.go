package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// A stop goes first, even with a full budget, and so does a lost one,
// again: a client moves a silent entity on by the velocity it holds while
// the host says the budget holds changes back, so a stop left to wait its
// turn drew the entity running on. (Among 300 others marching on a budget
// that sends a few dozen a tick, the stop went 44 send ticks after it
// happened, at the top but taking turns with every item that had waited
// longest. A lost one is listed again first, not at the bottom.)
func TestAStopGoesFirstAndALostOneAgain(t *testing.T) {
	for _, lost := range []bool{false, true} {
		if ticks := stopLatency(t, lost); ticks > 2 {
			t.Fatalf("lost %v: the stop reached the client %d send ticks after it (or its loss) was known; want at the next", lost, ticks)
		}
	}
}

// stopLatency is TestAStopGoesFirstAndALostOneAgain's run: the send ticks
// from an entity's stop (or the loss of the tick that carried it) until
// its client holds it stopped.
func stopLatency(t *testing.T, lost bool) int {
	r := newRig(t, HostConfig{BitsPerSecond: 24_000, SendEvery: 1})
	ents := r.marchers(300)
	stopper := ents[len(ents)/2]
	march := func() { r.march(ents, func(e arche.Entity) bool { return e == stopper && r.tf.Get(e).X > 1e6 }) }
	for range 120 {
		march()
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
	}
	// The stop: its velocity zero, and it stays put from now on.
	_, v, _ := r.m.Get(stopper)
	*v = ecs.Velocity{}
	r.tf.Get(stopper).X = 2e6
	ecs.MutateComponent(r.w, stopper, r.w.IDs.Velocity)
	ecs.MutateComponent(r.w, stopper, r.w.IDs.Transform)
	march()
	r.s.Step()
	for _, i := range r.next() {
		if lost {
			r.lose(i) // the tick of the stop is lost
		} else {
			r.deliver(i)
		}
	}
	ticks := 0
	for ; ticks < 60 && r.clientX(stopper) != 2e6; ticks++ {
		march()
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
	}
	return ticks
}
