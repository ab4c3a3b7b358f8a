package replicate

import (
	"errors"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// A removed entity kept while drawn makes room at ClientConfig.MaxEntities:
// a host at the client's bound that removes one entity and makes another
// in the same step (a shot replaced by the next) goes on, where the kept
// one made the new spawn ErrTooManyEntities and ended the session; the host
// never holds more than the bound.
func TestKeptRemovalsMakeRoomAtTheBound(t *testing.T) {
	t.Run("no DrawnObserver (control)", func(t *testing.T) { keptMax(t, false) })
	t.Run("DrawnObserver", func(t *testing.T) { keptMax(t, true) })
}

func keptMax(t *testing.T, drawn bool) {
	r := newRig(t, HostConfig{})
	if drawn {
		r.c.cfg.Observer = &drawer{removed: map[arche.Entity]int{}}
	}
	var shots []arche.Entity
	for i := range 3 {
		shots = append(shots, r.m.NewWith(&ecs.Transform{X: float64(10 * i)}, &ecs.Velocity{}, &ecs.NetworkIdentity{}))
	}
	r.settle()
	if r.cw.Networked() != 3 {
		t.Fatalf("client holds %d, want 3", r.cw.Networked())
	}
	r.c.cfg.MaxEntities = 3 // the game's world never holds more than 3
	r.w.Arche().RemoveEntity(shots[0])
	r.m.NewWith(&ecs.Transform{X: 50}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	if r.w.Networked() != 3 {
		t.Fatalf("host holds %d", r.w.Networked())
	}
	r.s.Step()
	for _, i := range r.next() {
		m := r.out.msgs[i]
		if _, err := r.c.HandleDatagram(wire.Kind(m[0]), m[1:]); err != nil {
			if errors.Is(err, ErrTooManyEntities) {
				t.Fatalf("host holds 3 (the bound), client refused the state: %v; client holds %d (kept %d)", err, r.cw.Networked(), len(r.c.leaving))
			}
			t.Fatal(err)
		}
	}
}
