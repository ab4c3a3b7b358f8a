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

// The host's ecs.HostMoved marks are saved: a game that marks its units
// where it makes them on the host and has a Game.Restored of its own that
// does not (a strategy-game trial's) finds them marked after a restart
// (before, none were, and their states went to their owner by the costlier
// way of a predicted entity's), and one whose Restored marks them too does
// not panic on a mark added twice.
func TestHostMovedMarksAreSaved(t *testing.T) {
	for _, marks := range []bool{false, true} {
		g := ledgerGame()
		setup := g.Setup
		g.Setup = func(w *World) {
			setup(w)
			if w.Role == Joined || w.Restoring {
				return
			}
			a := w.ECS.Arche()
			for s := range int32(w.ECS.NetSlots()) {
				if e, _, ok := w.ECS.SlotEntity(s); ok && !a.Has(e, w.ECS.IDs.Interpolated) {
					a.Add(e, w.ECS.IDs.HostMoved) // the units: not the players
				}
			}
		}
		g.Restored = func(w *World, e arche.Entity) {
			w.Physics.AttachCircle(e, 10, floor)
			if a := w.ECS.Arche(); marks && !a.Has(e, w.ECS.IDs.Interpolated) {
				a.Add(e, w.ECS.IDs.HostMoved)
			}
		}
		r := newRigOf(t, g, HostConfig{SaveTo: savePath(t)})
		r.step(5)
		count := func() (marked int) {
			r.host.Do(func(w *World) {
				for s := range int32(w.ECS.NetSlots()) {
					if e, _, ok := w.ECS.SlotEntity(s); ok && w.ECS.Arche().Has(e, w.ECS.IDs.HostMoved) {
						marked++
					}
				}
			})
			return marked
		}
		before := count()
		if before != 5 {
			t.Fatalf("the host marked %d units, want 5", before)
		}
		if err := r.host.Save(context.Background()); err != nil {
			t.Fatalf("save: %v", err)
		}
		r.restart()
		r.step(5)
		if after := count(); after != before {
			t.Errorf("Restored marking them %v: %d units marked after the restart, %d before", marks, after, before)
		}
		if err := r.host.Save(context.Background()); err != nil {
			t.Fatalf("a save after the restore: %v", err)
		}
	}
}
