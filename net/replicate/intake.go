package replicate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// A step's intake: the journal's reported writes into the shared images,
// quantized once for every peer, and on a send tick the list of changes in
// network-id order that every peer's packing reads.

// intake quantizes each reported component into the shared image; a new
// image makes the entity pending for the next send tick. The journal holds
// only live entities.
func (h *HostReplicator) intake(changes []ecs.Change) {
	reg := h.reg
	a := h.w.Arche()
	frame := h.frame
	stride := 2 * reg.fields
	keepFrames := historyKeep * uint32(h.cfg.SendEvery)
	for i := range changes {
		ch := &changes[i]
		c := reg.fromBit(ch.Bit)
		if c < 0 {
			continue
		}
		slot := ch.Slot
		e := &h.ents[slot]
		if e.flags&eLive == 0 {
			continue
		}
		comp := &reg.comps[c]
		n := comp.fields
		v := a.GetUnchecked(ch.Entity, comp.id)
		if v == nil {
			// Removed (and reported, or written, reported and then
			// removed, within the step): every peer is sent the entity
			// whole, without it.
			if e.has&(1<<c) != 0 {
				h.dropComponent(slot, e, c)
			}
			continue
		}
		q := h.scratch[:n:n]
		comp.quant(v, q)
		at := int(slot)*stride + reg.offset[c]
		img := h.img[at : at+len(q) : at+len(q)]
		bit := uint16(1) << c
		if e.has&bit != 0 && equalImage(q, img) {
			continue
		}
		if e.changed != frame {
			// The first change of the step: an image that was sent becomes
			// the previous image, current from its since until this frame;
			// the previous one goes to the ring if it was current lately
			// (some peer may still hold it as its baseline), else it goes.
			if e.flags&eSent != 0 && e.since < frame {
				if e.prevUntil != 0 && frame-e.prevUntil < keepFrames {
					h.keepPast(slot, e.prevSince, e.prevUntil, e.prevHas, h.prevImage(slot))
				}
				at := int(slot) * stride
				copy(h.img[at+reg.fields:at+stride], h.img[at:at+reg.fields])
				e.prevSince, e.prevUntil, e.prevHas = e.since, frame, e.has
				e.flags |= eSwapped
			}
			e.flags &^= eSent
			e.since = frame
			e.changed = frame
		}
		copy(img, q)
		if bit&h.told != 0 {
			e.flags |= eTold
		}
		e.has |= bit
		if c == h.grid.pos && !h.grid.stayed(e.cell, img) {
			h.grid.moved(h, slot)
		}
		e.pend |= bit
		if e.flags&ePending == 0 {
			e.flags |= ePending
			h.pending = append(h.pending, slot)
		}
		if h.joins > 0 || e.owner != ecs.HostPeer {
			h.tell(slot, e.owner)
		}
	}
}

// dropComponent takes component c, which the entity in slot no longer has,
// out of its shared image: each peer that holds the entity, its owner too,
// is sent it again as a spawn, whose mask lists the entity's components, so
// a client removes it; a join under way pages it again. An entity that lost
// its position leaves the interest grid: without one it is in every peer's
// scope.
func (h *HostReplicator) dropComponent(slot int32, e *entState, c int) {
	e.has &^= 1 << c
	e.pend &^= 1 << c
	if g := &h.grid; c == g.pos && e.cell >= 0 {
		g.remove(h, slot)
		for _, p := range h.peers {
			if int(slot) < len(p.slots) && p.slots[slot].flags&fOut != 0 {
				p.enter(slot)
			}
		}
	}
	for _, p := range h.peers {
		p.onReown(slot, e.owner)
	}
}

// tell passes a new image of the entity in slot to the joins under way,
// and has its owner sent AuthState, unless the host moves it (eMoved).
func (h *HostReplicator) tell(slot int32, owner ecs.PeerID) {
	if h.joins > 0 {
		for _, p := range h.peers {
			if p.join != nil {
				p.join.onChange(p, slot)
			}
		}
	}
	if owner != ecs.HostPeer && h.ents[slot].flags&eMoved == 0 {
		// (A unit the host moves goes in its owner's States: eMoved, as
		// of its last change; one marked since goes there by movedState,
		// one unmarked since in its turn.)
		if p := h.Peer(owner); p != nil {
			p.authDirty = true
			p.own.noteChanged(slot, h.frame)
		}
	}
}

