package predict

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Flags of a history entry.
const (
	recInput = 1 << iota // the frame's input is recorded
	recState             // the owned entities' state after the frame is recorded
	recHeld              // the frame was held: the zero input applied (Held)
)

// history is the client's ring of predicted frames: per frame, the input
// used and the state of each owned entity after the frame, for every tracked
// component. Entry k of a frame in ring slot s is at s*stride+k in ents,
// masks and the trackers' stores. Nothing is allocated after the ring has
// grown to the most owned entities.
type history[I any] struct {
	stride int
	frames []ecs.Frame // by slot; 0: empty
	flags  []uint8
	inputs []I
	views  []float64 // the host frame the client drew what it does not predict at, as the frame's input was set
	counts []int32
	ents   []arche.Entity
	masks  []uint16 // trackers' bits: components the entity had
	// skip holds trackers' bits of values not to compare with the host's:
	// recorded before a HostValue correction of an earlier frame, they no
	// longer follow from the corrected value. Cleared when recorded again.
	skip []uint16
	// compared marks the entries an AuthState was compared with: they hold
	// the host's values (within tolerance) since. Cleared when recorded
	// again.
	compared []bool
}

func (h *history[I]) init(size int) {
	h.frames = make([]ecs.Frame, size)
	h.flags = make([]uint8, size)
	h.inputs = make([]I, size)
	h.views = make([]float64, size)
	h.counts = make([]int32, size)
}

// size returns the frames the ring holds.
func (h *history[I]) size() int { return len(h.frames) }

func (h *history[I]) slotOf(f ecs.Frame) int { return int(uint64(f) % uint64(len(h.frames))) }

// find returns the slot of frame f if it holds every flag of want.
func (h *history[I]) find(f ecs.Frame, want uint8) (int, bool) {
	s := h.slotOf(f)
	if f == 0 || h.frames[s] != f || h.flags[s]&want != want {
		return 0, false
	}
	return s, true
}

// claim returns the slot of frame f, emptied first if it held another frame.
func (h *history[I]) claim(f ecs.Frame) int {
	s := h.slotOf(f)
	if h.frames[s] != f {
		h.frames[s] = f
		h.flags[s] = 0
		h.counts[s] = 0
	}
	return s
}

// clear forgets every frame.
func (h *history[I]) clear() {
	clear(h.frames)
	clear(h.flags)
}

// grow makes room for n entities per frame, keeping what is recorded: it
// doubles the room, to at most most (ClientConfig.MaxOwned) unless n needs
// more.
func (h *history[I]) grow(n, most int, trackers []*tracker) {
	old := h.stride
	stride := max(min(max(2*old, 1), most), n) // doubling, within most unless n needs more
	rows := len(h.frames)
	ents := make([]arche.Entity, rows*stride)
	masks := make([]uint16, rows*stride)
	skip := make([]uint16, rows*stride)
	compared := make([]bool, rows*stride)
	for r := 0; r < rows && old > 0; r++ {
		copy(ents[r*stride:r*stride+old], h.ents[r*old:(r+1)*old])
		copy(masks[r*stride:r*stride+old], h.masks[r*old:(r+1)*old])
		copy(skip[r*stride:r*stride+old], h.skip[r*old:(r+1)*old])
		copy(compared[r*stride:r*stride+old], h.compared[r*old:(r+1)*old])
	}
	h.ents, h.masks, h.skip, h.compared, h.stride = ents, masks, skip, compared, stride
	for _, t := range trackers {
		t.store.restride(rows, old, stride)
		t.before.resize(stride)
	}
}

// index returns the position of entity e in the frame in slot s, starting
// the search at hint, or -1.
func (h *history[I]) index(s int, e arche.Entity, hint int) int {
	n := int(h.counts[s])
	base := s * h.stride
	if hint < 0 || hint >= n {
		hint = 0
	}
	for k := hint; k < n; k++ {
		if h.ents[base+k] == e {
			return k
		}
	}
	for k := 0; k < hint; k++ {
		if h.ents[base+k] == e {
			return k
		}
	}
	return -1
}

// sameEntities reports whether the frame in slot s recorded exactly ents, in
// order.
func (h *history[I]) sameEntities(s int, ents []arche.Entity) bool {
	if int(h.counts[s]) != len(ents) {
		return false
	}
	base := s * h.stride
	for k, e := range ents {
		if h.ents[base+k] != e {
			return false
		}
	}
	return true
}
