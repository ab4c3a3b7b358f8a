package replicate

import (
	"fmt"
	"math"

	"github.com/tandem-go/tandem/ecs"
)

// What the host keeps once for all peers, per networked entity: its wire
// image, quantized when a component is reported (once per step, whatever
// the number of peers), the past images some peer may hold as a delta
// baseline, and the urgency of its pending change. Peers keep only what is
// theirs: which frame's image they acknowledged, what is dirty, their
// priorities (hostpeer.go).

// Per-entity flags of the shared state.
const (
	eLive    = 1 << iota // the slot holds a networked entity
	ePending             // in the pending list: its image changed since the last send tick
	eSent                // the current image went to some peer (State item or join page)
	// eSwapped: the previous image was taken from the current one since
	// the last send tick, so only the components changed since (pend)
	// can differ from it.
	eSwapped
	// eBorn: tele is the frame the entity was made in, in play, not a
	// teleport: its spawns say so (spawnSnap), its updates do not.
	eBorn
	// eTold: a component whose change is always urgent, other than the
	// motion's (h.told: an order, a state of the game's) changed since the
	// owner's AuthState
	// last carried the entity: it goes first in the next (sendAuth), ahead
	// of the walking army it may belong to.
	eTold
	// eMoved: the entity is owned by a peer and marked ecs.HostMoved (its
	// owner does not predict it): its changes go in its owner's States,
	// as another's do, not in its AuthStates. Set at each send tick that
	// carries a change of it (prepareTick).
	eMoved
)

// entState is the shared record of the networked entity in one slot.
type entState struct {
	id      ecs.NetID
	since   uint32 // frame the current image became current
	ref     uint32 // frame of the image urgency is measured from: the one last sent
	changed uint32 // last frame the image changed in
	tele    uint32 // frame of the entity's last teleport (ecs.ReportTeleport); 0: none
	hist    int32  // history ring + 1 (h.hist), or −(ring + 1) of h.small; 0: none
	// The image before the current one, if it was sent: kept beside the
	// current (h.img), current from prevSince until prevUntil; older ones
	// go to the ring.
	prevSince, prevUntil uint32
	prevHas              uint16
	dprev                uint16 // delta-coded components whose image differs from the previous one (send ticks' work)
	cache                int32  // first encoding of this send tick + 1 (valid when cacheTick matches)
	ctick                uint32 // send tick of cache
	cell                 int32  // interest cell; -1: none (no position, always in scope)
	cellPos              int32  // position in the cell's list
	ownPos               int32  // position in its owner's list of squares (peerScope.own), while in it
	owner                ecs.PeerID
	has                  uint16 // registered components the entity has
	pend                 uint16 // components whose image changed since the last send tick
	urg                  uint8  // priority its pending change gains per send tick
	flags                uint8
}

// An entity's past images are kept in a ring of historyDepth entries once
// it needs them; most need one or two (a peer acknowledges what it is sent
// within a round trip), so a ring starts with smallDepth entries and grows
// when an entry it would overwrite was current within historyKeep send
// ticks, as it was likely still some peer's baseline.
const (
	historyDepth = 12
	smallDepth   = 2
	historyKeep  = 16
)

// history is a pool of rings of past images of one depth. A ring is one
// block of memory: the frames each image became current and stopped being
// so, the component masks, then the images, so a lookup reads two cache
// lines.
type history struct {
	depth  int
	fields int
	stride int     // words per ring
	slab   []int32 // rings back to back
	head   []uint8 // ring: next entry to write
	free   []int32
}

func (h *history) init(depth, fields int) {
	h.depth, h.fields = depth, fields
	h.stride = 2*depth + (depth+1)/2 + depth*fields
}

func (h *history) until(r int32, i int) uint32 {
	return uint32(h.slab[int(r)*h.stride+h.depth+i])
}

func (h *history) alloc() int32 {
	if n := len(h.free); n > 0 {
		r := h.free[n-1]
		h.free = h.free[:n-1]
		base := int(r) * h.stride
		clear(h.slab[base+h.depth : base+2*h.depth])
		h.head[r] = 0
		return r
	}
	r := int32(len(h.head))
	h.slab = append(h.slab, make([]int32, h.stride)...)
	h.head = append(h.head, 0)
	return r
}

func (h *history) release(r int32) { h.free = append(h.free, r) }

