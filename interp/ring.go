package interp

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// ringSize is how many received states are kept per remote entity (a power
// of two). At 30 Hz, 8 states span a quarter of a second, more than any
// render delay reaches back.
const ringSize = 8

// Slot flags.
const (
	flagRemote  uint8 = 1 << iota // drawn from received states
	flagListed                    // in Interpolator.offsets
	flagActive                    // in Interpolator.active: Update samples it
	flagSettled                   // remote and at rest: Update leaves it until its next state
	flagNoPose                    // remote without an ecs.Transform: drawn for its Tracks alone
)

// What an entity's drawn pose came from in the last Update.
const (
	modeNone          uint8 = iota // not evaluated yet
	modeInterpolating              // between two received states (or before the oldest)
	modeExtrapolating              // past the newest, moving on from the last two
	modeHolding                    // at the newest, being past it and the extrapolation bound, or with nothing to extrapolate from
	modeResting                    // past the newest, which is known to be current: the host sent newer frames without it
)

// slotState is the Interpolator's record of one network slot: 64 bytes, one
// cache line. Its ring of states is in Interpolator.frames and .poses at
// slot*ringSize.
type slotState struct {
	ent   arche.Entity
	head  uint8 // ring position of the newest state
	n     uint8 // states held
	snaps uint8 // bit k: state k follows a teleport, never blended into
	flags uint8
	mode  uint8
	raw   ecs.Transform // pose of the last Update, without offset
	off   ecs.Transform // visual offset, decaying
}

// grow makes room for slot s.
func (ip *Interpolator) grow(s int32) {
	n := int(s) + 1
	if n <= len(ip.slots) {
		return
	}
	ip.slots = resize(ip.slots, n)
	ip.frames = resize(ip.frames, n*ringSize)
	ip.poses = resize(ip.poses, n*ringSize)
}

// resize returns s with length n (n >= len(s)), the new elements zero.
func resize[T any](s []T, n int) []T {
	if n <= cap(s) {
		m := len(s)
		s = s[:n]
		clear(s[m:])
		return s
	}
	return append(s, make([]T, n-len(s))...)
}

// push appends state (f, p) to slot s's ring, dropping the oldest when full,
// and returns its ring position. f must be newer than the newest held.
func (ip *Interpolator) push(s int32, f ecs.Frame, p ecs.Transform, snap bool) int {
	st := &ip.slots[s]
	if st.n > 0 {
		st.head = (st.head + 1) & (ringSize - 1)
	}
	if st.n < ringSize {
		st.n++
	}
	k := int(st.head)
	i := int(s)*ringSize + k
	ip.frames[i] = f
	ip.poses[i] = p
	if snap {
		st.snaps |= 1 << k
	} else {
		st.snaps &^= 1 << k
	}
	return k
}

// clearSlot forgets slot s's entity, states and offset. A listed slot stays
// listed until the next Update finds its offset zero, an active one until
// the next Update finds it no longer remote.
func (ip *Interpolator) clearSlot(s int32) {
	st := &ip.slots[s]
	ip.unsettle(st)
	*st = slotState{flags: st.flags & (flagListed | flagActive)}
}

// activate makes Update sample slot s again (a state arrived).
func (ip *Interpolator) activate(s int32) {
	st := &ip.slots[s]
	ip.unsettle(st)
	if st.flags&flagActive == 0 {
		st.flags |= flagActive
		ip.active = append(ip.active, s)
	}
}

// unsettle takes a settled slot out of the settled count.
func (ip *Interpolator) unsettle(st *slotState) {
	if st.flags&flagSettled != 0 {
		st.flags &^= flagSettled
		ip.settled--
	}
}
