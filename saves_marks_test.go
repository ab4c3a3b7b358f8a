package tandem

import (
	"context"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// A game that marks its units ecs.HostMoved in Game.Arrived, as the README
// shows, marks the host's too when Arrived stands in for a nil
// Game.Restored: the saves after the restore leave the mark out (a
// client's) rather than fail on it, and the next restore marks them again.
func TestClientMarksOnTheHostDoNotStopSaves(t *testing.T) {
	g := ledgerGame()
	attach := g.Arrived
	g.Arrived = func(w *World, e arche.Entity) {
		attach(w, e)
		w.ECS.Arche().Add(e, w.ECS.IDs.HostMoved)
	}
	r := newRigOf(t, g, HostConfig{SaveTo: savePath(t)})
	r.step(5)
	if err := r.host.Save(context.Background()); err != nil {
		t.Fatalf("first save: %v", err)
	}
	for round := range 2 {
		r.restart()
		r.step(5)
		marked := 0
		r.host.Do(func(w *World) {
			tid := arche.ComponentID[tally](w.ECS.Arche())
			for s := range int32(w.ECS.NetSlots()) {
				e, _, ok := w.ECS.SlotEntity(s)
				if !ok || !w.ECS.Arche().Has(e, w.ECS.IDs.HostMoved) {
					continue
				}
				marked++
				(*tally)(w.ECS.Arche().Get(e, tid)).N++
				ecs.MutateComponent(w.ECS, e, tid)
			}
		})
		if marked == 0 {
			t.Fatalf("restore %d: Arrived marked none of the host's entities; the test needs some", round+1)
		}
		if err := r.host.Save(context.Background()); err != nil {
			t.Fatalf("restore %d: a save of %d entities marked HostMoved: %v", round+1, marked, err)
		}
	}
}
