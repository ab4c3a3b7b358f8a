package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// drawer is a client DrawnObserver that draws every entity until told the
// frame it has drawn to, and counts the removals it hears of.
type drawer struct {
	drawnTo ecs.Frame
	removed map[arche.Entity]int
}

func (d *drawer) Applied(arche.Entity, ecs.Frame) {}
func (d *drawer) Removed(e arche.Entity)          { d.removed[e]++ }
func (d *drawer) Drawing(_ arche.Entity, f ecs.Frame) bool {
	return d.drawnTo < f
}

// A removed entity the Observer still draws stays in the client's world,
// its removal's later copies ignored, until the Observer has drawn it to
// the removal's frame; then Depart removes it, once. One that comes back
// into scope while kept (a newer spawn) stays.
func TestRemovalWaitsUntilDrawn(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}})
	d := &drawer{removed: map[arche.Entity]int{}}
	r.c.cfg.Observer = d
	r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	shot := r.m.NewWith(&ecs.Transform{X: 100}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	walker := r.m.NewWith(&ecs.Transform{X: 200}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	shotID, walkerID := mustID(r.w, shot), mustID(r.w, walker)
	ce, ok := r.cw.EntityOf(shotID)
	if !ok {
		t.Fatal("the shot never reached the client")
	}
	r.w.Arche().RemoveEntity(shot)
	removedAt := r.w.Frame() + 1 // the step that finds it removed
	r.move(walker, 1000)         // out of scope: removed from the client
	for range 20 {               // the removals and their copies arrive
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
		r.c.Depart()
	}
	if !r.cw.Arche().Alive(ce) || d.removed[ce] != 0 {
		t.Fatalf("the shot, removed by the host and not yet drawn to it, is gone from the client (alive %v, removed %d times)", r.cw.Arche().Alive(ce), d.removed[ce])
	}
	we, ok := r.cw.EntityOf(walkerID)
	if !ok {
		t.Fatal("the walker that left the scope, not yet drawn to its removal, is gone from the client")
	}
	dep := generic.NewMap[ecs.Departing](r.cw.Arche())
	if !dep.Has(ce) || !dep.Has(we) {
		t.Fatalf("kept entities marked Departing: the shot %v, the walker %v; want both", dep.Has(ce), dep.Has(we))
	}
	if f := dep.Get(ce).Frame; f != removedAt {
		t.Fatalf("the shot is marked Departing at frame %d, removed at %d", f, removedAt)
	}
	r.move(walker, -1000) // back into scope before it was drawn gone
	r.settle()
	if dep.Has(we) {
		t.Fatal("the walker, back in scope, is still marked Departing")
	}
	d.drawnTo = removedAt - 1
	r.c.Depart()
	if !r.cw.Arche().Alive(ce) {
		t.Fatal("the shot went before it was drawn to its removal")
	}
	d.drawnTo = r.w.Frame()
	r.c.Depart()
	if r.cw.Arche().Alive(ce) || d.removed[ce] != 1 {
		t.Fatalf("drawn past its removal, the shot is alive %v, removed %d times; want gone, once", r.cw.Arche().Alive(ce), d.removed[ce])
	}
	if we, ok := r.cw.EntityOf(walkerID); !ok || d.removed[we] != 0 {
		t.Fatalf("the walker, back in scope, is held %v, removed %d times: it should have stayed", ok, d.removed[we])
	}
	if st := r.c.Stats(); st.Departed != 1 || r.cw.Networked() != r.w.Networked() {
		t.Fatalf("%d removals carried out once drawn (want 1); the client holds %d entities, the host %d", st.Departed, r.cw.Networked(), r.w.Networked())
	}
}
