package replicate

import (
	"math/bits"

	arche "github.com/mlange-42/arche/ecs"
)

// Urgency: the priority a change gains each send tick, measured once for
// every peer against the image last sent.

// Priority units: an item is due when its priority reaches urgent; each send
// tick a dirty item gains between MinUrgency·urgent and urgent, by the size of
// its change (see Codec.Significant).
const urgent = 16

// A new entity's first changes go at the top, for every peer (change.urg
// urgYoung): those of its first youngSends send ticks that are urgent (past
// a threshold: a shot's flight, not a creep's step), so that one that lives
// a few frames reaches a client in two states at least, drawn moving,
// whatever waits for the budget. (At the bottom of what was due, behind
// changes that waited long, its flight waited until its removal came: the
// client drew it still.) A peer the game gives the entity a lower Priority
// of weighs them as any other. Urgent ones only, and two send ticks: in a
// trial's waves of 200 creeps under a full budget, sending every new
// entity's changes at the top for four send ticks drew the other creeps up
// to twice as far off. An urgent change that stops an entity (stops: a
// shot put on the wall it hit) goes above even those (urgStop), so that it
// reaches every peer before the entity's removal, and before a client that
// moves a silent entity on by its velocity while the budget is full
// (interp's HeldBack) has drawn it far past its stop.
const (
	youngSends = 2
	urgYoung   = 255 // a change.urg beyond any urgency: at the top (prioLongest)
	urgStop    = 254 // a stop's change.urg: above the top (prioStop)
	urgTurn    = 253 // a turn's change.urg: above the top within each peer's turnShare
)

// The two highest priorities of a dirty item: prioLongest is where the
// items that waited longest take turns (what waits gains up to it), with
// new entities' first changes, lost spawns and movers entering the peer's
// scope; prioStop, above it, is a stop's, a lost stop's, a lost turn's and
// a fresh turn's within its share (turnshare.go), sent first, in id order.
const (
	prioLongest = 254
	prioStop    = 255
)

// MinUrgency is the least priority a dirty item gains per send tick, as a
// fraction of what makes it due: the slowest creeping change goes out at least
// every 1/MinUrgency send ticks.
const MinUrgency = 1.0 / 8

// urgency returns the priority the entity in slot gains per send tick:
// urgent for a component without thresholds or without a sent image to
// measure from, else in proportion to the largest change since the image last
// sent, against the thresholds. Measured once per tick for every peer.
func (h *HostReplicator) urgency(slot int32) int {
	e := &h.ents[slot]
	if e.pend&h.always != 0 || e.ref == 0 {
		return urgent
	}
	ref, refHas := h.sentImage(e, slot)
	if ref == nil {
		return urgent
	}
	if e.pend&^refHas != 0 {
		return urgent
	}
	cur := h.image(slot)
	best := int64(urgent * MinUrgency)
	pend := e.pend
	plan := h.uplan
	for i := range plan {
		f := &plan[i]
		if pend&f.bit == 0 {
			continue
		}
		d := fieldDiff(cur[f.off], ref[f.off], f.wrap)
		if d < 0 {
			d = -d
		}
		if d >= f.t {
			return urgent
		}
		best = max(best, d*f.inv>>32) // ⌊d·urgent/t⌋, or one less
	}
	return int(best)
}

// sentImage returns the image of entity e (in slot) last sent (e.ref) and
// its components: the previous image, or one the ring keeps; nil when
// neither holds it.
func (h *HostReplicator) sentImage(e *entState, slot int32) ([]int32, uint16) {
	if e.prevSince <= e.ref && e.ref < e.prevUntil {
		return h.prevImage(slot), e.prevHas
	}
	return h.imageAt(slot, e.ref)
}

