package replicate

import (
	"fmt"
	"math"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// stateReader decodes the bit-packed part of one State message.
type stateReader struct {
	c      *ClientReplicator
	r      wire.BitReader
	frame  ecs.Frame
	common uint16 // the message's common mask
	// The message's common base: the newest image, or the image of the
	// message's frame less age.
	newest bool
	age    uint64
	missed bool // an update's baseline was missing
}

// get reads a value of stream s, which the message's code block must list.
func (sr *stateReader) get(s int) uint64 {
	c := sr.c
	if !c.used.has(s) {
		sr.r.Fail(fmt.Errorf("%w: an item uses a stream the message did not announce", wire.ErrInvalid))
		return 0
	}
	u := c.book.codes[s].get(&sr.r)
	if c.cfg.Meter != nil && sr.r.Err() == nil {
		c.cfg.Meter.count(s, u)
	}
	return u
}

// value reads a zig-zag value of stream s that must fit 32 bits.
func (sr *stateReader) value(s int) int64 {
	v := wire.UnZigZag(sr.get(s))
	if v < math.MinInt32 || v > math.MaxInt32 {
		sr.r.Fail(wire.ErrOverflow)
		return 0
	}
	return v
}

func (sr *stateReader) meter(s int, u uint64) {
	if m := sr.c.cfg.Meter; m != nil {
		m.count(s, u)
	}
}

// maxFrameJump is the most host frames a State or AuthState may be ahead
// of the newest the client holds (Frame): 2²⁴, three days at 60 Hz. A
// host's frames go on with time, and a rejoin starts them anew; one a host
// numbered far past (its word: up to 2³²−1) would hold the client's Frame,
// and the time synchronization that follows it, there for good.
const maxFrameJump = 1 << 24

// checkFrame refuses a message of host frame f far past the newest the
// client holds (maxFrameJump).
func (c *ClientReplicator) checkFrame(f ecs.Frame) error {
	if c.frame != 0 && f > c.frame && f-c.frame > maxFrameJump {
		return fmt.Errorf("%w: a message of host frame %d, %d frames past the newest (%d)", ErrMalformed, f, f-c.frame, c.frame)
	}
	return nil
}

// applyState applies a State message (PROTOCOL.md §9.3).
func (c *ClientReplicator) applyState(payload []byte) error {
	br := wire.NewReader(payload)
	frame := ecs.Frame(br.Uvarint32())
	if err := br.Err(); err != nil {
		return fmt.Errorf("%w: state: %v", ErrMalformed, err)
	}
	if err := c.checkFrame(frame); err != nil {
		return err
	}
	sr := stateReader{c: c, r: wire.NewBitReader(br.Rest()), frame: frame}
	r := &sr.r
	n := r.ReadExpGolomb(0)
	if n > uint64(r.BitsLeft()) {
		return fmt.Errorf("%w: state announces %d items", ErrMalformed, n)
	}
	c.book.readHeader(r, 2+2*c.reg.fields, &c.used)
	sr.common = uint16(r.ReadBits(uint(len(c.reg.comps))))
	if sr.newest = r.ReadBool(); sr.newest {
		sr.meter(meterCommonBase, 1)
	} else {
		sr.meter(meterCommonBase, 0)
		if sr.age = sr.get(streamAge); sr.age == 0 && r.Err() == nil {
			return fmt.Errorf("%w: a common base of age 0", ErrMalformed)
		}
	}
	var prev uint64
	for range n {
		gap := sr.get(streamID)
		id := prev + gap + 1
		if r.Err() != nil {
			break
		}
		if id > math.MaxUint32 || id < prev {
			return fmt.Errorf("%w: network id overflows", ErrMalformed)
		}
		prev = id
		if err := c.stateItem(&sr, ecs.NetID(id)); err != nil {
			return err
		}
	}
	if err := r.Finish(); err != nil {
		return fmt.Errorf("%w: state: %v", ErrMalformed, err)
	}
	if frame > c.frame {
		c.frame = frame
	}
	if fo, ok := c.cfg.Observer.(FrameObserver); ok {
		fo.Heard(frame)
	}
	if sr.missed {
		return ErrNoBaseline
	}
	return nil
}

// Meter streams beyond the code streams: what an item's fixed codes say.
const (
	meterKind       = maxStreams + iota // 0 update, 1 spawn, 2 removal
	meterBase                           // 1: the newest image is the baseline
	meterMask                           // the component mask
	meterOwner                          // a spawn's owner
	meterSnap                           // a snap head's age
	meterSpawnSnap                      // a spawn's snap age + 1 (0: none)
	meterRemovalAge                     // a removal's age
	meterCommonBase                     // a message's common base: 1 the newest image, else 0 and an age (stream 1)
	meterStreams
)

// stateItem applies one item of a State message: its head, then what the
// head says follows.
func (c *ClientReplicator) stateItem(sr *stateReader, id ecs.NetID) error {
	r := &sr.r
	ncomp := uint(len(c.reg.comps))
	if c.itemHook != nil {
		defer func() { c.itemHook(id, 0) }()
	}
	if r.ReadBool() {
		// The common head: an update against the message's common base,
		// with its common mask.
		sr.meter(meterKind, 3)
		return c.update(sr, id, sr.newest, sr.age, sr.common, 0)
	}
	switch {
	case !r.ReadBool():
		sr.meter(meterKind, 0)
		return c.updateHead(sr, id, 0)
	case !r.ReadBool():
		sr.meter(meterKind, 1)
		owner := r.ReadExpGolomb(0)
		mask := r.ReadBits(ncomp)
		var snap uint32 // the age + 1 of a teleport its pose is of; 0: none
		if r.ReadBool() {
			snap = uint32(r.ReadBits(snapAgeBits)) + 1
		}
		sr.meter(meterOwner, owner)
		sr.meter(meterMask, mask)
		sr.meter(meterSpawnSnap, uint64(snap))
		if owner > math.MaxUint16 {
			return fmt.Errorf("%w: owner %d is not a peer id", ErrMalformed, owner)
		}
		if snap != 0 && (c.pose < 0 || mask&(1<<uint(c.pose)) == 0) {
			return fmt.Errorf("%w: a spawn of a teleport without a Transform", ErrMalformed)
		}
		q := c.q
		for _, ci := range c.reg.order {
			if mask&(1<<ci) == 0 {
				continue
			}
			off := c.reg.offset[ci]
			s := streamField + c.reg.fields + off
			for i := range c.reg.comps[ci].fields {
				q[off+i] = int32(sr.value(s + i))
			}
		}
		if err := r.Err(); err != nil {
			return fmt.Errorf("%w: spawn: %v", ErrMalformed, err)
		}
		return c.spawn(id, ecs.PeerID(owner), uint16(mask), sr.frame, q, false, snap)
	case !r.ReadBool():
		sr.meter(meterKind, 2)
		age := r.ReadExpGolomb(0)
		sr.meter(meterRemovalAge, age)
		if r.Err() != nil {
			return nil // the message's error
		}
		if age > uint64(sr.frame) {
			return fmt.Errorf("%w: a removal %d frames older than its message of frame %d", ErrMalformed, age, sr.frame)
		}
		c.despawn(id, sr.frame-ecs.Frame(age))
		return nil
	}
	// An update whose pose is of a teleport, snap-age frames old.
	sr.meter(meterKind, 4)
	age := uint32(r.ReadBits(snapAgeBits))
	sr.meter(meterSnap, uint64(age))
	return c.updateHead(sr, id, age+1)
}

// updateHead reads the rest of an update's head (its baseline and mask)
// and applies the update; snap is the age + 1 of a teleport its pose is of
// (0: none).
func (c *ClientReplicator) updateHead(sr *stateReader, id ecs.NetID, snap uint32) error {
	r := &sr.r
	newest := r.ReadBool()
	var age uint64
	if newest {
		sr.meter(meterBase, 1)
	} else {
		sr.meter(meterBase, 0)
		age = sr.get(streamAge)
	}
	mask := uint16(r.ReadBits(uint(len(c.reg.comps))))
	sr.meter(meterMask, uint64(mask))
	if r.Err() != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, r.Err())
	}
	if snap != 0 && (c.pose < 0 || mask&(1<<uint(c.pose)) == 0) {
		return fmt.Errorf("%w: a snap head on an item without a Transform", ErrMalformed)
	}
	return c.update(sr, id, newest, age, mask, snap)
}

