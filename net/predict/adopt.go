package predict

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Adopting a newcomer. An owned entity the host makes while the client
// plays (a respawned avatar) arrives holding the host's state of the frame
// it was made at, a round trip and the lead behind the client's present:
// the host steps it through the frames since with the inputs the client
// gave them, which the client holds. In Replay mode the client does the
// same: AdoptArrived replays from that frame with the newcomer
// as it arrived, so it is drawn where the host will have it from its first
// frame rather than starting at the spawn point that far behind and being
// corrected a round trip later (a walking player 20 units at 50 ms each
// way, 32–40 at 100 ms). Correct mode has no step to replay with: it
// records the newcomer as it arrived in the frames since, and the host's
// states of them correct it by what the host moved it then, so it catches
// up over the round trip rather than at once after it.

// newcomer is an owned entity that arrived made at host frame at.
type newcomer struct {
	e    arche.Entity
	at   ecs.Frame
	mask uint16 // the trackers' bits of the components it arrived with
}

// maxNewcomers bounds the entities adopted in one step (a squad respawning
// together); those past it start where they arrived.
const maxNewcomers = 64

// Adopt tells the client that owned entity e arrived made from the host's
// state of frame at (its spawn). In Replay mode, the next AdoptArrived (or
// "predict.begin")
// replays from at with e's values as they are now, predicting e to the
// present with the inputs recorded since, and draws it there at once
// (Snapper); it is counted in Adopted, or in NotAdopted when at is no
// longer recorded or an owned entity other than the newcomers was not
// recorded at it. In Correct mode it records e's pose as it arrived in the
// frames from at to the last recorded (backfill), counted in Adopted too.
// Call it from the spawn's hook, before the entity is stepped.
func (c *Client[I]) Adopt(e arche.Entity, at ecs.Frame) {
	if c.lastRecorded == 0 || at > c.lastRecorded {
		return // nothing predicted yet (a join's pages), or nothing to replay
	}
	if c.cfg.Reconcile != Replay || c.cfg.Step == nil {
		c.backfill(e, at)
		return
	}
	if at == c.lastRecorded {
		return // made at the present: nothing to replay
	}
	if len(c.newcomers) >= maxNewcomers {
		c.stats.NotAdopted++
		return
	}
	k := len(c.newcomers)
	a := c.w.Arche()
	var mask uint16
	for _, t := range c.tracks {
		if t.arrived.len() == 0 {
			t.arrived.resize(maxNewcomers + 1) // the last: a swap's spare place
		}
		if p := a.GetUnchecked(e, t.id); p != nil {
			t.assign(t.arrived.at(k), p)
			mask |= t.bit
		}
	}
	c.newcomers = append(c.newcomers, newcomer{e: e, at: at, mask: mask})
}

// AdoptArrived is a system that adopts, in the step they arrived in, the
// newcomers Adopt was told of: add it to ecs.StageInput after the system
// that receives the host's states, so a newcomer is predicted to the
// present before the game's systems step it (otherwise "predict.begin"
// adopts them at the next step, after a step drawn where they arrived).
func (c *Client[I]) AdoptArrived(*ecs.World) {
	if len(c.newcomers) > 0 {
		c.adopt()
	}
}

// adopt runs with newcomers waiting: a replay from the
// oldest frame they were made at, with those made then as they arrived.
// Those made later wait for the next step's (by then recorded, with the
// rest, from the frames this replay recorded again).
func (c *Client[I]) adopt() {
	p, ok := c.local()
	if !ok {
		c.newcomers = c.newcomers[:0]
		return
	}
	owned := c.predicted(c.w, p)
	// The newcomers still owned and predicted.
	live := c.newcomers[:0]
	for i, n := range c.newcomers {
		if !contains(owned, n.e) {
			continue
		}
		c.moveArrived(len(live), i)
		live = append(live, n)
	}
	c.newcomers = live
	if len(live) == 0 {
		return
	}
	from := live[0].at
	for _, n := range live {
		from = min(from, n.at)
	}
	// This replay's newcomers first.
	group := 0
	for i, n := range live {
		if n.at == from {
			c.swapArrived(group, i)
			live[group], live[i] = live[i], live[group]
			group++
		}
	}
	now := live[:group]
	if c.adoptable(from, owned, now) {
		c.replay(from, now)
		c.stats.Adopted += uint64(group)
	} else {
		c.stats.NotAdopted += uint64(group)
	}
	// Those made later wait, their values with them.
	rest := c.newcomers[:0]
	for i := group; i < len(live); i++ {
		c.moveArrived(len(rest), i)
		rest = append(rest, live[i])
	}
	c.newcomers = rest
}

