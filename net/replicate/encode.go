package replicate

import (
	"slices"

	"github.com/tandem-go/tandem/net/wire"
)

// Item flags of AuthState and join-page items (byte-coded). Wire-affecting:
// see PROTOCOL.md, "Replication".
const (
	itemSpawn   = 1 << 0 // the entity is new to the peer: owner and every component follow, absolute
	itemDespawn = 1 << 1 // the entity left: nothing follows
	itemShift   = 2      // the component mask follows the flags in the same varint
)

// snapWindow is how many frames after a teleport the State items carrying
// the entity's Transform say so (the snap head, PROTOCOL.md §9.3): long
// enough that a client hears of the teleport through losses and reordering,
// short enough that its age fits seven bits.
const snapWindow = 128

// MaxStatePayload is the largest State or AuthState payload, in bytes: with
// the message's kind and length and the largest packet header it fits a
// transport datagram.
const MaxStatePayload = 1100

// DeltaHistory is how many received images of an entity a client keeps. A
// host deltas only against an image it sent less than DeltaReach sends ago,
// so the client still holds it even when up to DeltaHistory-DeltaReach later
// sends overtook the delta on the way. Wire-affecting: both sides must
// agree.
const (
	DeltaHistory = 12
	DeltaReach   = 8
)

// appendAbsolute appends the image q as zig-zag varints.
func appendAbsolute(dst []byte, q []int32) []byte {
	for _, v := range q {
		dst = wire.AppendUvarint(dst, wire.ZigZag(int64(v)))
	}
	return dst
}

// fieldDiff returns a-b, the short way round when the field wraps at mod
// (mod > 0), else in full: two images of a field may lie further apart than
// an int32 holds (a jump across the world's whole range).
func fieldDiff(a, b, mod int32) int64 {
	if mod > 0 {
		return int64(wrapDiff(a, b, mod))
	}
	return int64(a) - int64(b)
}

// wrapDiff returns a-b, the short way round when the field wraps at mod.
func wrapDiff(a, b, mod int32) int32 {
	d := a - b
	if mod > 0 {
		if d <= -mod || d >= mod {
			d %= mod
		}
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
		if v < -mod || v >= 2*mod {
			v %= mod
		}
		if v < 0 {
			v += mod
		} else if v >= mod {
			v -= mod
		}
	}
	return v
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

// appendEntityImage appends a whole-entity item (join-page form): id, flags
// with the component mask, owner, every component absolute, from the shared
// image of slot. A join writes every entity of the world so: the item is
// written into room made for it once, each varint by index (putUvarint),
// where an append per byte checked the room each time (the bytes are
// wire.AppendUvarint's).
func (h *HostReplicator) appendEntityImage(dst []byte, slot int32) []byte {
	e := &h.ents[slot]
	reg := h.reg
	img := h.image(slot)
	i := len(dst)
	b := slices.Grow(dst, (3+len(img))*wire.MaxVarintLen32)
	b = b[:cap(b)]
	i = putUvarint(b, i, uint64(e.id))
	i = putUvarint(b, i, uint64(itemSpawn)|uint64(e.has)<<itemShift)
	i = putUvarint(b, i, uint64(e.owner))
	if e.has == reg.all {
		// Every component: their images follow one another.
		for _, v := range img {
			i = putUvarint(b, i, wire.ZigZag(int64(v)))
		}
		return b[:i]
	}
	for c := range reg.comps {
		if e.has&(1<<uint(c)) == 0 {
			continue
		}
		for _, v := range img[reg.offset[c] : reg.offset[c]+reg.comps[c].fields] {
			i = putUvarint(b, i, wire.ZigZag(int64(v)))
		}
	}
	return b[:i]
}

// putUvarint writes v as a varint at b[i:], which has room for it, and
// returns the offset after it (binary.PutUvarint's bytes; writing by index
// into one slice spares a reslice a value: 27% fewer instructions writing a
// world's join items, callgrind).
func putUvarint(b []byte, i int, v uint64) int {
	for v >= 0x80 {
		b[i] = byte(v) | 0x80
		v >>= 7
		i++
	}
	b[i] = byte(v)
	return i + 1
}

func equalImage(a, b []int32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
