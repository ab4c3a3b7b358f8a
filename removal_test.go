package tandem

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
)

// A client's predicted removals keep the frame an entity was first removed
// at; a replay from before a removal a replayed frame made takes it back,
// not one an ordinary step made nor one of a frame the replay does not
// run again; the host's removal forgets it (the entity gone) or ends its
// wait (kept while drawn to it: still hidden), and one the host did not
// make in time shows again and is counted.
func TestPredictedRemovalsAreTakenBackAndTimedOut(t *testing.T) {
	w := ecs.NewWorld()
	a := w.Arche()
	clk := clock.NewFake(time.Unix(0, 0))
	e1, e2, e3, e4, e5 := a.NewEntity(), a.NewEntity(), a.NewEntity(), a.NewEntity(), a.NewEntity()
	r := newRemovals(clk)
	r.hide(e1, 10)
	r.hide(e1, 12) // again, in a later frame: still removed at 10
	r.hide(e2, 12) // an ordinary step's
	r.replayBegin(8)
	r.hide(e3, 11) // a replayed frame's
	r.hide(e4, 12)
	r.replayEnd()
	r.replayBegin(11) // frames 12 on run again
	r.replayEnd()
	if !r.hidden(e1) || !r.hidden(e2) || !r.hidden(e3) || r.hidden(e4) {
		t.Fatalf("after a replay from frame 11: hidden %v, %v, %v, %v; want all but e4 (a replayed frame 12's)", r.hidden(e1), r.hidden(e2), r.hidden(e3), r.hidden(e4))
	}
	a.RemoveEntity(e3)         // the host's removal came
	a.Add(e2, w.IDs.Departing) // the host's removal came, drawn to it
	clk.Advance(400 * time.Millisecond)
	r.hide(e5, 13) // later
	r.tidy(w, 500*time.Millisecond)
	if !r.hidden(e1) || !r.hidden(e2) || r.hidden(e3) || r.undone != 0 {
		t.Fatalf("400 ms on: hidden %v, %v, %v, %d undone; want e1 still waiting, e2 hidden while drawn to its removal, e3 forgotten, none undone", r.hidden(e1), r.hidden(e2), r.hidden(e3), r.undone)
	}
	clk.Advance(200 * time.Millisecond)
	r.tidy(w, 500*time.Millisecond)
	if r.hidden(e1) || !r.hidden(e2) || !r.hidden(e5) || r.undone != 1 {
		t.Fatalf("600 ms on: hidden %v, %v, %v, %d undone; want e1 shown again (1 undone), e2 hidden (its removal came), e5 still waiting", r.hidden(e1), r.hidden(e2), r.hidden(e5), r.undone)
	}
	if got := removalTimeout(100*time.Millisecond, 100*time.Millisecond); got != 550*time.Millisecond {
		t.Errorf("the timeout at a 100 ms round trip and render delay is %v, want 550ms", got)
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
