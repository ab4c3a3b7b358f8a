package replicate

import arche "github.com/mlange-42/arche/ecs"

// The audit's kinds: beside its walk of the slots in order, the audit
// looks every kindEvery steps at one entity of each archetype of networked
// entities in turn (but those of a relation, whose queries cost as many
// archetypes as the relation has targets). A game's kinds of entity are
// its archetypes, and a system that forgets its reports writes one kind:
// fifty wanderers spawned after 30,000 props wait a whole round of the
// slots (about two minutes at 4 a step), and eight steps of the kinds.

// kindEvery is how many steps apart the audit looks at its next kind: a
// look (a query of a registered filter) costs a few tenths of a
// microsecond, about what the other looks of a step cost together.
const kindEvery = 4

// maxAuditKinds bounds the archetypes the audit keeps in turn: a game that
// makes more (a tag per entity) has the rest looked at by the slot walk
// alone.
const maxAuditKinds = 64

// auditKind is a kind of networked entity, an archetype (NewNetworked's
// shards of one taken as one), and where the audit is in it.
type auditKind struct {
	mask   arche.Mask         // its components, but NewNetworked's shard tags
	cached arche.CachedFilter // its entities and no other kind's, registered: a query costs its archetypes
	next   int                // the index of the next of them to look at
}

// maxNotKinds bounds the archetypes noteKind remembers turning away.
const maxNotKinds = 16

// noteKind adds the archetype of networked entity e to the audit's kinds,
// if it has a replicated component, no relation (a query of a relation's
// archetype costs its targets), and is not there yet. O(kinds), and O(1)
// for an entity of the archetype noted last.
func (h *HostReplicator) noteKind(e arche.Entity) {
	if h.cfg.Audit <= 0 || h.cfg.CheckReports || !h.w.Alive(e) {
		return
	}
	a := h.w.Arche()
	m := a.Mask(e)
	if m == h.lastKind {
		return
	}
	h.lastKind = m
	if h.replicated.IsZero() {
		for i := range h.reg.comps {
			h.replicated.Set(h.reg.comps[i].id, true)
		}
		for _, id := range h.w.Bookkeeping() {
			h.shardTags.Set(id, true)
		}
	}
	if !m.ContainsAny(&h.replicated) {
		return // nothing of it replicated: nothing to find
	}
	notShards := h.shardTags.Not()
	m = m.And(&notShards)
	for i := range h.kinds {
		if h.kinds[i].mask == m {
			return
		}
	}
	for _, n := range h.notKinds {
		if n == m {
			return
		}
	}
	if len(h.kinds) == maxAuditKinds {
		return
	}
	for _, id := range a.Ids(e) { // a new archetype: seldom
		if info, ok := arche.ComponentInfo(a, id); ok && info.IsRelation {
			if len(h.notKinds) < maxNotKinds {
				h.notKinds = append(h.notKinds, m)
			}
			return
		}
	}
	// Its entities in every shard, and no other kind's.
	all := m.Or(&h.shardTags)
	f := &arche.MaskFilter{Include: m, Exclude: all.Not()}
	h.kinds = append(h.kinds, auditKind{mask: m, cached: a.Cache().Register(f)})
}

// nextOfKind returns the slot of the next entity of the next kind in
// turn, or false when no kind has an entity (a kind left empty leaves
// the kinds).
func (h *HostReplicator) nextOfKind() (int32, bool) {
	a := h.w.Arche()
	for len(h.kinds) > 0 {
		h.kindAt %= len(h.kinds)
		k := &h.kinds[h.kindAt]
		q := a.Query(&k.cached)
		n := q.Count()
		if n == 0 {
			q.Close()
			a.Cache().Unregister(&k.cached)
			h.kinds[h.kindAt] = h.kinds[len(h.kinds)-1]
			h.kinds = h.kinds[:len(h.kinds)-1]
			h.lastKind = arche.Mask{} // it may come back
			continue
		}
		i := k.next % n
		k.next = i + 1
		h.kindAt++
		if !q.Step(i + 1) { // (it closed the query)
			return 0, false
		}
		e := q.Entity()
		q.Close()
		slot, ok := h.w.NetSlot(e)
		return slot, ok
	}
	return 0, false
}
