package interp

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// ringSize is how many received states are kept per remote entity (a power
// of two). At 30 Hz, 8 states span a quarter of a second.
const ringSize = 8

// keptIntervals is how many send intervals the render delay reaches back at
// most (Config.MaxDelay): what the ring of a moving entity covers, a state
// each interval, less one for a state that comes late.
const keptIntervals = ringSize - 2

// Slot flags.
const (
	flagRemote  uint8 = 1 << iota // drawn from received states
	flagListed                    // in Interpolator.offsets
	flagActive                    // in Interpolator.active: Update samples it
	flagSettled                   // remote and at rest: Update leaves it until its next state
	flagNoPose                    // remote without an ecs.Transform: drawn for its Tracks alone
	flagEarly                     // made by the host in play (Born), not drawn until the render frame reaches its first state
	flagLeaving                   // removed by the host, kept while drawn (Drawing): Interpolator.leaving has the removal's frame
	flagStill                     // its newest state had an ecs.Velocity of no speed: it stood still there
)

// What an entity's drawn pose came from in the last Update.
const (
	modeNone          uint8 = iota // not evaluated yet
	modeEarly                      // born ahead of the render frame: not drawn yet (flagEarly)
	modeInterpolating              // between two received states (or before the oldest)
	modeExtrapolating              // past the newest, moving on from the last two
	modeHolding                    // past the newest and the extrapolation bound: where the guess ended, or at the newest with nothing to extrapolate from
	modeResting                    // past the newest, which is known to be current: the host sent newer frames without it
	modeGone                       // past its removal (flagLeaving): not drawn
	modeBefore                     // before the oldest, moved back from it where it can be (see Interpolator.before)
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
	// motion: what its Velocity said at its newest states (motionMoving,
	// motionBefore, motionStopped, motionTurned; see Interpolator.onward).
	motion uint8
	// born: how many host frames before its first state the host made it
	// (Born; 0 when not told, at most 255): it is drawn from then on.
	born uint8
	// seldom: how many frames apart its states came while it walked on
	// (Interpolator.walkedOn), when further apart than a moving entity is
	// carried past its newest (drift; at most 255): one sent seldom (an
	// owner's unit in AuthStates sharing a full budget) is carried that far
	// before frames heard without it say it stopped. 0: none seen.
	seldom uint8
	raw    ecs.Transform // pose of the last Update, without offset
	off    ecs.Transform // visual offset, decaying
}

// What a slot's Velocity said (slotState.motion), velocities being used
// (IgnoreVelocity unset).
const (
	// motionMoving: its newest state's ecs.Velocity had some speed: it
	// moved there, and the host sends the change that stops or turns it.
	motionMoving uint8 = 1 << iota
	// motionBefore: the state before its newest did.
	motionBefore
	// motionStopped: its newest state's Velocity is zero, after a state
	// that moved: the host told it stop there, and it is not carried on
	// past it.
	motionStopped
	// motionTurned: its newest state's Velocity differs from the one
	// before's by more than a fifth (turnShare): it turned there, or was
	// knocked, and goes on by its new velocity.
	motionTurned
)

// turnShare is how much of its speed a velocity changes by from one state
// to the next to count as a turn (motionTurned), and how far the motion
// between its last two states may be from its velocity for the two to
// agree (Interpolator.onward).
const turnShare = 0.2

// blockBits sets the blocks the per-slot state is kept in: 1,024 slots, a
// block of about 310 KiB (a Track's blocks beside them). A block is made,
// zeroed, when the first slot of its range is seen, so the state grows with
// the world a block at a time and is never copied: a join of 100,000
// entities adds a block every thousand or so, where doubling slices copied
// up to 20 MiB at once in one of its frames.
const (
	blockBits = 10
	blockLen  = 1 << blockBits
	blockMask = blockLen - 1
)

// block is the state of blockLen slots: their records, and each one's ring
// of states at slot*ringSize.
type block struct {
	slots  [blockLen]slotState
	frames [blockLen * ringSize]ecs.Frame
	poses  [blockLen * ringSize]ecs.Transform
	vels   [blockLen]ecs.Velocity // each slot's first state's (Interpolator.firstVel)
	last   [blockLen]ecs.Velocity // each slot's newest state's, while it moves (Interpolator.lastVel)
}

// grow makes room for slot s.
func (ip *Interpolator) grow(s int32) {
	if s < ip.top {
		return
	}
	for int(s>>blockBits) >= len(ip.blocks) {
		ip.blocks = append(ip.blocks, new(block))
	}
	ip.top = s + 1
}

// find returns slot s's record if it holds entity e, else nil.
func (ip *Interpolator) find(s int32, e arche.Entity) *slotState {
	if s < 0 || int(s>>blockBits) >= len(ip.blocks) {
		return nil
	}
	if sl := &ip.blocks[s>>blockBits].slots[s&blockMask]; sl.ent == e {
		return sl
	}
	return nil
}

// slot returns slot s's record; s must have room.
func (ip *Interpolator) slot(s int32) *slotState { return &ip.blocks[s>>blockBits].slots[s&blockMask] }

// ring returns slot s's ring of states: their frames and poses.
func (ip *Interpolator) ring(s int32) (frames *[ringSize]ecs.Frame, poses *[ringSize]ecs.Transform) {
	_, frames, poses = ip.view(s)
	return frames, poses
}

// view returns slot s's record and ring, from one look at its block.
func (ip *Interpolator) view(s int32) (sl *slotState, frames *[ringSize]ecs.Frame, poses *[ringSize]ecs.Transform) {
	b := ip.blocks[s>>blockBits]
	i := int(s & blockMask)
	o := i * ringSize
	return &b.slots[i], (*[ringSize]ecs.Frame)(b.frames[o : o+ringSize]), (*[ringSize]ecs.Transform)(b.poses[o : o+ringSize])
}

// push appends state (f, p) to slot s's ring, dropping the oldest when full,
// and returns its ring position. f must be newer than the newest held.
// Dropping the first state drops its velocity (firstVel) too: the oldest
// held is another's.
func (ip *Interpolator) push(s int32, f ecs.Frame, p ecs.Transform, snap bool) int {
	st, frames, poses := ip.view(s)
	if st.n > 0 {
		st.head = (st.head + 1) & (ringSize - 1)
	}
	if st.n < ringSize {
		st.n++
	} else {
		*ip.firstVel(s) = ecs.Velocity{}
	}
	k := int(st.head)
	frames[k] = f
	poses[k] = p
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
	st := ip.slot(s)
	ip.unsettle(st)
	if st.flags&flagLeaving != 0 {
		delete(ip.leaving, s)
	}
	*st = slotState{flags: st.flags & (flagListed | flagActive)}
}

// activate makes Update sample slot s again (a state arrived).
func (ip *Interpolator) activate(s int32) {
	st := ip.slot(s)
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