// prepareTick does a send tick's shared work: the pending entities'
// urgency, measured once for every peer, the list of changes in network-id
// order, and this tick's codes.
func (h *HostReplicator) prepareTick() {
	h.tick++
	h.changes = h.changes[:0]
	h.turning = 0
	var masks maskTally
	nd := h.reg.all &^ h.reg.delta
	for _, slot := range h.pending {
		e := &h.ents[slot]
		if e.flags&eLive == 0 || e.pend == 0 {
			e.flags &^= ePending | eSwapped
			continue
		}
		if !h.measurePrev(e, slot) {
			e.urg = uint8(h.urgency(slot))
			if e.prevUntil != 0 {
				e.dprev = h.diffPrev(slot)
			}
		}
		e.flags &^= ePending | eSwapped | eMoved
		if e.owner != ecs.HostPeer && h.hostMoved(slot) {
			e.flags |= eMoved
		}
		if e.prevUntil != 0 {
			// What an update against the image this change replaced
			// carries: the usual item of a peer that acknowledges.
			masks.add((e.dprev | e.pend&nd) & e.has)
		}
		// Field by field (see appendChange).
		ch := h.appendChange()
		ch.slot, ch.id, ch.comp, ch.owner, ch.urg = slot, e.id, e.pend, e.owner, e.urg
		switch {
		case e.urg < urgent:
		case h.stops(e, slot):
			ch.urg = urgStop
		case e.flags&eBorn != 0 && h.frame-e.tele < youngSends*uint32(h.cfg.SendEvery):
			ch.urg = urgYoung // a young one's turn too: at the top for every peer
		case h.turns(e, slot):
			ch.urg = urgTurn
			h.turning++
		}
		e.pend = 0
	}
	h.pending = h.pending[:0]
	h.common = masks.common()
	h.sortChanges()
	h.grid.distribute(h, h.changes)
	if h.tick%statsEvery == 1 {
		for i := range h.book.n {
			h.book.codes[i] = h.stats.choose(i, h.book.codes[i])
		}
		h.setCodes()
	}
	h.enc.reset()
}

// stops reports whether the change of entity e (in slot) stopped it: its
// velocity is zero, and was not in the image last sent. An urgent stop (a
// shot put on the wall it hit) goes at the top for every peer, as a new
// entity's first changes do: weighed by a far peer's interest it waited,
// the entity's removal (which goes ahead of the changes, within the
// budget) overtook it, and
// the peer drew the shot carried on into the wall to its removal.
func (h *HostReplicator) stops(e *entState, slot int32) bool {
	if !h.velocityChanged(e) {
		return false
	}
	bit := uint16(1) << h.vel
	at, n := h.reg.offset[h.vel], h.reg.comps[h.vel].fields
	if !allZero(h.image(slot)[at : at+n]) {
		return false
	}
	ref, refHas := h.sentImage(e, slot)
	return ref != nil && refHas&bit != 0 && !allZero(ref[at:at+n])
}

// velocityChanged reports whether the pending change of entity e holds its
// ecs.Velocity, which it has, and an image of it was sent before: what
// stops and turns compare.
func (h *HostReplicator) velocityChanged(e *entState) bool {
	if h.vel < 0 || e.ref == 0 {
		return false
	}
	bit := uint16(1) << h.vel
	return e.pend&bit != 0 && e.has&bit != 0
}

// heldAstray reports whether the peer holds the entity in slot moving
// otherwise than it does, by the image the peer acknowledged last (its
// baseline, while the host keeps it): stopped or turned (astray). A client
// moves an entity on by the velocity it holds: a lost state that said
// otherwise goes again first. A body that speeds up or slows down along its
// way (a fall, a car on the throttle) has not turned: its lost states go
// again as others do.
func (p *HostPeer) heldAstray(slot int32) (stopped, turned bool) {
	h := p.h
	if h.vel < 0 {
		return false, false
	}
	bit := uint16(1) << h.vel
	if h.ents[slot].has&bit == 0 {
		return false, false
	}
	ref, has := h.imageRef(slot, p.slots[slot].base)
	base := h.imageOf(slot, ref)
	if base == nil || has&bit == 0 {
		return false, false
	}
	at, n := h.reg.offset[h.vel], h.reg.comps[h.vel].fields
	return h.astray(h.image(slot)[at:at+n], base[at:at+n])
}

// turns reports whether the change of entity e (in slot) turned it: its
// velocity points 30° or more away from the one in the image last sent,
// both moving (astray). Such a change goes at the top within a share of
// each peer's budget (turnshare.go).
func (h *HostReplicator) turns(e *entState, slot int32) bool {
	if !h.velocityChanged(e) {
		return false
	}
	bit := uint16(1) << h.vel
	ref, refHas := h.sentImage(e, slot)
	if ref == nil || refHas&bit == 0 {
		return false
	}
	at, n := h.reg.offset[h.vel], h.reg.comps[h.vel].fields
	_, turned := h.astray(h.image(slot)[at:at+n], ref[at:at+n])
	return turned
}

