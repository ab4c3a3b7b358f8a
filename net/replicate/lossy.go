package replicate

import "github.com/tandem-go/tandem/ecs"

// A value a codec cannot carry (beyond its range, it arrives clamped; a
// field it leaves out) puts the clients in another world than the host's,
// and replication alone never notices: the host's wire image is what it
// sends, whatever the value. CheckReports, for tests, stops the host at the
// first (LossyCodecError); a host in play finds them with its audit, a few
// entities a step (HostReplicator.Lossy, HostConfig.OnLossy), and a restored
// world is looked at whole once (Registry.CheckCodecs): a game whose new
// version narrowed a codec's range restores values that no longer fit it.
// Only codecs that say how to compare (Codec.Equal, or a value of whole
// numbers) are checked.

// CheckCodecs looks at every replicated component of every networked
// entity of the registry's world and returns how many values do not survive
// their codec (Equal(v, Dequantize(Quantize(v))) is false), with the first
// of them, for a report. Cost: the world's entities, each component
// quantized once: for a restore, not for every step.
func (r *Registry) CheckCodecs() (n int, first *LossyCodecError) {
	w := r.world
	a := w.Arche()
	var q [MaxFields]int32
	for slot := range int32(w.NetSlots()) {
		e, id, ok := w.SlotEntity(slot)
		if !ok {
			continue
		}
		for c := range r.comps {
			comp := &r.comps[c]
			if comp.survives == nil {
				continue
			}
			v := a.GetUnchecked(e, comp.id)
			if v == nil {
				continue
			}
			comp.quant(v, q[:comp.fields])
			if comp.survives(v, q[:comp.fields]) {
				continue
			}
			if n++; first == nil {
				first = &LossyCodecError{Component: comp.name, ID: id, Entity: e, Frame: w.Frame(), Restore: true}
			}
		}
	}
	return n, first
}

// Lossy returns how many times the host's audit (HostConfig.Audit) found a
// value that does not survive its codec: a value beyond the codec's range
// (a velocity past MaxSpeed), a field the codec leaves out. Clients hold
// another value than the host's for each; HostConfig.OnLossy names them. A
// value that stays so is found again at each pass of the audit over the
// world.
func (h *HostReplicator) Lossy() uint64 { return h.lossy }

// lossyFound notes a value the audit found that does not survive its codec.
func (h *HostReplicator) lossyFound(comp *component, id ecs.NetID, w *ecs.World, slot int) {
	h.lossy++
	if h.cfg.OnLossy != nil {
		ent, _, _ := w.SlotEntity(int32(slot))
		h.lossyList = append(h.lossyList, LossyCodecError{Component: comp.name, ID: id, Entity: ent, Frame: ecs.Frame(h.frame), Audit: true})
	}
}
