package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// stateFrames is a client Observer that keeps the frames of the states
// applied to each entity.
type stateFrames map[arche.Entity][]ecs.Frame

func (s stateFrames) Applied(e arche.Entity, f ecs.Frame) { s[e] = append(s[e], f) }
func (s stateFrames) Removed(arche.Entity)                {}

// A shot that lives four frames, sent every second one, reaches the client
// in two states at least (its spawn and its flight), so it is drawn moving,
// while movers that waited long fill the budget: a new entity's first
// changes go at the top, as its spawn did. (Its change waited behind the
// movers, at the bottom of what was due, and the removal came first: the
// client drew the shot still for its whole life.)
func TestAYoungEntitysChangesGoWithItsSpawn(t *testing.T) {
	r := newRig(t, HostConfig{BitsPerSecond: 48_000, SendEvery: 2})
	seen := stateFrames{}
	r.c.cfg.Observer = seen
	var movers []arche.Entity
	for i := range 200 {
		movers = append(movers, r.m.NewWith(&ecs.Transform{X: float64(i)}, &ecs.Velocity{}, &ecs.NetworkIdentity{}))
	}
	step := func() {
		for _, e := range movers {
			r.move(e, 50)
		}
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
	}
	for range 600 { // all in, then the movers fill the budget
		step()
	}
	if r.h.Peer(1).Stats().Deferred == 0 {
		t.Fatal("nothing waited for the budget: the test did not fill it")
	}
	one, shots := 0, 0
	for range 20 {
		shot := r.m.NewWith(&ecs.Transform{X: -100}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		id := mustID(r.w, shot)
		var ce arche.Entity
		for range 4 {
			step()
			r.move(shot, 10)
			if e, ok := r.cw.EntityOf(id); ok {
				ce = e
			}
		}
		r.w.Arche().RemoveEntity(shot)
		step()
		step()
		if ce == (arche.Entity{}) {
			continue // never reached the client: its spawn waited too
		}
		shots++
		if len(seen[ce]) < 2 {
			one++
		}
	}
	t.Logf("of 20 shots, %d reached the client, %d in one state only; deferred %d", shots, one, r.h.Peer(1).Stats().Deferred)
	if shots < 15 || one > 0 {
		t.Fatalf("of 20 shots of four frames, %d reached the client, %d in one state only: drawn still", shots, one)
	}
}