// measurePrev sets, in one pass over the delta-coded fields, the urgency and
// dprev of the entity e in slot when its urgency is measured from its previous
// image (the usual case: the image last sent was replaced by this change),
// as urgency and diffPrev would; it reports false, doing nothing, otherwise.
// When the previous image was taken from the current one since the last
// send tick (eSwapped) and one component changed since, only that
// component's fields can differ from it, and only they are read.
func (h *HostReplicator) measurePrev(e *entState, slot int32) bool {
	if e.prevUntil == 0 || e.ref == 0 || e.ref < e.prevSince || e.ref >= e.prevUntil ||
		e.pend&h.always != 0 || e.pend&^e.prevHas != 0 {
		return false
	}
	n := h.reg.fields
	at := int(slot) * 2 * n
	img := h.img[at : at+2*n : at+2*n]
	cur, prev := img[:n], img[n:]
	pend := e.pend
	plan := h.dplan
	if e.flags&eSwapped != 0 && pend&(pend-1) == 0 {
		r := h.dcomp[bits.TrailingZeros16(pend)&(MaxComponents-1)]
		plan = plan[r.from:r.to]
	}
	best := int64(urgent * MinUrgency)
	var m uint16
	for i := range plan {
		f := &plan[i]
		a, b := cur[f.off], prev[f.off]
		if a == b {
			continue
		}
		m |= f.bit
		if f.t == 0 || pend&f.bit == 0 {
			continue
		}
		d := fieldDiff(a, b, f.wrap)
		if d < 0 {
			d = -d
		}
		if d >= f.t {
			best = urgent
			continue
		}
		best = max(best, d*f.inv>>32) // ⌊d·urgent/t⌋, or one less
	}
	e.urg = uint8(best)
	e.dprev = m & e.has
	return true
}

// diffPrev returns the delta-coded components whose current image differs
// from the previous one: what an update against the previous image carries,
// found once per send tick for every peer.
func (h *HostReplicator) diffPrev(slot int32) uint16 {
	n := h.reg.fields
	img := h.img[int(slot)*2*n : int(slot+1)*2*n]
	cur, prev := img[:n], img[n:]
	offs := h.doffs
	bits := h.dbits[:len(offs)]
	var m uint16
	for i, off := range offs {
		if cur[off] != prev[off] {
			m |= bits[i]
		}
	}
	return m & h.ents[slot].has
}

// urgencyField is a field urgency measures: its image offset, threshold
// (0: none) and wrap.
type urgencyField struct {
	off  int
	t    int64
	inv  int64 // urgent·2³²/t
	wrap int32
	bit  uint16
}

// fieldRange is the fields of one component in a plan of fields.
type fieldRange struct{ from, to int32 }

// makeUrgencyPlan lists the fields with thresholds and the components
// without.
func (h *HostReplicator) makeUrgencyPlan() {
	reg := h.reg
	for c := range reg.comps {
		comp := &reg.comps[c]
		from := int32(len(h.dplan))
		for i := range comp.fields {
			if comp.delta {
				h.doffs = append(h.doffs, int32(reg.offset[c]+i))
				h.dbits = append(h.dbits, 1<<c)
				f := urgencyField{off: reg.offset[c] + i, wrap: comp.wrap[i], bit: 1 << c}
				if t := comp.signif[i]; t > 0 && comp.signif[0] != 0 {
					f.t, f.inv = int64(t), urgent<<32/int64(t)
				}
				h.dplan = append(h.dplan, f)
			}
		}
		h.dcomp[c] = fieldRange{from: from, to: int32(len(h.dplan))}
		if !comp.delta || comp.signif[0] == 0 {
			h.always |= 1 << c
			continue
		}
		for i := range comp.fields {
			if t := comp.signif[i]; t > 0 {
				h.uplan = append(h.uplan, urgencyField{off: reg.offset[c] + i, t: int64(t), inv: urgent << 32 / int64(t), wrap: comp.wrap[i], bit: 1 << c})
			}
		}
	}
	// What is told an owner first (eTold): the always urgent changes but
	// those of motion, which a walking army makes at every step.
	h.told = h.always
	for _, id := range []arche.ID{reg.world.IDs.Transform, reg.world.IDs.Velocity} {
		if c, ok := reg.Lookup(id); ok {
			h.told &^= 1 << c
		}
	}
}

// markSent notes that the current image of the entity in slot went to a
// peer: it becomes what urgency is measured from, and is kept in the
// history when it is replaced.
func (h *HostReplicator) markSent(slot int32) {
	e := &h.ents[slot]
	e.flags |= eSent
	e.ref = e.since
}
