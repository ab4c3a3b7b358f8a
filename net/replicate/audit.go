package replicate

import "github.com/tandem-go/tandem/ecs"

// The audit: a host in play looks at a few networked entities each step,
// in turn, for a replicated component written, added or removed without a
// report (ecs.MutateComponent). No peer would ever be sent such a change,
// so the clients would hold another world than the host's and nothing
// would say so. What the audit finds it reports itself, before the step's
// reports are taken in (the peers are sent it, and a save that keeps the
// component saves it), counts (HostReplicator.Unreported) and passes to
// HostConfig.OnUnreported. Its cost is the entities it looks at, not the
// world's size; CheckReports, for tests and debugging, looks at every
// entity every step and stops the host instead.

// defaultAudit is HostConfig.Audit's default: 4 entities a step, 240 a
// second at 60 steps a second, for about 0.4 µs a step.
const defaultAudit = 4

// audit looks at the next n entity slots, from where the last audit
// stopped, but for one look every kindEvery steps at an entity of the next
// of its kinds (auditkinds.go), and reports each replicated component not
// reported this step whose value no longer quantizes to its shared image,
// that the entity holds without having been reported to, or that it no
// longer holds. It runs before the step's reports are taken in (intake).
func (h *HostReplicator) audit(w *ecs.World, n int) {
	if len(h.ents) == 0 {
		return
	}
	looks := min(n, len(h.ents))
	// One look every kindEvery steps goes to the kinds in turn, the rest
	// to the slots in order.
	if len(h.kinds) > 0 && h.frame%kindEvery == 0 {
		looks--
		if slot, ok := h.nextOfKind(); ok {
			h.auditSlot(w, int(slot))
		}
	}
	for range looks {
		slot := h.auditAt
		h.auditAt++
		if h.auditAt >= len(h.ents) {
			h.auditAt = 0
		}
		h.auditSlot(w, slot)
	}
	// Told once the walk is done: the game may change the world then.
	for i := range h.auditFound {
		h.cfg.OnUnreported(&h.auditFound[i])
	}
	h.auditFound = h.auditFound[:0]
	for i := range h.lossyList {
		h.cfg.OnLossy(&h.lossyList[i])
	}
	h.lossyList = h.lossyList[:0]
}

// Unreported returns how many writes, additions and removals of replicated
// components made without a report (ecs.MutateComponent) the host's audit
// has found, and sent, since the host started (HostConfig.Audit). Anything
// but zero is a bug in a system of the game: HostConfig.OnUnreported names
// the component.
func (h *HostReplicator) Unreported() uint64 { return h.unreported }

// auditSlot looks at the entity in slot (audit), and notes its archetype
// among the audit's kinds.
func (h *HostReplicator) auditSlot(w *ecs.World, slot int) {
	if slot >= len(h.ents) {
		return // networked since the shared state last grew
	}
	reg := h.reg
	a := w.Arche()
	stride := 2 * reg.fields
	e := &h.ents[slot]
	if e.flags&eLive == 0 {
		return
	}
	ent, _, ok := w.SlotEntity(int32(slot))
	if !ok {
		return
	}
	h.noteKind(ent)
	for c := range reg.comps {
		comp := &reg.comps[c]
		// The entity is alive (the network index holds only live
		// ones); nil: it has no such component.
		v := a.GetUnchecked(ent, comp.id)
		added, removed := e.has&(1<<c) == 0, false
		switch {
		case v == nil && added:
			continue
		case v == nil:
			removed = true // the image holds it: removed without a report
		case !added:
			q := h.scratch[:comp.fields:comp.fields]
			comp.quant(v, q)
			at := slot*stride + reg.offset[c]
			if equalImage(q, h.img[at:at+comp.fields]) {
				if comp.survives != nil && !comp.survives(v, q) {
					h.lossyFound(comp, e.id, w, slot)
				}
				continue
			}
		}
		if w.Reported(ent, comp.id) {
			continue // taken in with the step's reports
		}
		h.unreported++
		ecs.MutateComponent(w, ent, comp.id)
		if h.cfg.OnUnreported != nil {
			h.auditFound = append(h.auditFound, UnreportedError{Component: comp.name, ID: e.id, Entity: ent, Frame: ecs.Frame(h.frame), Added: added, Removed: removed, Audit: true})
		}
	}
}
