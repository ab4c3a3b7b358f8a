package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// An entity kept while drawn (it left the scope) whose return's spawn is
// still on its way when the host removes it for good stays removed: the
// final removal, overtaking that spawn, raises the tombstone, so the late
// spawn is ignored (it brought the entity back for ever, a ghost the host
// no longer has).
func TestKeptEntityIsNotRevivedByAnOvertakenSpawn(t *testing.T) {
	t.Run("no DrawnObserver (control)", func(t *testing.T) { reviveGhost(t, false) })
	t.Run("DrawnObserver", func(t *testing.T) { reviveGhost(t, true) })
}

func reviveGhost(t *testing.T, drawn bool) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 500}})
	d := &drawer{removed: map[arche.Entity]int{}}
	if drawn {
		r.c.cfg.Observer = d
	}
	r.m.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	walker := r.m.NewWith(&ecs.Transform{X: 200}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	id := mustID(r.w, walker)
	if _, ok := r.cw.EntityOf(id); !ok {
		t.Fatal("the walker never reached the client")
	}
	r.move(walker, 1000) // leaves the scope: removal, kept while drawn
	r.settle()
	r.move(walker, -1000) // back: a spawn, held up on the way
	r.s.Step()
	late := r.next()
	if len(late) == 0 {
		t.Fatal("no spawn sent on the walker's return")
	}
	r.w.Arche().RemoveEntity(walker) // gone for good
	for range 10 {
		r.s.Step()
		for _, i := range r.next() {
			r.deliver(i)
		}
		r.c.Depart()
	}
	for _, i := range late { // the return's spawn arrives after all
		r.deliver(i)
	}
	r.settle()
	d.drawnTo = r.w.Frame() + 1000 // drawn past everything
	r.c.Depart()
	if _, ok := r.cw.EntityOf(id); ok {
		t.Fatalf("the client holds entity %d, which the host removed (host holds %d entities, client %d); stats %+v", id, r.w.Networked(), r.cw.Networked(), r.c.Stats())
	}
}