// astray compares the wire image cur of a velocity with held, one a peer
// holds or was sent: stopped (cur zero, held not), or turned (moving in
// both, in directions 30° or more apart (turnCos), by a change of the
// codec's threshold, Significant, at least).
func (h *HostReplicator) astray(cur, held []int32) (stopped, turned bool) {
	n := len(cur)
	if allZero(cur) {
		return !allZero(held), false
	}
	if n < 2 || allZero(held[:2]) || allZero(cur[:2]) {
		return false, false
	}
	comp := &h.reg.comps[h.vel]
	cx, cy, hx, hy := float64(cur[0]), float64(cur[1]), float64(held[0]), float64(held[1])
	dx, dy := cx-hx, cy-hy
	if t := float64(max(comp.signif[0], comp.signif[1])); dx*dx+dy*dy < t*t {
		return false, false
	}
	dot := cx*hx + cy*hy
	return false, dot < turnCos*math.Sqrt((cx*cx+cy*cy)*(hx*hx+hy*hy))
}

// turnCos is the cosine of 30°, the least change of direction
// of a velocity that is a turn (astray).
const turnCos = 0.8660254037844387

// allZero reports whether every field of a wire image is zero.
func allZero(q []int32) bool {
	for _, v := range q {
		if v != 0 {
			return false
		}
	}
	return true
}

// hostMoved reports whether the host's world marks the entity in slot
// ecs.HostMoved.
func (h *HostReplicator) hostMoved(slot int32) bool {
	ent, _, ok := h.w.SlotEntity(slot)
	return ok && h.w.Arche().Has(ent, h.w.IDs.HostMoved)
}

// appendChange extends the tick's changes by one and returns it, for its
// fields to be written one by one: a literal appended whole is built on the
// stack and copied with a wide load that waits on its narrow stores.
func (h *HostReplicator) appendChange() *change {
	n := len(h.changes)
	if n == cap(h.changes) {
		h.changes = append(h.changes, change{})
	}
	h.changes = h.changes[:n+1]
	return &h.changes[n]
}

