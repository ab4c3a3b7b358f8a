package tandem

import (
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// Predicted removals. A client draws what the host removes a round trip and
// its render delay after its own player caused it: a coin she runs over
// stays on her screen for 250–350 ms. World.Remove on a client hides such
// an entity at once and leaves its removal to the host's; if the host's
// does not come, the client was wrong (another player took the coin first)
// and the entity shows again.

// Remove removes entity e. On the host and alone it is ecs.World's
// RemoveEntity: at once, or, called while a query holds the world (a system
// removing what it iterates), once the running system returns; Removed
// says it meanwhile. On a client, an entity of the client's own making is
// removed so too; one the host sent (a networked entity)
// is the host's to remove, and the client predicts its removal: from this
// frame the entity is hidden (View.Pose and World.Seen say it is not there,
// Removed says it is gone) and its physics body is passed through
// (physics.Space.SetSolid: a dead enemy does not block the player who
// killed it), its components and body kept, until the host's removal comes
// and the client removes it. A game's systems skip
// what Removed names. If the host's removal has not come within twice the
// round trip, the render delay and a quarter of a second (a coin another
// player took first, a hit the host did not grant), the entity shows
// again, its body solid again (NetStats.RemovalsUndone counts it). A
// removal the game's Replay made in a replayed frame is taken back by the
// next replay from before it, for the replayed frames to make again or not;
// one an ordinary step made waits for the host's removal or the timeout,
// and a replay steps its body solid in the frames before the removal's, as
// they were.
func (w *World) Remove(e arche.Entity) {
	if w.removals == nil || !w.ECS.Arche().Has(e, w.ECS.IDs.NetworkIdentity) {
		w.ECS.RemoveEntity(e)
		return
	}
	w.removals.hide(e, w.ECS.Frame())
}

// Removed reports whether Remove was called for entity e and e is still in
// the world: on a client, one whose removal it predicted, until the host's
// removal takes it (while the client draws it to that removal too), or
// until the client shows it again; anywhere, one whose removal waits for
// the running system to return.
func (w *World) Removed(e arche.Entity) bool {
	return w.removals != nil && w.removals.hidden(e) || w.ECS.Removing(e)
}

// removals are a client's predicted removals: each hidden entity, the
// frame and time it was removed at, and whether a replay removed it. Used
// by the simulation goroutine, and by View (which holds the world).
type removals struct {
	clk       clock.Clock
	space     *physics.Space // the world's, nil without physics: hidden bodies are not solid
	at        map[arche.Entity]removal
	replaying bool   // between a replay's begin and end
	undone    uint64 // shown again: the host did not remove them
}

// removal is one predicted removal.
type removal struct {
	f        ecs.Frame
	t        time.Time
	byReplay bool // a replayed frame made it: the next replay from before it takes it back
	came     bool // the host's removal came: the entity is drawn to it (ecs.Departing)
}

func newRemovals(clk clock.Clock, space *physics.Space) *removals {
	return &removals{clk: clk, space: space, at: map[arche.Entity]removal{}}
}

// hide hides e from frame f, or from when it was hidden already.
func (r *removals) hide(e arche.Entity, f ecs.Frame) {
	if _, ok := r.at[e]; !ok {
		r.at[e] = removal{f: f, t: r.clk.Now(), byReplay: r.replaying}
		r.solid(e, false)
	}
}

// solid puts e's physics body back in the Space, or takes it out, where e
// has one.
func (r *removals) solid(e arche.Entity, solid bool) {
	if r.space != nil && r.space.BodyOf(e) != nil {
		r.space.SetSolid(e, solid)
	}
}

func (r *removals) hidden(e arche.Entity) bool {
	_, ok := r.at[e]
	return ok
}

// replayBegin takes back the removals that replayed frames after from
// made, which the replay starting runs again. A removal an ordinary step
// made stays: the system that made it need not be in the replayed step
// (Game.Replay moves what a player predicts; a pickup may be another's),
// and a wrong one shows again when the host's does not come.
//
// The bodies of the removals that stay, made after from, are solid again
// for the replayed frames before theirs (replayFrame takes them out).
func (r *removals) replayBegin(from ecs.Frame) {
	r.replaying = true
	for e, m := range r.at {
		if m.came || m.f <= from {
			continue
		}
		if m.byReplay {
			delete(r.at, e)
		}
		r.solid(e, true)
	}
}

// replayFrame takes the bodies of the removals made at frame f or before
// out of the Space, before the replayed frame f steps it.
func (r *removals) replayFrame(f ecs.Frame) {
	for e, m := range r.at {
		if m.f <= f {
			r.solid(e, false)
		}
	}
}

// replayEnd: every hidden body is out of the Space again.
func (r *removals) replayEnd() {
	r.replaying = false
	for e := range r.at {
		r.solid(e, false)
	}
}

// tidy forgets the hidden entities the host's removal took from world w,
// keeps hidden, the wait over, those it reached that w keeps while drawn
// to it (ecs.Departing: drawn, they would come back until then), and
// shows again those it did not reach within timeout of their removal.
func (r *removals) tidy(w *ecs.World, timeout time.Duration) {
	now := r.clk.Now()
	for e, m := range r.at {
		switch {
		case !w.Alive(e):
			delete(r.at, e)
		case m.came:
		case w.Arche().Has(e, w.IDs.Departing):
			m.came = true
			r.at[e] = m
		case now.Sub(m.t) > timeout:
			delete(r.at, e)
			r.solid(e, true)
			r.undone++
		}
	}
}

// removalTimeout is how long a client waits for the host's removal of an
// entity it removed, with round trip rtt and render delay delay: twice the
// round trip (the client runs ahead of the host by about half of it, the
// removal comes back in the other half, with room for a lost state), the
// render delay and a quarter of a second.
func removalTimeout(rtt, delay time.Duration) time.Duration {
	return 2*rtt + delay + 250*time.Millisecond
}
