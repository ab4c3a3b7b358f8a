package replicate

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Removals a client draws to their end. A client that draws remote
// entities in the past (an interpolator, render delay behind the newest
// state) would see a removed entity vanish that much before the drawn world
// reached its removal: a shot cut short of where it flew. Its Observer, a
// DrawnObserver, keeps such an entity in the world, its record of the
// network ended (the removal is remembered, a newer spawn brings it back),
// until the drawn time reaches the removal (Depart), marked ecs.Departing
// meanwhile.

// DrawnObserver is an Observer that draws entities in the past: the host's
// removal of one it still draws is carried out when it has drawn the
// entity to it.
type DrawnObserver interface {
	Observer
	// Drawing reports whether entity e, which the host removed at frame
	// f, is still to be drawn up to f: the client keeps it in its world
	// and asks again at each Depart, removing it (Removed first) once the
	// answer is false. It should say false for an entity it does not draw
	// from received states, and within a bounded time of f for any.
	Drawing(e arche.Entity, f ecs.Frame) bool
}

// departing is an entity the host removed, kept in the world while drawn.
type departing struct {
	e    arche.Entity
	slot int32
	f    ecs.Frame // the host frame of the removal
}

// keepDrawn reports whether entity e (in slot), which the host removed at frame
// f, stays in the world while its Observer draws it, and if so lists it. A
// join under way removes at once.
func (c *ClientReplicator) keepDrawn(e arche.Entity, slot int32, f ecs.Frame) bool {
	do, ok := c.cfg.Observer.(DrawnObserver)
	if !ok || !c.joined || !do.Drawing(e, f) {
		return false
	}
	c.slots.at(slot).leaving = uint32(f)
	c.leaving = append(c.leaving, departing{e: e, slot: slot, f: f})
	a, id := c.w.Arche(), c.w.IDs.Departing
	if !a.Has(e, id) {
		a.Add(e, id)
	}
	(*ecs.Departing)(a.Get(e, id)).Frame = f
	return true
}

// stays takes the mark of a kept entity (ecs.Departing) off entity e, which
// came back.
func (c *ClientReplicator) stays(e arche.Entity) {
	if a, id := c.w.Arche(), c.w.IDs.Departing; a.Has(e, id) {
		a.Remove(e, id)
	}
}

// Depart removes the entities the host removed that the Observer has
// drawn to their removal (DrawnObserver). Call it once a step; the session
// client does, before the step's messages.
func (c *ClientReplicator) Depart() {
	if len(c.leaving) == 0 {
		return
	}
	do, _ := c.cfg.Observer.(DrawnObserver)
	kept := c.leaving[:0]
	for _, d := range c.leaving {
		if !c.departing(d) {
			continue // back in scope, or gone already
		}
		if do != nil && do.Drawing(d.e, d.f) {
			kept = append(kept, d)
			continue
		}
		c.stats.Departed++
		c.remove(d.e)
	}
	clear(c.leaving[len(kept):])
	c.leaving = kept
}

// departing reports whether d is still an entity kept for drawing: alive,
// and not spawned again since (a spawn of it ends its leaving).
func (c *ClientReplicator) departing(d departing) bool {
	if !c.w.Arche().Alive(d.e) {
		return false
	}
	s := c.slots.peek(d.slot)
	return s != nil && s.leaving == uint32(d.f)
}

// departOne removes at once an entity kept for drawing (the first listed:
// the one kept longest, until a removal here reorders the list), and reports
// whether there was one: a spawn at MaxEntities makes room so, the host
// holding no more than the client may. Each entry it takes out costs O(1).
func (c *ClientReplicator) departOne() bool {
	for len(c.leaving) > 0 {
		d := c.leaving[0]
		last := len(c.leaving) - 1
		c.leaving[0] = c.leaving[last]
		c.leaving[last] = departing{}
		c.leaving = c.leaving[:last]
		if c.departing(d) {
			c.stats.Departed++
			c.remove(d.e)
			return true
		}
	}
	return false
}

// departAll removes at once every entity kept for drawing (a rejoin starts
// from the world the host has).
func (c *ClientReplicator) departAll() {
	for _, d := range c.leaving {
		if c.departing(d) {
			c.stats.Departed++
			c.remove(d.e)
		}
	}
	clear(c.leaving)
	c.leaving = c.leaving[:0]
}