// sortChanges orders the tick's changes by network id.
func (h *HostReplicator) sortChanges() {
	ch := h.changes
	sorted := true
	for i := 1; i < len(ch); i++ {
		if ch[i].id < ch[i-1].id {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	h.keys = h.keys[:0]
	for i := range ch {
		h.keys = append(h.keys, uint64(ch[i].id)<<32|uint64(i))
	}
	h.keys, h.tmpKeys = sortKeys(h.keys, h.tmpKeys)
	h.tmpChanges = append(h.tmpChanges[:0], ch...)
	for i, k := range h.keys {
		ch[i] = h.tmpChanges[uint32(k)]
	}
}

// checkReports panics if a live entity's replicated component no longer
// quantizes to its shared image: it was written without a report; or if,
// by its codec's Equal, it differs from what its image dequantizes to:
// what clients hold is not what the host has (HostConfig.CheckReports).
func (h *HostReplicator) checkReports(w *ecs.World) {
	reg := h.reg
	a := w.Arche()
	stride := 2 * reg.fields
	var first *UnreportedError // the step's first; the walk goes on to count the others
	found := func(ue *UnreportedError) {
		if first == nil {
			first = ue
			return
		}
		first.More++
		also := ue.Component + " " + ue.how()
		if len(first.Also) < maxAlso && also != first.Component+" "+first.how() && !slices.Contains(first.Also, also) {
			first.Also = append(first.Also, also)
		}
	}
	for slot := range h.ents {
		e := &h.ents[slot]
		if e.flags&eLive == 0 || e.has == 0 {
			continue
		}
		ent, _, ok := w.SlotEntity(int32(slot))
		if !ok {
			continue
		}
		for c := range reg.comps {
			comp := &reg.comps[c]
			if !a.Has(ent, comp.id) {
				if e.has&(1<<c) != 0 {
					found(&UnreportedError{Component: comp.name, ID: e.id, Entity: ent, Frame: ecs.Frame(h.frame), Removed: true, System: h.watched(int32(slot), c)})
				}
				continue
			}
			if e.has&(1<<c) == 0 {
				found(&UnreportedError{Component: comp.name, ID: e.id, Entity: ent, Frame: ecs.Frame(h.frame), Added: true, System: h.watched(int32(slot), c)})
				continue
			}
			q := h.scratch[:comp.fields:comp.fields]
			comp.quant(a.Get(ent, comp.id), q)
			at := slot*stride + reg.offset[c]
			if !equalImage(q, h.img[at:at+comp.fields]) {
				found(&UnreportedError{Component: comp.name, ID: e.id, Entity: ent, Frame: ecs.Frame(h.frame), System: h.watched(int32(slot), c)})
				continue
			}
			if first == nil && comp.survives != nil && !comp.survives(a.Get(ent, comp.id), q) {
				panic(&LossyCodecError{Component: comp.name, ID: e.id, Entity: ent, Frame: ecs.Frame(h.frame)})
			}
		}
	}
	if first != nil {
		panic(first)
	}
}

// UnreportedError is what a host with HostConfig.CheckReports panics with
// when a replicated component of a networked entity was written, added or
// removed without a report (ecs.MutateComponent): no peer would be sent it.
type UnreportedError struct {
	Component string       // the component's codec name
	ID        ecs.NetID    // the entity's network id
	Entity    arche.Entity // the entity
	Frame     ecs.Frame    // the step that found it
	Added     bool         // the component was added, not written
	Removed   bool         // the component was removed, not written
	// Audit: found by the host's audit (HostConfig.Audit), which sent the
	// write; false: by CheckReports, which panics.
	Audit bool
	// System names the system that made the write, when CheckReports saw
	// it (HostReplicator.WatchSystem: the schedule's Watch), or is
	// "between steps" for one made in a Do, View or hook; "" when not
	// known.
	System string
	// More counts the other writes, additions and removals without a
	// report that CheckReports found in the same step; Also names, for up
	// to four of them, each other component and where it was written
	// ("Velocity written by system \"wander\""), once each.
	More int
	Also []string
}

// maxAlso bounds UnreportedError.Also.
const maxAlso = 4

// how says how the component was changed and where ("written by system
// \"wander\"").
func (e *UnreportedError) how() string {
	what := "written"
	switch {
	case e.Added:
		what = "added"
	case e.Removed:
		what = "removed"
	}
	switch {
	case e.System == "":
	case e.System == betweenSteps:
		what += " between steps (in a Do, View or hook)"
	case engineSystem(e.System):
		what += " in the engine's system " + strconv.Quote(e.System) + ", by a hook or command handler of the game it ran (Game.Join, Game.Leave, a command)"
	default:
		what += " by system " + strconv.Quote(e.System)
	}
	return what
}

// Error names the component, the entity and where the write was, and what
// to do; for CheckReports, how many more the step had, and which.
func (e *UnreportedError) Error() string {
	what := e.how()
	if e.Audit {
		return fmt.Sprintf("replicate: component %s of networked entity %d (ECS entity %v) was %s without a report: call ecs.MutateComponent after writing, adding or removing a replicated component, in a system before the engine's output stage; peers were not sent it until the host's audit found it, at frame %d, and sent it (HostConfig.Audit; a tandem host's HostConfig.Replication.Audit)", e.Component, e.ID, e.Entity, what, e.Frame)
	}
	msg := fmt.Sprintf("replicate: component %s of networked entity %d (ECS entity %v) was %s without a report, or reported after replication ran: call ecs.MutateComponent after writing, adding or removing a replicated component, in a system before the engine's output stage, or no peer is sent it (found by HostConfig.CheckReports at frame %d; a tandem host's HostConfig.Replication.CheckReports)", e.Component, e.ID, e.Entity, what, e.Frame)
	if e.More > 0 {
		msg += fmt.Sprintf("; %d more in the same step", e.More)
		if len(e.Also) > 0 {
			msg += ", among them " + strings.Join(e.Also, "; ")
		}
	}
	return msg
}

// LossyCodecError is what a host with HostConfig.CheckReports panics with
// when a replicated component's value differs, by its codec's own Equal,
// from what its wire image dequantizes to: every client holds another value
// than the host's. A field the codec does not carry (Quantize and
// Dequantize leave it out), a value beyond the codec's range, which arrives
// clamped (a velocity past MaxSpeed, a position millions of units out), or
// an Equal stricter than the codec's precision (a predicting client would
// be corrected again and again).
type LossyCodecError struct {
	Component string       // the component's codec name
	ID        ecs.NetID    // the entity's network id
	Entity    arche.Entity // the entity
	Frame     ecs.Frame    // the step that found it
	// Audit: found by the host's audit (HostConfig.Audit, OnLossy);
	// Restore: by Registry.CheckCodecs, a restore's look at its world;
	// neither: by CheckReports, which panics.
	Audit, Restore bool
}

// Error names the component, the entity and the values that differ.
func (e *LossyCodecError) Error() string {
	by := "HostConfig.CheckReports"
	switch {
	case e.Audit:
		by = "the host's audit"
	case e.Restore:
		by = "the check of the restored world"
	}
	return fmt.Sprintf("replicate: component %s of networked entity %d (ECS entity %v) does not survive its codec: Equal(v, Dequantize(Quantize(v))) is false, so clients hold another value than the host's: carry every field Equal compares in Quantize and Dequantize, keep the value within the codec's range (beyond it, it arrives clamped), or give Equal the codec's precision as its tolerance (found by %s at frame %d)", e.Component, e.ID, e.Entity, by, e.Frame)
}

// engineSystem reports whether a system of that name is one of the
// engine's, which run the game's hooks and command handlers: net.*,
// predict.*, save.*, tandem.*.
func engineSystem(name string) bool {
	for _, p := range []string{"net.", "predict.", "save.", "tandem."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
