package tandem

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// A client's predicted removals keep the frame an entity was first removed
// at; a replay from before a removal takes it back, one from after keeps
// it; the host's removal forgets it, and one the host did not make in time
// shows again and is counted.
func TestPredictedRemovalsAreTakenBackAndTimedOut(t *testing.T) {
	w := ecs.NewWorld()
	a := w.Arche()
	e1, e2, e3 := a.NewEntity(), a.NewEntity(), a.NewEntity()
	r := newRemovals()
	r.hide(e1, 10)
	r.hide(e1, 12) // again, in a later frame: still removed at 10
	r.hide(e2, 12)
	r.hide(e3, 11)
	r.replayBegin(11) // frames 12 on run again
	if !r.hidden(e1) || !r.hidden(e3) || r.hidden(e2) {
		t.Fatalf("after a replay from frame 11: hidden %v, %v, %v; want e1 and e3 (frames 10 and 11), not e2 (12)", r.hidden(e1), r.hidden(e2), r.hidden(e3))
	}
	a.RemoveEntity(e3) // the host's removal came
	r.tidy(w, 20, 30)
	if !r.hidden(e1) || r.hidden(e3) || r.undone != 0 {
		t.Fatalf("at frame 20: hidden %v, %v, %d undone; want e1 still waiting, e3 forgotten, none undone", r.hidden(e1), r.hidden(e3), r.undone)
	}
	r.tidy(w, 41, 30)
	if r.hidden(e1) || r.undone != 1 {
		t.Fatalf("at frame 41, 31 after its removal: e1 hidden %v, %d undone; want it shown again, 1 undone", r.hidden(e1), r.undone)
	}
	if got := removalTimeout(100*time.Millisecond, 100*time.Millisecond, ecs.DefaultStep); got < 33 || got > 34 {
		t.Errorf("the timeout at a 100 ms round trip and render delay is %d frames, want 33 (550 ms)", got)
	}
}

// On the host and alone, World.Remove removes at once.
func TestRemoveOnTheHostRemovesAtOnce(t *testing.T) {
	w := &World{ECS: ecs.NewWorld()}
	e := w.ECS.Arche().NewEntity()
	w.Remove(e)
	if w.ECS.Alive(e) || w.Removed(e) {
		t.Fatalf("after Remove on a host: alive %v, Removed %v", w.ECS.Alive(e), w.Removed(e))
	}
}
