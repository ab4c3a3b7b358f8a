package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// A removal tells the client the frame the entity went, not the frame of
// the message that carried it: one made in a step without a send tick, and
// one whose first copies were lost, are both drawn to the frame of their
// removal (ecs.Departing.Frame). (The message's frame drew a shot a frame
// past its hit, and two more for each copy lost.)
func TestARemovalCarriesItsFrame(t *testing.T) {
	for _, tc := range []struct {
		name string
		lost int // send ticks whose messages are lost after the removal
	}{{"between send ticks", 0}, {"first copies lost", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, HostConfig{SendEvery: 2})
			r.c.cfg.Observer = &drawer{removed: map[arche.Entity]int{}}
			shot := r.m.NewWith(&ecs.Transform{X: 100}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
			r.settle()
			id := mustID(r.w, shot)
			ce, ok := r.cw.EntityOf(id)
			if !ok {
				t.Fatal("the shot never reached the client")
			}
			if r.w.Frame()%2 != 0 {
				r.run(1) // the next step is a send tick's: remove the shot in the step before it
			}
			r.w.Arche().RemoveEntity(shot)
			removedAt := r.w.Frame() + 1 // the step that finds it removed
			sends := 0
			for range 40 {
				r.s.Step()
				for _, i := range r.next() {
					if sends < tc.lost {
						r.lose(i)
						sends++
						continue
					}
					r.deliver(i)
				}
			}
			if sends != tc.lost {
				t.Fatalf("%d messages lost, want %d", sends, tc.lost)
			}
			dep := generic.NewMap[ecs.Departing](r.cw.Arche())
			if !r.cw.Arche().Alive(ce) || !dep.Has(ce) {
				t.Fatal("the shot, not drawn to its removal, is not kept Departing")
			}
			if f := dep.Get(ce).Frame; f != removedAt {
				t.Fatalf("the shot is marked Departing at frame %d, removed at %d", f, removedAt)
			}
		})
	}
}

// An entity taken out of a peer's scope between steps (Focus elsewhere) is
// in it until the next step, whose frame its removal carries (it carried
// the frame of the step before, drawn a frame short).
func TestARemovalBetweenStepsIsOfTheNextStep(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 300}})
	r.c.cfg.Observer = &drawer{removed: map[arche.Entity]int{}}
	e := r.m.NewWith(&ecs.Transform{X: 100}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	ce, ok := r.cw.EntityOf(mustID(r.w, e))
	if !ok {
		t.Fatal("the entity never reached the client")
	}
	last := r.w.Frame()
	r.h.Focus(1, 50_000, 0)
	r.run(10)
	dep := generic.NewMap[ecs.Departing](r.cw.Arche())
	if !dep.Has(ce) {
		t.Fatal("the entity out of scope is not kept Departing")
	}
	if f := dep.Get(ce).Frame; f != last+1 {
		t.Errorf("out of scope between steps %d and %d, the entity is Departing at frame %d", last, last+1, f)
	}
}