// push records img, current from since until until, in ring r, over its
// oldest entry.
func (h *history) push(r int32, since, until uint32, has uint16, img []int32) {
	base := int(r) * h.stride
	ring := h.slab[base : base+h.stride]
	i := int(h.head[r])
	h.head[r] = uint8((i + 1) % h.depth)
	ring[i], ring[h.depth+i] = int32(since), int32(until)
	w := &ring[2*h.depth+i/2]
	shift := 16 * uint(i&1)
	*w = int32(uint32(*w)&^(0xffff<<shift) | uint32(has)<<shift)
	vals := 2*h.depth + (h.depth+1)/2
	copy(ring[vals+i*h.fields:vals+(i+1)*h.fields], img)
}

// copyRing pushes the entries of ring r of h into ring into of to, oldest
// first.
func (h *history) copyRing(r int32, to *history, into int32) {
	base := int(r) * h.stride
	vals := 2*h.depth + (h.depth+1)/2
	for k := range h.depth {
		i := (int(h.head[r]) + k) % h.depth
		until := h.until(r, i)
		if until == 0 {
			continue
		}
		has := uint16(uint32(h.slab[base+2*h.depth+i/2]) >> (16 * uint(i&1)))
		img := h.slab[base+vals+i*h.fields : base+vals+(i+1)*h.fields]
		to.push(into, uint32(h.slab[base+i]), until, has, img)
	}
}

// at returns where in the slab the image of ring r that was current at
// frame f starts, or -1.
func (h *history) at(r int32, f uint32) (int32, uint16) {
	base := int(r) * h.stride
	ring := h.slab[base : base+h.stride]
	d := h.depth
	// The newest entry first: it is the usual baseline.
	i := (int(h.head[r]) + d - 1) % d
	if until := uint32(ring[d+i]); until == 0 || uint32(ring[i]) > f || f >= until {
		i = -1
		for k := range d {
			until := uint32(ring[d+k])
			if until != 0 && uint32(ring[k]) <= f && f < until {
				i = k
				break
			}
		}
		if i < 0 {
			return -1, 0
		}
	}
	has := uint16(uint32(ring[2*d+i/2]) >> (16 * uint(i&1)))
	return int32(base + 2*d + (d+1)/2 + i*h.fields), has
}

// keepPast records img, current from since until until, in the entity's
// ring.
func (h *HostReplicator) keepPast(slot int32, since, until uint32, has uint16, img []int32) {
	e := &h.ents[slot]
	frame := until
	switch {
	case e.hist == 0:
		r := h.small.alloc()
		e.hist = -(r + 1)
		h.small.push(r, since, until, has, img)
	case e.hist < 0:
		r := -e.hist - 1
		oldest := int(h.small.head[r])
		if until := h.small.until(r, oldest); until != 0 && frame-until < historyKeep*uint32(h.cfg.SendEvery) {
			// The entry to go was current lately: grow.
			big := h.hist.alloc()
			h.small.copyRing(r, &h.hist, big)
			h.small.release(r)
			e.hist = big + 1
			h.hist.push(big, since, until, has, img)
			return
		}
		h.small.push(r, since, until, has, img)
	default:
		h.hist.push(e.hist-1, since, until, has, img)
	}
}

// forgetHistory gives back the entity's ring.
func (h *HostReplicator) forgetHistory(e *entState) {
	switch {
	case e.hist > 0:
		h.hist.release(e.hist - 1)
	case e.hist < 0:
		h.small.release(-e.hist - 1)
	}
	e.hist = 0
}

// image returns the shared image of slot (every registered field, at its
// registry offset).
func (h *HostReplicator) image(slot int32) []int32 {
	n := h.reg.fields
	return h.img[int(slot)*2*n : int(slot)*2*n+n]
}

// prevImage returns the entity's previous image (entState.prevSince).
func (h *HostReplicator) prevImage(slot int32) []int32 {
	n := h.reg.fields
	return h.img[int(slot)*2*n+n : int(slot+1)*2*n]
}

// imageAt returns the image the entity in slot had at frame f, or nil when
// the host no longer knows it.
func (h *HostReplicator) imageAt(slot int32, f uint32) ([]int32, uint16) {
	ref, has := h.imageRef(slot, f)
	return h.imageOf(slot, ref), has
}

