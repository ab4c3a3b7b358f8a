package tandem

import (
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// A client's predicted removals keep the frame an entity was first removed
// at; a replay from before a removal a replayed frame made takes it back,
// not one an ordinary step made nor one of a frame the replay does not
// run again; the host's removal forgets it (the entity gone) or ends its
// wait (kept while drawn to it: still hidden), and one the host did not
// make in time, or whose departure it took back, shows again and is
// counted.
func TestPredictedRemovalsAreTakenBackAndTimedOut(t *testing.T) {
	w := ecs.NewWorld()
	a := w.Arche()
	clk := clock.NewFake(time.Unix(0, 0))
	e1, e2, e3, e4, e5 := a.NewEntity(), a.NewEntity(), a.NewEntity(), a.NewEntity(), a.NewEntity()
	r := newRemovals(clk, nil)
	r.hide(e1, 10)
	r.hide(e1, 12) // again, in a later frame: still removed at 10
	r.hide(e2, 12) // an ordinary step's
	r.replayBegin(8, false)
	r.hide(e3, 11) // a replayed frame's
	r.hide(e4, 12)
	r.replayEnd()
	r.replayBegin(11, false) // frames 12 on run again
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
	// e2's departure taken back (it came back into the client's scope:
	// the host holds it): shown again, and refused, as e1 is.
	a.Remove(e2, w.IDs.Departing)
	r.tidy(w, 500*time.Millisecond)
	_, refused1 := r.refused[e1]
	_, refused2 := r.refused[e2]
	if r.hidden(e2) || r.undone != 2 || !refused1 || !refused2 {
		t.Fatalf("e2 back in scope: hidden %v, %d undone, refused %v, %v; want shown, 2 undone, both refused", r.hidden(e2), r.undone, refused1, refused2)
	}
	if got := removalTimeout(100*time.Millisecond, 100*time.Millisecond); got != 550*time.Millisecond {
		t.Errorf("the timeout at a 100 ms round trip and render delay is %v, want 550ms", got)
	}
}

// On the host and alone, World.Remove removes at once; called under a
// query (a system removing what it iterates, which arche refuses), once
// the system returns, Removed saying so meanwhile. Remove of a dead entity
// does nothing, on a client too (it panicked there).
func TestRemoveOnTheHostRemovesAtOnce(t *testing.T) {
	w := &World{ECS: ecs.NewWorld()}
	e := w.ECS.Arche().NewEntity(w.ECS.IDs.Transform)
	w.Remove(e)
	if w.ECS.Alive(e) || w.Removed(e) {
		t.Fatalf("after Remove on a host: alive %v, Removed %v", w.ECS.Alive(e), w.Removed(e))
	}
	e = w.ECS.Arche().NewEntity(w.ECS.IDs.Transform)
	q := w.ECS.Arche().Query(arche.All(w.ECS.IDs.Transform))
	for q.Next() {
		w.Remove(q.Entity())
	}
	if !w.ECS.Alive(e) || !w.Removed(e) {
		t.Fatalf("after Remove under a query: alive %v, Removed %v; want both until the system returns", w.ECS.Alive(e), w.Removed(e))
	}
	w.ECS.FlushRemovals() // as the schedule does when the system returns
	if w.ECS.Alive(e) || w.Removed(e) {
		t.Fatalf("once the system returned: alive %v, Removed %v", w.ECS.Alive(e), w.Removed(e))
	}
	// A handle to an entity gone already (a target kept across frames) is
	// left alone, on a client too.
	w.Remove(e)
	w.removals = newRemovals(clock.NewFake(time.Unix(0, 0)), nil)
	w.Remove(e)
	if w.Removed(e) {
		t.Fatal("a client's Remove of a dead entity hid it")
	}
}

// A hidden entity's body is out of the physics from its removal's frame:
// a replay from before that frame steps it solid in the replayed frames
// before it and out from it on, as they first ran; a removal the replay
// takes back leaves it solid, and so does one the host did not make in
// time.
func TestPredictedRemovalsTakeTheirBodiesOutOfThePhysics(t *testing.T) {
	w := ecs.NewWorld()
	sp := physics.New(w, physics.Config{})
	body := func(x float64) arche.Entity {
		e := w.Arche().NewEntity(w.IDs.Transform, w.IDs.Velocity)
		*(*ecs.Transform)(w.Arche().Get(e, w.IDs.Transform)) = ecs.Transform{X: x}
		sp.AttachCircle(e, 10, physics.Material{Mass: 1})
		return e
	}
	clk := clock.NewFake(time.Unix(0, 0))
	r := newRemovals(clk, sp)
	e1, e2 := body(0), body(100)
	r.hide(e1, 10) // an ordinary step's
	if sp.Solid(e1) {
		t.Fatal("a hidden entity's body is solid")
	}
	r.replayBegin(7, true)
	for _, f := range []ecs.Frame{8, 9, 10, 11} {
		r.replayFrame(f)
		if want := f < 10; sp.Solid(e1) != want {
			t.Errorf("replaying frame %d, a body hidden at frame 10 is solid %v, want %v", f, sp.Solid(e1), want)
		}
	}
	r.hide(e2, 11) // a replayed frame's
	r.replayEnd()
	if sp.Solid(e1) || sp.Solid(e2) {
		t.Fatalf("after the replay: solid %v, %v; want both out", sp.Solid(e1), sp.Solid(e2))
	}
	r.replayBegin(10, true) // takes e2's removal back
	if sp.Solid(e1) || !sp.Solid(e2) {
		t.Fatalf("a replay from frame 10: solid %v, %v; want e1 out (removed at 10), e2 solid (its removal taken back)", sp.Solid(e1), sp.Solid(e2))
	}
	r.replayEnd()

	// Not made in time, it shows again, its body solid again.
	clk.Advance(time.Second)
	r.tidy(w, 500*time.Millisecond)
	if r.hidden(e1) || !sp.Solid(e1) {
		t.Fatalf("a removal the host did not make in time: hidden %v, solid %v; want shown and solid", r.hidden(e1), sp.Solid(e1))
	}

	// One removed after its frame's physics step (a system after it) is
	// solid in a replay of that frame, out from the next.
	e3 := body(300)
	w.SetFrame(20)
	sp.Update(w)
	r.hide(e3, 20)
	r.replayBegin(18, true)
	for _, f := range []ecs.Frame{19, 20, 21} {
		r.replayFrame(f)
		if want := f < 21; sp.Solid(e3) != want {
			t.Errorf("replaying frame %d, a body hidden after frame 20's step is solid %v, want %v", f, sp.Solid(e3), want)
		}
	}
	r.replayEnd()
}
