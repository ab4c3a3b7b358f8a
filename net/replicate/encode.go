package replicate

import (
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// Item flags of STATE, AUTH_STATE and join-page items. Wire-affecting: see
// PROTOCOL.md, "Replication".
const (
	itemSpawn   = 1 << 0 // the entity is new to the peer: owner and every component follow, absolute
	itemDespawn = 1 << 1 // the entity left: nothing follows
	itemShift   = 2      // the component mask follows the flags in the same varint
	// The snap flag is the bit after the delta mask (itemShift + 2n for n
	// registered components): the item's Transform is of a teleport made
	// snap-age frames before the message's frame, and is drawn as a jump.
)

// snapWindow is how many frames after a teleport the items carrying the
// entity's Transform bear the snap flag: long enough that a client hears of
// the teleport through losses and reordering, short enough that its age fits
// one byte.
const snapWindow = 128

// MaxStatePayload is the largest STATE or AUTH_STATE payload, in bytes: with
// the message's kind and length and the largest packet header it fits a
// transport datagram.
const MaxStatePayload = 1100

// DeltaHistory is how many received values of a delta-coded component a
// client keeps per entity. A host deltas only against a value it sent less
// than DeltaReach sends ago, so the client still holds it even when up to
// DeltaHistory-DeltaReach later sends overtook the delta on the way.
// Wire-affecting: both sides must agree.
const (
	DeltaHistory = 8
	DeltaReach   = 4
)

// appendAbsolute appends the image q as zig-zag varints.
func appendAbsolute(dst []byte, q []int32) []byte {
	for _, v := range q {
		dst = wire.AppendUvarint(dst, wire.ZigZag(int64(v)))
	}
	return dst
}

// wrapDiff returns a-b, the short way round when the field wraps at mod.
func wrapDiff(a, b, mod int32) int32 {
	d := a - b
	if mod > 0 {
		d %= mod
		if d >= mod/2 {
			d -= mod
		} else if d < -mod/2 {
			d += mod
		}
	}
	return d
}

// wrapAdd returns b+d, kept within [0, mod) when the field wraps at mod.
func wrapAdd(b, d, mod int32) int32 {
	v := b + d
	if mod > 0 {
		v %= mod
		if v < 0 {
			v += mod
		}
	}
	return v
}

// appendDelta appends q-base per field as zig-zag varints.
func appendDelta(dst []byte, q, base []int32, wrap *[MaxFields]int32) []byte {
	for i, v := range q {
		dst = wire.AppendUvarint(dst, wire.ZigZag(int64(wrapDiff(v, base[i], wrap[i]))))
	}
	return dst
}

// imageLen returns the bytes appendAbsolute takes for q.
func imageLen(q []int32) int {
	n := 0
	for _, v := range q {
		n += wire.UvarintLen(wire.ZigZag(int64(v)))
	}
	return n
}

// deltaLen returns the bytes appendDelta takes.
func deltaLen(q, base []int32, wrap *[MaxFields]int32) int {
	n := 0
	for i, v := range q {
		n += wire.UvarintLen(wire.ZigZag(int64(wrapDiff(v, base[i], wrap[i]))))
	}
	return n
}

// readImage reads n zig-zag varints into q.
func readImage(r *wire.Reader, q []int32) {
	for i := range q {
		v := r.Varint()
		if v < -1<<31 || v >= 1<<31 {
			r.Fail(wire.ErrOverflow)
			return
		}
		q[i] = int32(v)
	}
}

// appendEntityImage appends a whole-entity item (spawn form): id, flags with
// the component mask, owner, every component absolute. q is scratch of at
// least r.fields integers, left holding the images at their offsets.
func (r *Registry) appendEntityImage(dst []byte, e entityRef, owner ecs.PeerID, mask uint16, q []int32) []byte {
	dst = wire.AppendUvarint(dst, uint64(e.id))
	dst = wire.AppendUvarint(dst, uint64(itemSpawn)|uint64(mask)<<itemShift)
	dst = wire.AppendUvarint(dst, uint64(owner))
	for c := range r.comps {
		if mask&(1<<uint(c)) == 0 {
			continue
		}
		comp := &r.comps[c]
		img := q[r.offset[c] : r.offset[c]+comp.fields]
		comp.quant(r.world.Arche().Get(e.entity, comp.id), img)
		dst = appendAbsolute(dst, img)
	}
	return dst
}
