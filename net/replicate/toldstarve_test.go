package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// unitClock is a game component that changes at every step (a cooldown, an
// animation counter): an IntegerCodec component, so always urgent, so
// eTold on every unit at every step.
type unitClock struct{ Tick int32 }

// A walking army of 200 whose every unit is told something at every step
// (a value of the game's that changes so) still takes turns in its owner's
// AuthStates: a told unit's head start is bounded, and every unit comes
// within a few sends (with told units first and ties by slot, the share
// carried the same lowest slots at every send, and the rest never again).
func TestUnitsToldAtEveryStepLeaveTheOthersTheirTurns(t *testing.T) {
	const n = 200
	r := &ownRig{rig: newRigWith(t, HostConfig{}, func(reg *Registry) { Register(reg, IntegerCodec[unitClock]("clock")) }), seen: authFrames{}}
	r.c.cfg.Auth = r.seen
	clk := arche.ComponentID[unitClock](r.w.Arche())
	for range n {
		e := r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{X: 60}, &ecs.NetworkIdentity{Owner: 1})
		r.w.Arche().Add(e, clk)
		r.owned = append(r.owned, e)
	}
	r.settle()
	tick := func() {
		for _, e := range r.owned {
			r.move(e, 1)
			(*unitClock)(r.w.Arche().Get(e, clk)).Tick++
			ecs.MutateComponent(r.w, e, clk)
		}
	}
	for range 30 {
		tick()
		r.step(false)
	}
	deferred := r.h.Peer(1).Stats().AuthDeferred
	carried := map[arche.Entity]bool{}
	const sends = 60
	for range sends {
		tick()
		f := r.step(false)
		for _, e := range r.seen[f] {
			carried[e] = true
		}
	}
	if r.h.Peer(1).Stats().AuthDeferred == deferred {
		t.Fatal("the share deferred nothing: the test tests nothing")
	}
	if len(carried) != n {
		t.Fatalf("in %d AuthStates, %d of the %d units were carried; the rest were never corrected", sends, len(carried), n)
	}
}
