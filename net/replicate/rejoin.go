package replicate

import (
	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// rejoinState is a join into a world the client holds already: which
// entities (by network slot, one bit each) the join's pages brought.
type rejoinState struct {
	seen []uint64
	ids  *generic.Filter1[ecs.NetworkIdentity]
	gone []arche.Entity // scratch of the sweep
}

// Rejoin starts a join into the world this client holds: the host's join
// after a resume (the session bound this client's peer to a new
// connection), or the fresh join of a client that held a world before, local
// being its peer id now and stepRate the host's steps per second as its
// Welcome or Resumed says (0 keeps ClientConfig.StepRate). Until the join's
// FINAL the replicator holds the State it receives, as for a first join, and
// join messages of a join cut short are dropped. Each page's entities are
// updated where they are held (the same arche entity, its new state drawn as
// a jump: nothing is removed and created again) or created if new; the
// client's own entities keep their state for AuthState, as prediction wants.
// What the client knew of the old host's frames (the newest state applied
// to each entity, the images deltas refer to, the removals remembered) is
// forgotten: the host rejoined may number its frames otherwise, as one
// restored from a save does. FINAL checks the join's counts as for a first
// join, then removes every networked entity the join did not bring (the
// Observer hears of each first): the world is the host's again.
//
// fresh, if not 0, is the first network id that may name another entity
// in the host's run of its world than in the run the client held it from
// (the session finds it from the lineages its Welcome or Resumed named,
// ecs.KeptBelow; 1 for all): every networked entity held under an id at or
// past it is removed at once (the Observer hears of each, counted in
// Swept), since the run gives those ids to entities of its own (a host
// killed after its last save, restarted from it). Updated in place, a block
// the killed host made became another block, or a player's avatar.
//
// Cost: one bit per network slot while the join runs; FINAL walks the
// networked entities once, and so does a fresh id.
func (c *ClientReplicator) Rejoin(local ecs.PeerID, stepRate float64, fresh ecs.NetID) {
	c.cfg.Local = local
	if stepRate > 0 && stepRate != c.cfg.StepRate {
		c.cfg.StepRate = stepRate
		c.pred = newPredictor(c.reg, stepRate)
	}
	c.joined, c.final = false, false
	c.held, c.heldKind = nil, nil
	c.queue.drop()
	c.total = 0
	c.joinHeld, c.joinPages = 0, 0
	c.lastPage = 0 // the entities a page brings: the last join's say nothing of this one's
	c.owning = false
	// What the client knows of the frames of the host it held the world
	// from: the host it rejoins may number its frames otherwise (a host
	// restored from a save), and the join brings every entity's state anew.
	c.frame, c.movedFrame = 0, 0
	c.backlog = clientBacklog{} // numbered by the host left
	c.departAll()
	clear(c.hostMoved)
	for _, ch := range c.slots.chunks {
		clear(ch)
	}
	for _, ch := range c.nd.chunks {
		clear(ch)
	}
	c.hist.reset()
	clear(c.tomb)
	clear(c.tombFIFO)
	c.tombNext = 0
	if c.rejoin == nil {
		c.rejoin = &rejoinState{ids: generic.NewFilter1[ecs.NetworkIdentity]()}
	}
	clear(c.rejoin.seen)
	if fresh != 0 {
		c.dropFrom(fresh)
	}
}

// dropFrom removes every networked entity held under an id at or past
// fresh, as the host removed it (see Rejoin).
func (c *ClientReplicator) dropFrom(fresh ecs.NetID) {
	r := c.rejoin
	r.gone = r.gone[:0]
	q := r.ids.Query(c.w.Arche())
	for q.Next() {
		if q.Get().ID >= fresh {
			r.gone = append(r.gone, q.Entity())
		}
	}
	for _, e := range r.gone {
		c.remove(e)
		c.stats.Swept++
	}
	r.gone = r.gone[:0]
}

// Rejoining reports whether a join started by Rejoin is under way.
func (c *ClientReplicator) Rejoining() bool { return c.rejoin != nil && !c.joined }

// rejoined marks entity e as brought by the join under way and reports
// whether it was already; a first mark counts it as held by the join.
func (c *ClientReplicator) rejoined(e arche.Entity) bool {
	slot, ok := c.w.NetSlot(e)
	if !ok {
		return false
	}
	r := c.rejoin
	word, bit := int(slot)/64, uint64(1)<<(uint(slot)%64)
	for word >= len(r.seen) {
		r.seen = append(r.seen, 0)
	}
	if r.seen[word]&bit != 0 {
		return true
	}
	r.seen[word] |= bit
	c.joinHeld++
	return false
}

// unjoined takes entity e, removed by a page, out of what the join brought.
func (c *ClientReplicator) unjoined(e arche.Entity) {
	slot, ok := c.w.NetSlot(e)
	if !ok {
		return
	}
	r := c.rejoin
	word, bit := int(slot)/64, uint64(1)<<(uint(slot)%64)
	if word < len(r.seen) && r.seen[word]&bit != 0 {
		r.seen[word] &^= bit
		c.joinHeld--
	}
}

// keep updates the identity of entity e, held before the rejoin, to owner:
// its owner, and the Interpolated a remote entity is drawn with. It reports
// whether the page's state is to be applied: not for an entity this client
// predicts, whose state comes with AuthState (one of its own it draws from
// states, ecs.HostMoved, takes the page's, which later States are coded
// against).
func (c *ClientReplicator) keep(e arche.Entity, owner ecs.PeerID) bool {
	if ni, _ := c.w.Identity(e); ni.Owner != owner {
		ecs.SetOwner(c.w, e, owner)
	}
	a := c.w.Arche()
	if owner != c.cfg.Local && !a.Has(e, c.w.IDs.Interpolated) {
		a.Add(e, c.w.IDs.Interpolated)
	}
	return owner != c.cfg.Local || c.cfg.Auth == nil || a.Has(e, c.w.IDs.HostMoved)
}

// sweep ends a rejoin at FINAL of frame f: every networked entity the join
// did not bring is removed, as the host removed it, and remembered as such.
func (c *ClientReplicator) sweep(f ecs.Frame) {
	r := c.rejoin
	r.gone = r.gone[:0]
	q := r.ids.Query(c.w.Arche())
	for q.Next() {
		e := q.Entity()
		slot, _ := c.w.NetSlot(e)
		word, bit := int(slot)/64, uint64(1)<<(uint(slot)%64)
		if word >= len(r.seen) || r.seen[word]&bit == 0 {
			r.gone = append(r.gone, e)
		}
	}
	for _, e := range r.gone {
		ni, _ := c.w.Identity(e)
		c.tombstone(ni.ID, f)
		c.remove(e)
		c.stats.Swept++
	}
	r.gone = r.gone[:0]
	clear(r.seen)
}