// adoptable reports whether a replay from frame from can adopt newcomers
// ns: every frame from it to the last recorded is recorded with its input
// and state, and every owned entity but the newcomers is recorded at it.
func (c *Client[I]) adoptable(from ecs.Frame, owned []arche.Entity, ns []newcomer) bool {
	if from == 0 || from >= c.lastRecorded || int(c.lastRecorded-from) >= c.hist.size() {
		return false
	}
	for g := from; g <= c.lastRecorded; g++ {
		if _, ok := c.hist.find(g, recInput|recState); !ok {
			return false
		}
	}
	s, _ := c.hist.find(from, recState)
	for k, e := range owned {
		if c.hist.index(s, e, k) < 0 && !isNewcomer(ns, e) {
			return false
		}
	}
	return true
}

// placeNewcomers gives newcomers ns (the first of the arrived stores) their
// values as they arrived.
func (c *Client[I]) placeNewcomers(ns []newcomer) {
	a := c.w.Arche()
	for k, n := range ns {
		for _, t := range c.tracks {
			if p := a.GetUnchecked(n.e, t.id); p != nil && n.mask&t.bit != 0 {
				t.assign(p, t.arrived.at(k))
			}
		}
	}
}

// moveArrived copies newcomer i's arrived values to place j.
func (c *Client[I]) moveArrived(j, i int) {
	if i == j {
		return
	}
	for _, t := range c.tracks {
		t.assign(t.arrived.at(j), t.arrived.at(i))
	}
}

// swapArrived swaps the arrived values of newcomers i and j.
func (c *Client[I]) swapArrived(i, j int) {
	if i == j {
		return
	}
	for _, t := range c.tracks {
		// The spare place past the newcomers holds one in passing.
		tmp := t.arrived.at(maxNewcomers)
		t.assign(tmp, t.arrived.at(i))
		t.assign(t.arrived.at(i), t.arrived.at(j))
		t.assign(t.arrived.at(j), tmp)
	}
}

func isNewcomer(ns []newcomer, e arche.Entity) bool {
	for _, n := range ns {
		if n.e == e {
			return true
		}
	}
	return false
}

func contains(es []arche.Entity, e arche.Entity) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}

// backfill is Adopt in Correct mode, which has no step to replay with: it
// records newcomer e's pose as it arrived in the frames from at to the
// last recorded (its pose alone: the client stepped nothing of it then), so
// that each AuthState of those frames corrects it by what the host moved it
// since. It catches up with the host over the round trip, a state at a
// time, rather than walking that far behind for a round trip and being
// corrected by all of it at once.
func (c *Client[I]) backfill(e arche.Entity, at ecs.Frame) {
	var pose *tracker
	for _, t := range c.tracks {
		if t.corr == Pose {
			pose = t
		}
	}
	if pose == nil {
		return
	}
	h := &c.hist
	if c.lastRecorded >= ecs.Frame(h.size()) {
		at = max(at, c.lastRecorded-ecs.Frame(h.size())+1)
	}
	a := c.w.Arche()
	adopted := false
	for g := at; g <= c.lastRecorded; g++ {
		s, ok := h.find(g, recState)
		if !ok || h.index(s, e, 0) >= 0 {
			continue
		}
		n := int(h.counts[s])
		if n >= c.cfg.MaxOwned {
			continue
		}
		if n >= h.stride {
			h.grow(n+1, c.cfg.MaxOwned, c.tracks)
		}
		p := a.GetUnchecked(e, pose.id)
		if p == nil {
			return
		}
		k := s*h.stride + n
		h.ents[k] = e
		pose.assign(pose.store.at(k), p)
		h.masks[k] = pose.bit
		h.skip[k] = 0
		h.counts[s]++
		adopted = true
	}
	if adopted {
		c.stats.Adopted++
	}
}
