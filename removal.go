package tandem

import (
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Predicted removals. A client draws what the host removes a round trip and
// its render delay after its own player caused it: a coin she runs over
// stays on her screen for 250–350 ms. World.Remove on a client hides such
// an entity at once and leaves its removal to the host's; if the host's
// does not come, the client was wrong (another player took the coin first)
// and the entity shows again.

// Remove removes entity e. On the host and alone it is arche's
// RemoveEntity, at once (call it where a removal may be made: not while a
// query holds e's archetype). On a client, an entity of the client's own
// making is removed at once too; one the host sent (a networked entity)
// is the host's to remove, and the client predicts its removal: from this
// frame the entity is hidden (View.Pose and World.Seen say it is not there,
// Removed says it is gone), its components and physics body kept, until the
// host's removal comes and the client removes it. A game's systems skip
// what Removed names. If the host's removal has not come within twice the
// round trip, the render delay and a quarter of a second (a coin another
// player took first, a hit the host did not grant), the entity shows
// again (NetStats.RemovalsUndone counts it). A replay from before the frame
// of the removal takes it back, for the replayed frames to make again
// (Game.Replay calls Remove as the first pass did, or does not).
func (w *World) Remove(e arche.Entity) {
	if w.removals == nil || !w.ECS.Arche().Has(e, w.ECS.IDs.NetworkIdentity) {
		w.ECS.Arche().RemoveEntity(e)
		return
	}
	w.removals.hide(e, w.ECS.Frame())
}

// Removed reports whether a client predicted entity e's removal (Remove)
// and the host's has not come yet. False on the host and alone.
func (w *World) Removed(e arche.Entity) bool {
	return w.removals != nil && w.removals.hidden(e)
}

// removals are a client's predicted removals: each hidden entity and the
// frame it was removed at. Used by the simulation goroutine, and by View
// (which holds the world).
type removals struct {
	at     map[arche.Entity]ecs.Frame
	undone uint64 // shown again: the host did not remove them
}

func newRemovals() *removals { return &removals{at: map[arche.Entity]ecs.Frame{}} }

// hide hides e from frame f, or from the frame it was hidden at already.
func (r *removals) hide(e arche.Entity, f ecs.Frame) {
	if _, ok := r.at[e]; !ok {
		r.at[e] = f
	}
}

func (r *removals) hidden(e arche.Entity) bool {
	_, ok := r.at[e]
	return ok
}

// replayBegin takes back the removals of the frames after from, which the
// replay runs again.
func (r *removals) replayBegin(from ecs.Frame) {
	for e, f := range r.at {
		if f > from {
			delete(r.at, e)
		}
	}
}

// tidy forgets the hidden entities gone from world w (the host's removal
// came) and shows again those the host left in it timeout frames after
// their removal, at frame now.
func (r *removals) tidy(w *ecs.World, now, timeout ecs.Frame) {
	for e, f := range r.at {
		switch {
		case !w.Alive(e):
			delete(r.at, e)
		case now > f+timeout:
			delete(r.at, e)
			r.undone++
		}
	}
}

// removalTimeout is how many frames of step a client waits for the host's
// removal of an entity it removed, with round trip rtt and render delay
// delay: twice the round trip (the client runs ahead of the host by about
// half of it, the removal comes back in the other half, with room for a
// lost state), the render delay (the host's removal is carried out once
// drawn to it) and a quarter of a second.
func removalTimeout(rtt, delay, step time.Duration) ecs.Frame {
	return ecs.Frame((2*rtt + delay + 250*time.Millisecond + step - 1) / step)
}
