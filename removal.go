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

// Remove removes entity e; a dead one is left alone. On the host and
// alone it is ecs.World's RemoveEntity: at once, or, called while a query
// holds the world (a system removing what it iterates), once the running
// system returns; Removed says it meanwhile. A removal at once moves other
// entities' components in arche's storage: a pointer to a component taken
// before it (from a query, or Get) may then read another entity's; take
// them again after removing (a royale trial eliminated two players at once
// so). On a client, an entity of the
// client's own making is removed so too; one the host sent (a networked
// entity) is the host's to remove, and the client predicts its removal:
// from this frame the entity is hidden (View.Pose and World.Seen say it is
// not there, Removed says it is gone) and its physics body is passed
// through (physics.Space.SetSolid: a dead enemy does not block the player
// who killed it), its components and body kept, until the host's removal
// comes and the client removes it. A game's systems skip what Removed
// names.
//
// If the host's removal has not come within twice the round trip, the
// render delay and a quarter of a second (a coin another player took
// first, a hit the host did not grant), or the host takes the entity's
// departure back, the entity shows again (NetStats.RemovalsUndone counts
// it, Refused names it) and its body is solid again; a body the client
// predicted through it meanwhile is put back where the host's newest state
// has it (predict.Client.Reanchor: her player, who walked on where the
// host's was stopped by it).
//
// A removal the game's Replay made in a replayed frame is taken back by
// the next replay from before it, for the replayed frames to make again or
// not; one an ordinary step made waits for the host's removal or the
// timeout, and a replay steps its body solid in the frames whose physics
// first ran with it there.
func (w *World) Remove(e arche.Entity) {
	if !w.ECS.Alive(e) {
		return // gone already (a handle kept across frames)
	}
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

// Refused reports whether this client predicted entity e's removal
// (Remove) and the host did not make it: e showed again. It stays true
// while e is in the world. A game may stop predicting what the host
// refused (an armored foe its player keeps attacking), and wait for the
// host's removal instead. False on the host and alone.
func (w *World) Refused(e arche.Entity) bool {
	if w.removals == nil {
		return false
	}
	_, ok := w.removals.refused[e]
	return ok
}

// removals are a client's predicted removals: each hidden entity, the
// frame and time it was removed at, and whether a replay removed it. Used
// by the simulation goroutine, and by View (which holds the world).
type removals struct {
	clk       clock.Clock
	space     *physics.Space // the world's, nil without physics: hidden bodies are not solid
	at        map[arche.Entity]removal
	replaying bool                      // between a replay's begin and end
	bodies    bool                      // the replay steps the physics: hidden bodies follow its frames
	refused   map[arche.Entity]struct{} // shown again (Refused)
	undone    uint64                    // shown again: the host did not remove them
	// through puts the bodies the client predicted through e's, shown
	// again, back where the host has them; nil: none.
	through func(e arche.Entity)
}

// removal is one predicted removal.
type removal struct {
	f        ecs.Frame
	out      ecs.Frame // the first frame whose physics step ran with its body out: f, or f+1 for one made after f's
	t        time.Time
	byReplay bool // a replayed frame made it: the next replay from before it takes it back
	came     bool // the host's removal came: the entity is drawn to it (ecs.Departing)
}

func newRemovals(clk clock.Clock, space *physics.Space) *removals {
	return &removals{clk: clk, space: space, at: map[arche.Entity]removal{}, refused: map[arche.Entity]struct{}{}}
}

// busy reports whether tidy has work.
func (r *removals) busy() bool { return len(r.at) > 0 || len(r.refused) > 0 }

// hide hides e from frame f, or from when it was hidden already (a replayed
// frame before that hides it from then).
func (r *removals) hide(e arche.Entity, f ecs.Frame) {
	m, ok := r.at[e]
	if ok && f >= m.f {
		return
	}
	out := f
	if r.space != nil && r.space.StepFrame() == f {
		out = f + 1 // frame f's physics ran with the body there
	}
	if ok {
		m.f, m.out = f, out
	} else {
		m = removal{f: f, out: out, t: r.clk.Now(), byReplay: r.replaying}
	}
	r.at[e] = m
	r.solid(e, false)
}

// solid puts e's physics body back in the Space, or takes it out, where e
// has one.
func (r *removals) solid(e arche.Entity, solid bool) {
	if r.space != nil && r.space.BodyOf(e) != nil {
		r.space.SetSolid(e, solid)
	}
}

// show shows e again, the host not having removed it: the bodies the
// client predicted through its body go back where the host has them, and
// its body goes back in the Space.
func (r *removals) show(e arche.Entity) {
	delete(r.at, e)
	r.refused[e] = struct{}{}
	r.undone++
	if r.space != nil && r.space.BodyOf(e) != nil {
		if r.through != nil {
			r.through(e)
		}
		r.space.SetSolid(e, true)
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
// Where the replay steps the physics (bodies), the bodies of the removals
// that stay are solid again for the replayed frames whose physics ran with
// them there (replayFrame takes them out), and a body taken back is solid.
func (r *removals) replayBegin(from ecs.Frame, bodies bool) {
	r.replaying, r.bodies = true, bodies
	for e, m := range r.at {
		if m.came {
			continue
		}
		if m.byReplay && m.f > from {
			delete(r.at, e)
			r.solid(e, true)
			continue
		}
		if bodies && m.out > from+1 {
			r.solid(e, true)
		}
	}
}

// replayFrame takes the bodies of the removals out of the Space whose
// frame f's physics step ran without them, before the replayed frame f
// steps it.
func (r *removals) replayFrame(f ecs.Frame) {
	if !r.bodies {
		return
	}
	for e, m := range r.at {
		if m.out <= f {
			r.solid(e, false)
		}
	}
}

// replayEnd: every hidden body is out of the Space again.
func (r *removals) replayEnd() {
	if r.bodies {
		for e := range r.at {
			r.solid(e, false)
		}
	}
	r.replaying, r.bodies = false, false
}

// tidy forgets the hidden entities the host's removal took from world w,
// keeps hidden, the wait over, those it reached that w keeps while drawn
// to it (ecs.Departing: drawn, they would come back until then), and
// shows again those it did not reach within timeout of their removal, and
// those whose departure the host took back (back in the client's scope:
// the host holds them). A body shown again goes back in the Space, the
// bodies the client predicted through it put back where the host has them
// (through).
func (r *removals) tidy(w *ecs.World, timeout time.Duration) {
	now := r.clk.Now()
	for e, m := range r.at {
		departing := w.Alive(e) && w.Arche().Has(e, w.IDs.Departing)
		switch {
		case !w.Alive(e):
			delete(r.at, e)
		case m.came && !departing:
			r.show(e)
		case m.came:
		case departing:
			m.came = true
			r.at[e] = m
		case now.Sub(m.t) > timeout:
			r.show(e)
		}
	}
	for e := range r.refused {
		if !w.Alive(e) {
			delete(r.refused, e)
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
