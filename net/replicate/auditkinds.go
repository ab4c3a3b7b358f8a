package replicate

import arche "github.com/mlange-42/arche/ecs"

// The audit's kinds: beside its walk of the slots in order, the audit
// looks every kindEvery steps at one entity of each archetype of networked
// entities in turn. A game's kinds of entity are its archetypes, and a
// system that forgets its reports writes one kind: fifty wanderers spawned
// after 30,000 props wait a whole round of the slots (about two minutes
// at 4 a step), and eight steps of the kinds.

// kindEvery is how many steps apart the audit looks at its next kind: a
// look costs about half a microsecond (a query of the archetype), twice
// what the other looks of a step cost together.
const kindEvery = 4

// maxAuditKinds bounds the archetypes the audit keeps in turn: a game that
// makes more (a tag per entity) has the rest looked at by the slot walk
// alone.
const maxAuditKinds = 64

// auditKind is an archetype of networked entities and where the audit is
// in it.
type auditKind struct {
	only arche.MaskFilter // its entities, and no other archetype's
	next int              // the index of the next of them to look at
}

// noteKind adds the archetype of networked entity e to the audit's kinds,
// if it has a replicated component and is not there yet. O(kinds), and
// O(1) for an entity of the archetype noted last.
func (h *HostReplicator) noteKind(e arche.Entity) {
	if h.cfg.Audit <= 0 || h.cfg.CheckReports || !h.w.Alive(e) {
		return
	}
	m := h.w.Arche().Mask(e)
	if m == h.lastKind {
		return
	}
	h.lastKind = m
	if h.replicated.IsZero() {
		for i := range h.reg.comps {
			h.replicated.Set(h.reg.comps[i].id, true)
		}
	}
	if !m.ContainsAny(&h.replicated) {
		return // nothing of it replicated: nothing to find
	}
	for i := range h.kinds {
		if h.kinds[i].only.Include == m {
			return
		}
	}
	if len(h.kinds) < maxAuditKinds {
		h.kinds = append(h.kinds, auditKind{only: m.Exclusive()})
	}
}

// nextOfKind returns the slot of the next entity of the next kind in
// turn, or false when no kind has an entity (an archetype left empty
// leaves the kinds).
func (h *HostReplicator) nextOfKind() (int32, bool) {
	a := h.w.Arche()
	for len(h.kinds) > 0 {
		h.kindAt %= len(h.kinds)
		k := &h.kinds[h.kindAt]
		q := a.Query(&k.only)
		n := q.Count()
		if n == 0 {
			q.Close()
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
