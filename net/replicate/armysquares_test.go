package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// A peer's army of 3,000 entities in four cells has four squares, not
// 3,000: its scope's cover counts cells, its units moving between the
// cells it holds change no cover and bring nothing into or out of its
// scope, and the square of a cell goes when the last of its units leaves
// it.
func TestAnArmyHasASquarePerCell(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 200}})
	var army []arche.Entity
	for i := range 3000 {
		x, y := float64(50+100*(i%2)), float64(50+100*(i/2%2))
		army = append(army, r.m.NewWith(&ecs.Transform{X: x, Y: y}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1}))
	}
	near := r.m.NewWith(&ecs.Transform{X: 350, Y: 50}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	far := r.m.NewWith(&ecs.Transform{X: 450, Y: 50}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	r.settle()
	p := r.h.Peer(1)
	if len(p.scope.own) != 3000 || len(p.scope.cells) != 4 || len(p.scope.at) != 4 {
		t.Fatalf("3,000 owned in 4 cells: %d owned, %d cells, %d squares", len(p.scope.own), len(p.scope.cells), len(p.scope.at))
	}
	slot, _ := r.w.NetSlot(near)
	cell := r.h.ents[slot].cell
	if n := p.scope.cover[cell]; n != 2 {
		t.Fatalf("the cell 2 cells east of the army is covered %d times, want 2 (the squares of the army's 2 eastern cells)", n)
	}
	if !r.inScopeOf(1, near) || r.inScopeOf(1, far) {
		t.Fatalf("in scope: the entity 2 cells east %v (want true), 3 cells east %v (want false)", r.inScopeOf(1, near), r.inScopeOf(1, far))
	}
	// Half the army crosses between its cells: no cover changes.
	for i, e := range army[:1500] {
		r.tf.Get(e).X += float64(100 - 200*(i%2))
		ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
	}
	r.settle()
	if len(p.scope.cells) != 4 || p.scope.cover[cell] != 2 {
		t.Fatalf("after moves within its cells: %d cells, the cover 2 cells east %d", len(p.scope.cells), p.scope.cover[cell])
	}
	// Every unit of the western cells goes east by two cells: the western
	// squares go, two new ones come, and the far entity comes into scope.
	for _, e := range army {
		if tf := r.tf.Get(e); tf.X < 100 {
			tf.X += 200
			ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
		}
	}
	r.settle()
	if len(p.scope.cells) != 4 || !r.inScopeOf(1, far) {
		t.Fatalf("after the western units moved two cells east: %d cells, the far entity in scope %v", len(p.scope.cells), r.inScopeOf(1, far))
	}
	if _, held := r.cw.EntityOf(mustID(r.w, far)); !held {
		t.Error("the client does not hold the entity the army came near")
	}
}