// Image references: where an image of an entity is kept: an offset in
// h.hist's slab, −(offset + refSmall) in h.small's, or one of these.
const (
	refNone    = -1 // not kept
	refCurrent = -2 // the shared image (h.img)
	refPrev    = -3 // the previous image, beside it
	refSmall   = 4
)

// imageRef returns where the image the entity in slot had at frame f is
// kept: refCurrent, an offset in the history's slab, or refNone.
func (h *HostReplicator) imageRef(slot int32, f uint32) (int32, uint16) {
	e := &h.ents[slot]
	if f >= e.since {
		return refCurrent, e.has
	}
	if e.prevSince <= f && f < e.prevUntil {
		return refPrev, e.prevHas
	}
	switch {
	case e.hist == 0 || f == 0:
		return refNone, 0
	case e.hist < 0:
		ref, has := h.small.at(-e.hist-1, f)
		if ref < 0 {
			return refNone, 0
		}
		return -(ref + refSmall), has
	}
	return h.hist.at(e.hist-1, f)
}

// imageOf returns the image ref names, or nil.
func (h *HostReplicator) imageOf(slot, ref int32) []int32 {
	switch {
	case ref == refNone:
		return nil
	case ref == refCurrent:
		return h.image(slot)
	case ref == refPrev:
		return h.prevImage(slot)
	case ref < 0:
		off := int(-ref - refSmall)
		return h.small.slab[off : off+h.reg.fields]
	}
	return h.hist.slab[ref : int(ref)+h.reg.fields]
}

// growShared makes room for n slots.
func (h *HostReplicator) growShared(n int) {
	if len(h.ents) >= n {
		return
	}
	if n > MaxNetworked {
		panic(fmt.Sprintf("replicate: more than %d networked entities (MaxNetworked, what a State's slot numbers hold): keep what a world networks under it, local decor without a NetworkIdentity", MaxNetworked))
	}
	old := len(h.ents)
	if cap(h.ents) >= n {
		h.ents = h.ents[:n]
	} else {
		h.ents = append(h.ents, make([]entState, n-len(h.ents))...)
	}
	for i := old; i < n; i++ {
		h.ents[i] = entState{cell: -1} // not spawned here yet: on no cell
	}
	h.ids = append(h.ids, make([]ecs.NetID, n-len(h.ids))...)
	need := 2 * n * h.reg.fields
	if cap(h.img) >= need {
		h.img = h.img[:need]
	} else {
		h.img = append(h.img, make([]int32, need-len(h.img))...)
	}
}

// predictor carries a Motion's prediction: where the velocities take the
// pose over a delta's frames. Host and client compute it alike, from the
// step rate both know (the host's tick rate, sent in Welcome).
type predictor struct {
	on              bool
	pose, vel       int     // field offsets
	linear, angular float64 // wire steps a frame per velocity step, halved (the velocities are summed)
	poseComp        int
	poseBit, velBit uint16 // the components' bits (0 when off)
}

// maxPredictAge is the longest delta, in frames, the prediction spans; an
// older baseline predicts no motion.
const maxPredictAge = 1 << 16

func newPredictor(reg *Registry, rate float64) predictor {
	m := reg.motion
	if m == nil || !(rate > 0) {
		return predictor{}
	}
	return predictor{
		on:       true,
		pose:     reg.offset[m.Pose],
		vel:      reg.offset[m.Velocity],
		linear:   m.Linear / (2 * rate),
		angular:  m.Angular / (2 * rate),
		poseComp: int(m.Pose),
		poseBit:  1 << m.Pose,
		velBit:   1 << m.Velocity,
	}
}

// motion returns the predicted change of the pose's field i (0, 1: x, y;
// 2: angle) over age frames, from the baseline's velocity vb and the new
// one vc. Every operation is rounded as written (the conversions forbid
// fused multiply-adds), so both sides get the same integer.
func (p *predictor) motion(i int, vb, vc int32, age uint32) int64 {
	if age >= maxPredictAge || vb == -vc {
		return 0
	}
	k := p.linear
	if i == 2 {
		k = p.angular
	}
	s := float64(float64(vb) + float64(vc))
	t := float64(s * float64(age))
	t = float64(t * k)
	t = math.Round(t)
	if t > math.MaxInt32 {
		return math.MaxInt32
	}
	if t < math.MinInt32 {
		return math.MinInt32
	}
	return int64(t)
}
