package replicate

import arche "github.com/mlange-42/arche/ecs"

// The watch (CheckReports only): after each system of a step, every
// networked entity's replicated components are quantized and compared with
// what they were before the system ran, so that a write or an addition
// without a report that CheckReports finds names the system that made it.
// It costs a pass over the world per system: a debugging aid.

// watch is what WatchSystem keeps between its calls.
type watch struct {
	img     []int32        // by slot: each component's quantized value as last seen
	has     []uint16       // by slot: the components seen
	ent     []arche.Entity // by slot: the entity they were seen on
	culprit map[watchKey]culprit
	frame   uint32 // the frame of the last call
}

// watchKey is a component of the entity in a slot.
type watchKey struct {
	slot int32
	comp int
}

// culprit is the system the watch saw make a write without a report, and
// the frame it did.
type culprit struct {
	system string
	frame  uint32
}

// WatchSystem notes, after the system called name ran (name empty: at the
// start of a step, for what changed between steps), the replicated
// components it wrote or added without a report (ecs.MutateComponent), so
// that CheckReports names that system in its UnreportedError (at the end
// of the step, or of the next one for a system that runs after the
// replicator). It does nothing unless HostConfig.CheckReports is set. Set
// it as the schedule's ecs.Schedule.Watch (the session's host does so when
// CheckReports is set); it runs on the simulation goroutine.
func (h *HostReplicator) WatchSystem(name string) {
	if !h.cfg.CheckReports {
		return
	}
	w := h.w
	wt := &h.watch
	if f := uint32(w.Frame()); wt.frame != f {
		wt.frame = f
		for k, c := range wt.culprit {
			if f-c.frame > 1 {
				delete(wt.culprit, k)
			}
		}
	}
	if name == "" {
		name = betweenSteps
	}
	reg := h.reg
	a := w.Arche()
	n := w.NetSlots()
	if len(wt.has) < n {
		wt.has = append(wt.has, make([]uint16, n-len(wt.has))...)
		wt.ent = append(wt.ent, make([]arche.Entity, n-len(wt.ent))...)
		wt.img = append(wt.img, make([]int32, n*reg.fields-len(wt.img))...)
	}
	for slot := range n {
		ent, _, ok := w.SlotEntity(int32(slot))
		if !ok {
			wt.has[slot] = 0
			continue
		}
		if wt.ent[slot] != ent {
			wt.ent[slot], wt.has[slot] = ent, 0 // another entity: nothing of it seen yet
		}
		for c := range reg.comps {
			comp := &reg.comps[c]
			bit := uint16(1) << c
			v := a.GetUnchecked(ent, comp.id)
			if v == nil {
				wt.has[slot] &^= bit
				continue
			}
			q := h.scratch[:comp.fields:comp.fields]
			comp.quant(v, q)
			at := slot*reg.fields + reg.offset[c]
			seen := wt.img[at : at+comp.fields]
			if wt.has[slot]&bit != 0 && equalImage(q, seen) {
				continue
			}
			// Changed, or added to an entity seen before: a write or an
			// addition, unless it was reported.
			if wt.has[slot] != 0 && !w.Reported(ent, comp.id) {
				if wt.culprit == nil {
					wt.culprit = map[watchKey]culprit{}
				}
				k := watchKey{int32(slot), c}
				if old, named := wt.culprit[k]; !named || old.frame != wt.frame {
					wt.culprit[k] = culprit{system: name, frame: wt.frame}
				}
			}
			copy(seen, q)
			wt.has[slot] |= bit
		}
	}
}

// betweenSteps is an UnreportedError's System for a write made before
// the step's first system ran: between steps (in a Do, View or hook).
const betweenSteps = "between steps"

// watched returns the system the watch saw write or add component c of the
// entity in slot without a report, this frame or the one before (a system
// that runs after the replicator), or "".
func (h *HostReplicator) watched(slot int32, c int) string {
	cp, ok := h.watch.culprit[watchKey{slot, c}]
	if !ok || h.frame-cp.frame > 1 {
		return ""
	}
	return cp.system
}