// update applies an update item: a baseline, the components that differ
// from it, residuals or absolute images. snap is the age + 1 of the teleport
// the pose is of (0: none): the pose is drawn as a jump if no state of the
// teleport's frame or later was applied yet.
func (c *ClientReplicator) update(sr *stateReader, id ecs.NetID, newest bool, age uint64, mask uint16, snap uint32) error {
	r := &sr.r
	reg := c.reg
	if mask&^reg.all != 0 {
		return ErrUnknownComponent
	}
	absolute := !newest && age == 0
	e, known := c.w.EntityOf(id)
	var slot int32
	var base []int32
	var bhas uint16
	var bframe uint32
	var skip bool // read past it
	frame := uint32(sr.frame)
	if known {
		slot, _ = c.w.NetSlot(e)
		if !absolute {
			if !newest && uint64(frame) <= age {
				return fmt.Errorf("%w: baseline before frame 0", ErrMalformed)
			}
			var f uint32
			if !newest {
				f = frame - uint32(age)
			}
			base, bhas, bframe = c.baseline(slot, f)
			if newest && base != nil && bframe >= frame {
				// The newest image held is not older than the item: a
				// later item overtook it, and the image the host coded it
				// against (the newest then) was replaced. Its values
				// cannot be known: read past it, as without a baseline.
				base = nil
			}
			if base == nil {
				// Read past it. An update older than what the entity holds
				// (sent before the entity left the peer's scope and came
				// back, say) is no news; a newer one is a miss, said once
				// the rest of the message is applied.
				if frame > c.slots.at(slot).applied {
					c.stats.DeltaMisses++
					sr.missed = true
				} else {
					c.stats.Ignored++
				}
				skip = true
			} else {
				copy(c.bq, base)
				base = c.bq
			}
		}
	}
	q := c.q
	pr := &c.pred
	predict := pr.on && bhas&pr.velBit != 0 && !absolute
	for _, ci := range reg.order {
		bit := uint16(1) << ci
		comp := &reg.comps[ci]
		off := reg.offset[ci]
		if mask&bit == 0 {
			if base != nil && reg.delta&bit != 0 {
				copy(q[off:off+comp.fields], base[off:off+comp.fields])
			}
			continue
		}
		if absolute || reg.delta&bit == 0 {
			s := streamField + reg.fields + off
			for i := range comp.fields {
				q[off+i] = int32(sr.value(s + i))
			}
			continue
		}
		s := streamField + off
		for i := range comp.fields {
			d := wire.UnZigZag(sr.get(s + i))
			if base == nil {
				continue // unknown entity: read past it
			}
			if predict && ci == pr.poseComp {
				d += pr.motion(i, base[pr.vel+i], q[pr.vel+i], frame-bframe)
			}
			if w := comp.wrap[i]; w > 0 {
				q[off+i] = wrapAdd(base[off+i], int32(d%int64(w)), w)
				continue
			}
			v := int64(base[off+i]) + d
			if v < math.MinInt32 || v > math.MaxInt32 {
				r.Fail(wire.ErrOverflow)
				break
			}
			q[off+i] = int32(v)
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: update: %v", ErrMalformed, err)
	}
	if !known {
		c.stats.UnknownEntity++
		return nil
	}
	if skip {
		// Its delta-coded components cannot be known; those that are not
		// (absolute) still apply if newer than what the entity holds of
		// them: a component added to the entity rides this update alone.
		c.applyAbsolute(e, slot, mask&^reg.delta, sr.frame, q)
		return nil
	}
	c.stats.Updates++
	has := mask & reg.delta
	if !absolute {
		has |= bhas & reg.delta
	}
	s := c.slots.at(slot)
	fresh := frame > s.applied
	jump := snap != 0 && fresh && uint64(s.applied)+uint64(snap-1) < uint64(frame)
	if has != 0 {
		c.remember(slot, frame, has, q)
	}
	a := c.w.Arche()
	// The host sends an entity of this client's own in States when it marks
	// it ecs.HostMoved (drawn from them, below). One this client predicts
	// all the same (a game that marks it on one side only) is marked here
	// too, by a fresh State newer than the spawn that gave it to this
	// client (an older one was sent while it was another's), unless it was
	// drawn from states here before: then the game took the mark away, to
	// predict it again, and the host's goes next.
	// Any other State of an entity it predicts is kept as a baseline and
	// not applied: its AuthStates correct it.
	own := c.cfg.Auth != nil && c.owns(slot)
	if own && !a.Has(e, c.w.IDs.HostMoved) {
		if !fresh || frame <= s.spawned || c.wasMoved(slot) {
			return nil
		}
		a.Add(e, c.w.IDs.HostMoved)
		c.stats.MarkedByHost++
	}
	var wrote uint16 // the components written, for a WriteObserver
	for ci := range reg.comps {
		bit := uint16(1) << ci
		comp := &reg.comps[ci]
		off := reg.offset[ci]
		if reg.delta&bit == 0 || !fresh || has&bit == 0 || mask&bit == 0 && s.applied == bframe {
			continue // (what is not delta-coded: applyAbsolute, below)
		}
		if !a.Has(e, comp.id) {
			if mask&bit == 0 {
				continue // of the baseline only: the entity lost it since
			}
			a.Add(e, comp.id)
		}
		comp.dequant(q[off:off+comp.fields], a.Get(e, comp.id))
		wrote |= bit
	}
	wrote |= c.applyAbsolute(e, slot, mask&^reg.delta, sr.frame, q)
	if fresh {
		s.applied = frame
	}
	jump = jump && a.Has(e, c.w.IDs.Interpolated)
	if jump {
		ip := (*ecs.Interpolated)(a.Get(e, c.w.IDs.Interpolated))
		ip.Prev = *(*ecs.Transform)(a.Get(e, c.w.IDs.Transform))
		ip.Snap = true
		c.stats.Snaps++
	}
	if own && fresh {
		c.movedFrame = max(c.movedFrame, sr.frame)
		c.markMoved(slot)
	}
	if c.cfg.Observer != nil {
		if c.wo != nil {
			c.wo.Wrote(e, sr.frame, Components(wrote))
		}
		if c.jo != nil && jump {
			c.jo.Jumped(e, sr.frame-ecs.Frame(snap-1))
		}
		c.cfg.Observer.Applied(e, sr.frame)
	}
	return nil
}

// wasMoved reports whether the entity in slot, of this client's own, was
// drawn from states as ecs.HostMoved since its last AuthState as a
// predicted entity (unmarked).
func (c *ClientReplicator) wasMoved(slot int32) bool {
	_, ok := c.hostMoved[slot]
	return ok
}

// owns reports whether this client owns the entity in slot.
func (c *ClientReplicator) owns(slot int32) bool {
	return c.cfg.Local != ecs.HostPeer && c.w.SlotOwner(slot) == c.cfg.Local
}

// applyAbsolute applies the components of mask (none delta-coded) that q
// holds to the entity e in slot, each one newer than what e holds of it
// (freshND), adding it if e lacks it, and returns those it wrote.
func (c *ClientReplicator) applyAbsolute(e arche.Entity, slot int32, mask uint16, frame ecs.Frame, q []int32) (wrote uint16) {
	if mask == 0 {
		return 0
	}
	reg := c.reg
	a := c.w.Arche()
	for ci := range reg.comps {
		if mask&(1<<uint(ci)) == 0 || !c.freshND(slot, ci, frame) {
			continue
		}
		comp := &reg.comps[ci]
		if !a.Has(e, comp.id) {
			a.Add(e, comp.id)
		}
		off := reg.offset[ci]
		comp.dequant(q[off:off+comp.fields], a.Get(e, comp.id))
		wrote |= 1 << uint(ci)
	}
	return wrote
}

// spawn creates (or, if present, updates) entity id from a whole image q
// (components of mask) of frame; jump draws an entity held as a jump to it,
// and so does snap, the age + 1 of a teleport its pose is of (0: none), if
// no state of the entity from the teleport's frame or later was applied
// yet, as an update's snap head does. On a spawn that makes the entity, snap
// (of a teleport, or of the entity's making in play) is told to a
// BirthObserver.
// A newer spawn of an entity held removes the replicated components mask
// leaves out (the host's entity lost them), but from an entity this client
// predicts, whose spawns it skips.
func (c *ClientReplicator) spawn(id ecs.NetID, owner ecs.PeerID, mask uint16, frame ecs.Frame, q []int32, jump bool, snap uint32) error {
	reg := c.reg
	if mask&^reg.all != 0 {
		return ErrUnknownComponent
	}
	if removed, dead := c.tomb[id]; dead {
		if frame <= removed {
			c.stats.Ignored++ // sent before its removal, arrived after it
			return nil
		}
		delete(c.tomb, id) // the entity came back (into scope)
	}
	a := c.w.Arche()
	e, ok := c.w.EntityOf(id)
	for !ok && c.w.Networked() >= c.cfg.MaxEntities {
		if !c.departOne() {
			return ErrTooManyEntities
		}
	}
	if !ok {
		c.ids = append(c.ids[:0], c.w.IDs.NetworkIdentity)
		if owner != c.cfg.Local {
			c.ids = append(c.ids, c.w.IDs.Interpolated)
		}
		for ci := range reg.comps {
			if mask&(1<<uint(ci)) != 0 {
				c.ids = append(c.ids, reg.comps[ci].id)
			}
		}
		c.pending = ecs.NetworkIdentity{ID: id, Owner: owner}
		e = a.NewEntityFn(c.initFn, c.ids...)
		c.stats.Spawns++
		slot, _ := c.w.NetSlot(e)
		c.forgetSlot(slot)
		c.slots.at(slot).spawned = uint32(frame)
		for ci := range reg.comps {
			if mask&(1<<uint(ci)) == 0 {
				// The host's entity lacks it as of frame: an older state
				// that carries it, arriving late, does not add it.
				c.absentSince(slot, ci, frame)
			}
		}
	}
	stale := false
	if ok {
		// An older spawn than one applied (an owner change overtaken by the
		// next) does not set the owner back; the rest goes by freshness.
		stale = c.staleSpawn(e, frame)
		switch ni, _ := c.w.Identity(e); {
		case ni.Owner != owner && !stale:
			ecs.SetOwner(c.w, e, owner)
		case ni.Owner == c.cfg.Local && c.cfg.Auth != nil && !a.Has(e, c.w.IDs.HostMoved):
			// A repeated spawn of an entity this client predicts: its
			// state comes through AuthState and reconciliation, never as
			// a snap back. Its image is kept all the same: the host, told
			// it arrived, may code a later update against it (once the
			// entity is another's).
			slot, _ := c.w.NetSlot(e)
			c.remember(slot, uint32(frame), mask&reg.delta, q)
			return nil
		}
	}
	slot, _ := c.w.NetSlot(e)
	s := c.slots.at(slot)
	if ok && s.leaving != 0 {
		// Kept to be drawn to its removal, it came back into scope (the
		// tombstone let only a newer spawn through): it stays.
		s.leaving = 0
		c.stays(e)
	}
	fresh := uint32(frame) > s.applied || !ok
	snapped := ok && snap != 0 && uint64(s.applied)+uint64(snap-1) < uint64(frame)
	switch {
	case ok && fresh:
		c.dropAbsent(e, slot, mask, frame)
	case ok && !stale:
		// Overtaken by an update (which says nothing of the components
		// it does not carry): what is not delta-coded goes by its own
		// frame.
		c.dropAbsentND(e, slot, mask, frame)
	}
	c.remember(slot, uint32(frame), mask&reg.delta, q)
	var wrote uint16 // the components written, for a WriteObserver
	for ci := range reg.comps {
		bit := uint16(1) << ci
		if mask&bit == 0 {
			continue
		}
		comp := &reg.comps[ci]
		// An older spawn, arriving late, neither writes nor adds a
		// component: the entity may have lost it since.
		if reg.delta&bit != 0 && !fresh || reg.delta&bit == 0 && !c.freshND(slot, ci, frame) {
			continue
		}
		if !a.Has(e, comp.id) {
			a.Add(e, comp.id)
		}
		comp.dequant(q[reg.offset[ci]:reg.offset[ci]+comp.fields], a.Get(e, comp.id))
		wrote |= bit
	}
	if fresh {
		s.applied = uint32(frame)
	}
	jumped := false
	if !ok {
		c.spawned(e, owner, frame)
	} else if (jump || snapped) && c.jump(e) && snapped {
		c.stats.Snaps++
		jumped = true
	}
	if c.cfg.Observer != nil {
		if c.wo != nil {
			c.wo.Wrote(e, frame, Components(wrote))
		}
		if c.jo != nil && jumped {
			c.jo.Jumped(e, frame-ecs.Frame(snap-1))
		}
		c.cfg.Observer.Applied(e, frame)
		if bo, born := c.cfg.Observer.(BirthObserver); born && !ok && snap != 0 {
			bo.Born(e, frame-min(frame, ecs.Frame(snap-1)))
		}
	}
	return nil
}

// spawned finishes a new entity: its interpolation starts at its pose, and
// the game adds its local components.
func (c *ClientReplicator) spawned(e arche.Entity, owner ecs.PeerID, frame ecs.Frame) {
	c.jump(e)
	if c.cfg.OnSpawn != nil {
		c.cfg.OnSpawn(e, owner, frame)
	}
}

// jump marks entity e's pose as one drawn without a blend from the poses
// before it (a spawn's, a rejoin's, a teleport's), and reports whether it
// did: not for an entity drawn without interpolation, or without a pose.
func (c *ClientReplicator) jump(e arche.Entity) bool {
	a := c.w.Arche()
	if !a.Has(e, c.w.IDs.Interpolated) || !a.Has(e, c.w.IDs.Transform) {
		return false
	}
	ip := (*ecs.Interpolated)(a.Get(e, c.w.IDs.Interpolated))
	ip.Prev = *(*ecs.Transform)(a.Get(e, c.w.IDs.Transform))
	ip.Snap = true
	return true
}

// dropAbsent removes from e (in slot) the replicated components that mask,
// the components of a newer spawn of it, of frame, leaves out, and dates
// their absence (absentSince), held or not.
func (c *ClientReplicator) dropAbsent(e arche.Entity, slot int32, mask uint16, frame ecs.Frame) {
	a := c.w.Arche()
	for ci := range c.reg.comps {
		if mask&(1<<uint(ci)) != 0 {
			continue
		}
		if id := c.reg.comps[ci].id; a.Has(e, id) {
			a.Remove(e, id)
			c.stats.Dropped++
		}
		c.absentSince(slot, ci, frame)
	}
}

// dropAbsentND removes from e (in slot) the replicated components that are
// not delta-coded, that mask, of a spawn of frame, leaves out, and that e
// holds as of an older frame (freshND), dating their absence.
func (c *ClientReplicator) dropAbsentND(e arche.Entity, slot int32, mask uint16, frame ecs.Frame) {
	a := c.w.Arche()
	for ci := range c.reg.comps {
		if mask&(1<<uint(ci)) != 0 || c.reg.delta&(1<<uint(ci)) != 0 || !c.freshND(slot, ci, frame) {
			continue
		}
		if id := c.reg.comps[ci].id; a.Has(e, id) {
			a.Remove(e, id)
			c.stats.Dropped++
		}
	}
}

// absentSince notes that the entity in slot had no component ci as of
// frame: a state of it from before does not add it (back). One not
// delta-coded is applied by its own frame (freshND), which this moves on; a
// delta-coded one goes by the entity's newest frame, which the caller moves
// on.
func (c *ClientReplicator) absentSince(slot int32, ci int, frame ecs.Frame) {
	if c.reg.delta&(1<<uint(ci)) == 0 {
		row := c.nd.at(slot)
		row[ci] = max(row[ci], int32(frame))
	}
}

// staleSpawn notes a spawn of frame of e, an entity the client holds, and
// reports whether a newer spawn of it came first (clientSlot.spawned: the
// one that made it here, a join page of it, or one that spawned it again;
// or the one its anchor image is of). A newer update does not make a spawn
// stale: an update may go while a later spawn of the entity is still on
// its way (once an earlier one was acknowledged) and overtake it. A join
// page's is noted, never stale: the join lane keeps its order.
func (c *ClientReplicator) staleSpawn(e arche.Entity, frame ecs.Frame) bool {
	slot, _ := c.w.NetSlot(e)
	s := c.slots.at(slot)
	if !c.paging && uint32(frame) < max(s.spawned, s.anchor) {
		return true
	}
	s.spawned = max(s.spawned, uint32(frame))
	return false
}
