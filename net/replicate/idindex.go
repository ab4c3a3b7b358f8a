package replicate

import "github.com/tandem-go/tandem/ecs"

// idIndex maps network ids to positions (int32): an open-addressing table
// with linear probing and backward-shift deletion, its capacity a power of
// two kept at least twice its entries. It does what a Go map of the same
// types does for a peer's queue of removals (removals.go) at about a third
// of the time a lookup, an insertion or a deletion, with no growth on the
// way to a size it was made for (reserve); 8 bytes a slot, 16 to 32 bytes
// an entry as it grows by doubling (more when reserve made room ahead).
//
// Id 0 (no network id) is held apart, as the table's empty key.
type idIndex struct {
	keys  []ecs.NetID // 0: empty
	vals  []int32
	n     int   // entries, zero's included
	shift uint  // 32 − log2(len(keys)): a hash's top bits pick the home
	zero  int32 // position of id 0, when hasZero
	// hasZero: id 0 is in the index.
	hasZero bool
}

// home returns the slot where id's probe starts.
func (x *idIndex) home(id ecs.NetID) int {
	return int((uint32(id) * 0x9e3779b9) >> x.shift)
}

// len returns the number of entries.
func (x *idIndex) len() int { return x.n }

// get returns id's position and whether id is in the index.
func (x *idIndex) get(id ecs.NetID) (int32, bool) {
	if id == 0 {
		return x.zero, x.hasZero
	}
	if len(x.keys) == 0 {
		return 0, false
	}
	mask := len(x.keys) - 1
	for i := x.home(id); ; i = (i + 1) & mask {
		switch x.keys[i] {
		case id:
			return x.vals[i], true
		case 0:
			return 0, false
		}
	}
}

// put sets id's position.
func (x *idIndex) put(id ecs.NetID, v int32) {
	if id == 0 {
		if !x.hasZero {
			x.n++
		}
		x.zero, x.hasZero = v, true
		return
	}
	if 2*(x.n+1) > len(x.keys) {
		x.reserve(x.n + 1)
	}
	mask := len(x.keys) - 1
	i := x.home(id)
	for x.keys[i] != 0 && x.keys[i] != id {
		i = (i + 1) & mask
	}
	if x.keys[i] == 0 {
		x.n++
	}
	x.keys[i], x.vals[i] = id, v
}

// del takes id out of the index, if it is there.
func (x *idIndex) del(id ecs.NetID) {
	if id == 0 {
		if x.hasZero {
			x.n--
		}
		x.hasZero = false
		return
	}
	if len(x.keys) == 0 {
		return
	}
	mask := len(x.keys) - 1
	i := x.home(id)
	for x.keys[i] != id {
		if x.keys[i] == 0 {
			return
		}
		i = (i + 1) & mask
	}
	// Shift back the entries of the run after i whose probe would cross
	// the hole, so every entry stays reachable from its home.
	for j := (i + 1) & mask; x.keys[j] != 0; j = (j + 1) & mask {
		h := x.home(x.keys[j])
		if (j-h)&mask >= (j-i)&mask {
			x.keys[i], x.vals[i] = x.keys[j], x.vals[j]
			i = j
		}
	}
	x.keys[i] = 0
	x.n--
}

// reserve makes room for n entries without growing on the way.
func (x *idIndex) reserve(n int) {
	size, bits := 8, uint(3)
	for size < 2*n {
		size *= 2
		bits++
	}
	if size <= len(x.keys) {
		return
	}
	keys, vals := x.keys, x.vals
	x.keys, x.vals = make([]ecs.NetID, size), make([]int32, size)
	x.shift = 32 - bits
	mask := size - 1
	for i, id := range keys {
		if id == 0 {
			continue
		}
		j := x.home(id)
		for x.keys[j] != 0 {
			j = (j + 1) & mask
		}
		x.keys[j], x.vals[j] = id, vals[i]
	}
}

// clear empties the index, keeping its room.
func (x *idIndex) clear() {
	clear(x.keys)
	x.n, x.hasZero = 0, false
}

// memory returns the bytes the index holds.
func (x *idIndex) memory() int { return 8 * len(x.keys) }
