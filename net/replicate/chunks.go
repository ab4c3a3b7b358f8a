package replicate

// chunkBits sets the size of the chunks a client's per-entity state is kept
// in: 4,096 entities. A chunk is allocated when the first entity of its
// range of slots arrives, whole and zeroed, so state grows in proportion to
// what arrived, with no copies of what is there.
const chunkBits = 12

const chunkLen = 1 << chunkBits

// chunked is a slice of T indexed by slot, grown a chunk at a time.
type chunked[T any] struct {
	chunks [][]T
}

// at returns the element of slot, allocating its chunk if needed.
func (c *chunked[T]) at(slot int32) *T {
	i := int(slot) >> chunkBits
	for i >= len(c.chunks) {
		c.chunks = append(c.chunks, nil)
	}
	if c.chunks[i] == nil {
		c.chunks[i] = make([]T, chunkLen)
	}
	return &c.chunks[i][int(slot)&(chunkLen-1)]
}

// reserve allocates the first missing chunk of the slots below n and
// reports whether there was one: called until false, it makes room for n
// slots one chunk a call.
func (c *chunked[T]) reserve(n int) bool {
	for i := range (n + chunkLen - 1) >> chunkBits {
		if i >= len(c.chunks) || c.chunks[i] == nil {
			c.at(int32(i) << chunkBits)
			return true
		}
	}
	return false
}

// peek returns the element of slot, or nil when its chunk does not exist.
func (c *chunked[T]) peek(slot int32) *T {
	i := int(slot) >> chunkBits
	if i >= len(c.chunks) || c.chunks[i] == nil {
		return nil
	}
	return &c.chunks[i][int(slot)&(chunkLen-1)]
}

// rows is a table of fixed-length rows of int32 indexed by slot, grown a
// chunk at a time.
type rows struct {
	n      int // values per row
	chunks [][]int32
}

// reserve allocates the first missing chunk of the rows below n and reports
// whether there was one (see chunked.reserve).
func (r *rows) reserve(n int) bool {
	for i := range (n + chunkLen - 1) >> chunkBits {
		if i >= len(r.chunks) || r.chunks[i] == nil {
			r.at(int32(i) << chunkBits)
			return true
		}
	}
	return false
}

func (r *rows) at(slot int32) []int32 {
	i := int(slot) >> chunkBits
	for i >= len(r.chunks) {
		r.chunks = append(r.chunks, nil)
	}
	if r.chunks[i] == nil {
		r.chunks[i] = make([]int32, chunkLen*r.n)
	}
	o := (int(slot) & (chunkLen - 1)) * r.n
	return r.chunks[i][o : o+r.n]
}

// clientSlot is a client's record of one networked entity.
type clientSlot struct {
	applied uint32 // host frame of the image its delta-coded components hold
	anchor  uint32 // host frame of the anchor image (rows anchor); 0: none
	spawned uint32 // host frame of the newest spawn (or join page) of it applied; an older one is stale (staleSpawn)
	leaving uint32 // host frame of its removal while it is kept to be drawn (DrawnObserver); 0: none
	ahas    uint16 // components of the anchor image
	next    uint8  // history: where the next image goes
	newest  uint8  // history: where the newest image (by frame) is
	hist    int32  // history ring + 1; 0: none
}

// clientHistory is a pool of rings of the last DeltaHistory images a client
// received of an entity, each with the host frame it belongs to. An entity
// gets a ring at its second image; its first (a join page's, a spawn's) is
// its anchor. A ring is one block: the frames, the component masks, the
// images.
type clientHistory struct {
	fields int
	stride int
	slabs  [][]int32 // ringsPerSlab rings each, allocated as needed: no copies
	free   []int32
	rings  int32
}

// ringsPerSlab is how many history rings one block of memory holds.
const ringsPerSlab = 256

const (
	chFrames = 0
	chHas    = DeltaHistory // two masks a word
	chVals   = DeltaHistory + DeltaHistory/2
)

func (h *clientHistory) init(fields int) {
	h.fields = fields
	h.stride = chVals + DeltaHistory*fields
}

func (h *clientHistory) ring(r int32) []int32 {
	o := int(r%ringsPerSlab) * h.stride
	return h.slabs[r/ringsPerSlab][o : o+h.stride]
}

func (h *clientHistory) alloc() int32 {
	if n := len(h.free); n > 0 {
		r := h.free[n-1]
		h.free = h.free[:n-1]
		clear(h.ring(r)[chFrames : chFrames+DeltaHistory])
		return r
	}
	r := h.rings
	h.rings++
	if int(r/ringsPerSlab) == len(h.slabs) {
		h.slabs = append(h.slabs, make([]int32, ringsPerSlab*h.stride))
	}
	clear(h.ring(r)[chFrames : chFrames+DeltaHistory])
	return r
}

func (h *clientHistory) release(r int32) { h.free = append(h.free, r) }

// reset gives every ring back, keeping the memory.
func (h *clientHistory) reset() {
	h.free, h.rings = h.free[:0], 0
}

// remember keeps img of frame f in ring r, over the image received longest
// ago; an image older than the newest kept is not kept (a host codes only
// against the newest image it knows delivered, and that is never older than
// one delivered before it), unless it replaces one of its frame.
func (h *clientHistory) remember(r int32, s *clientSlot, f uint32, has uint16, img []int32) {
	ring := h.ring(r)
	at := int(s.next)
	if newest := uint32(ring[chFrames+int(s.newest)]); newest >= f {
		at = -1
		for k := range DeltaHistory {
			if uint32(ring[chFrames+k]) == f {
				at = k
				break
			}
		}
		if at < 0 {
			return
		}
	} else {
		s.next = uint8((at + 1) % DeltaHistory)
		s.newest = uint8(at)
	}
	ring[chFrames+at] = int32(f)
	w := &ring[chHas+at/2]
	shift := 16 * uint(at&1)
	*w = int32(uint32(*w)&^(0xffff<<shift) | uint32(has)<<shift)
	copy(ring[chVals+at*h.fields:chVals+(at+1)*h.fields], img)
}

// find returns the image of frame f in ring r, or nil; f == 0 asks for the
// newest.
func (h *clientHistory) find(r int32, s *clientSlot, f uint32) ([]int32, uint16, uint32) {
	ring := h.ring(r)
	best := -1
	var bf uint32
	if f == 0 {
		best, bf = int(s.newest), uint32(ring[chFrames+int(s.newest)])
		if bf == 0 {
			return nil, 0, 0
		}
	} else {
		for k := range DeltaHistory {
			if fk := uint32(ring[chFrames+k]); fk == f {
				best, bf = k, fk
				break
			}
		}
	}
	if best < 0 {
		return nil, 0, 0
	}
	has := uint16(uint32(ring[chHas+best/2]) >> (16 * uint(best&1)))
	return ring[chVals+best*h.fields : chVals+(best+1)*h.fields], has, bf
}
