package replicate

import (
	"math"
	"math/bits"

	"github.com/tandem-go/tandem/ecs"
)

// InterestConfig is the host's spatial scope: a grid of square cells over
// the positions of networked entities decides which entities each peer
// receives, and how urgent their changes are by distance from what the peer
// owns.
//
// An entity is in a peer's scope when it has no position (no Transform), when
// the peer owns it, when the peer has never owned anything with a position
// (a spectator sees the whole world), or when its cell is within Radius of
// the cell of an entity the peer owns. A peer whose last entity with a
// position goes (removed, or given to another) keeps that entity's square
// where it was until it owns one again: a player between two lives sees
// around where its last entity was (the last it owned with a position: its
// own body, or its last projectile if it owns those), not the whole world.
// Every entity a peer owns brings its square, so an army spread over the
// map brings the map (a strategy game's player whose 1,500 units stood in
// every region had every one of 32,000 entities in scope); a game that
// wants a bound gives such units to the host (ecs.HostPeer) and keeps who
// commands them in a component of its own. The game may give a peer a
// square of its own besides (HostReplicator.Focus: a camera). Entering scope sends the entity whole; leaving scope
// removes it from the peer, not on its next change: removals go ahead of
// every change, within what the items due leave of the peer's budget (up
// to half of it is kept for them: a storm of removals does not hold back
// a player's first entity), some 400 a send tick at the default 256 kbit/s
// (600 fresh; one that waited says how long, in more bits). On by default with a radius of 4,096
// units, so a world smaller than that around each player is wholly in scope
// and nothing changes for it; a larger world is what the grid is for.
//
// An entity changes cell only once it is Margin past its cell's edge, and
// then only along the axis it went past, so one that wavers across an edge
// (a player standing on it, or walking along it, a body at rest rocking on
// it) stays in one cell, or one row or column: it does not enter and leave
// peers' scopes, nor move its owner's square, with every crossing. The
// game's squares (HostReplicator.Focus) follow the same rule.
//
// The grid's cost is in what moves between cells: an entity that stays in
// its cell costs a division per reported move; one that changes cell is moved
// between two lists and told to the peers that cover one of the two cells and
// not the other; a peer whose own entity changes cell gains and loses the
// entities of the cells at the edges of its square. Cells exist where
// entities are: once the empty ones outnumber both the occupied ones and 256,
// they are given back (and reused), so the grid of a world whose entities
// roam stays the size of where they are now. Each cell knows the peers whose
// squares cover it (a bit per peer), so a move between cells and a send tick's
// changes cost what they are and what each peer receives, not that times
// every peer.
type InterestConfig struct {
	// Off puts every entity in every peer's scope at full urgency.
	Off bool
	// CellSize is the side of a cell in world units. Default 256; at least
	// a wire step (1/StepsPerUnit), at most the position range (2^32 wire
	// steps: 8,388,608 units at the default StepsPerUnit).
	CellSize float64
	// Radius is how far, in world units (rounded up to whole cells, measured
	// cell to cell along each axis), an entity is in scope of what a peer
	// owns. Default 4,096; at most 65,536 cells (CellSize × 65,536): a
	// larger one, infinite too, is taken as that, which with the default
	// CellSize and StepsPerUnit reaches past the ends of the position range.
	Radius float64
	// Near is the distance within which an entity's changes are as urgent as
	// they come; beyond it their urgency falls with the distance, to
	// FarWeight at Radius. Default 1,024.
	Near float64
	// FarWeight is the weight of urgency at Radius (see HostConfig.Priority
	// for what a weight does). Default 0.25.
	FarWeight float64
	// Margin is how far past its cell's edge, in world units (rounded to
	// whole wire steps), an entity goes before it changes cell along that
	// axis (it then takes the cell it is in). Default CellSize/8; negative:
	// none; at most CellSize/2. A host restored from a save places each
	// entity by where it is, not by the cell it kept: one that stood within
	// Margin past an edge takes the cell it is in, and if a peer owns it,
	// the peer's scope moves by a row or a column of cells (both, near a
	// corner), whose entities, Radius away, leave and enter as the peer
	// resumes (the game's Departed and Arrived run for them; nothing else
	// is to be done).
	Margin float64
	// StepsPerUnit is how many wire steps of the Transform's x and y make a
	// world unit. Default PositionScale, the default codec's.
	StepsPerUnit float64
}

// maxRadiusCells is the most cells InterestConfig.Radius reaches: the
// urgency weights are a table by distance in cells (grid.weight).
const maxRadiusCells = 1 << 16

// defaults fills in what is unset (zero, negative or not a number; steps
// per unit, not finite either) and brings what is out of range to its
// bound.
func (c *InterestConfig) defaults() {
	if !(c.StepsPerUnit > 0) || math.IsInf(c.StepsPerUnit, 1) {
		c.StepsPerUnit = PositionScale
	}
	if !(c.CellSize > 0) {
		c.CellSize = 256
	}
	// A cell of a wire step at least, so cells' coordinates fit an int32
	// as positions in wire steps do; of the position range at most (two
	// cells hold it all), so it is a number of units.
	c.CellSize = min(max(c.CellSize, 1/c.StepsPerUnit), (1<<32)/c.StepsPerUnit)
	if !(c.Radius > 0) {
		c.Radius = 4096
	}
	if !(c.Radius/c.CellSize <= maxRadiusCells) {
		c.Radius = c.CellSize * maxRadiusCells
	}
	if !(c.Near > 0) {
		c.Near = 1024
	}
	if !(c.FarWeight > 0 && c.FarWeight <= 1) {
		c.FarWeight = 0.25
	}
	if c.Margin == 0 || math.IsNaN(c.Margin) {
		c.Margin = c.CellSize / 8
	}
	c.Margin = min(c.Margin, c.CellSize/2) // negative stays so: none
}

// grid is the interest grid of a host replicator.
type grid struct {
	cfg     *InterestConfig
	on      bool
	pos     int     // registry index of the position component; -1: none
	off     int     // offset of its x in an image
	steps   float64 // wire steps per cell
	isteps  int64   // the same when it is a whole number, else 0
	margin  int64   // InterestConfig.Margin in whole wire steps, when isteps is set
	fmargin float64 // InterestConfig.Margin in cells (of those steps, when isteps is set)
	r       int64   // radius in cells
	cells   []cell
	index   map[uint64]int32 // the live cells by coordinates
	free    []int32          // cells given back (tidy), for cellAt to reuse
	slab    []int32          // room for the lists of cells yet to hold an entity (insert)
	empty   int              // live cells holding no entity
	peers   []*HostPeer
	weight  []float64 // by distance in cells, 0 … r
	whole   int64     // the farthest distance in cells of weight 1
	// parked are the squares of their own of the peers parked (ParkPeer),
	// by id, until they are added again or dropped: every peer parked has
	// one, even without squares, for those it gets while away.
	parked map[ecs.PeerID]parkedSquares

	// seen holds, by cell, words of bits by peerScope.bit: the peers whose
	// cover of the cell is not 0. bits is the peer of each bit, nil if free.
	seen  []uint64
	words int
	bits  []*HostPeer
}

// parkedSquares are a parked peer's squares of its own (grid.parkPeer):
// the game's (pinned, around (px, py)), and where the last entity it owned
// with a position was (last, around (hx, hy)), for the square held between
// lives, which it holds when it is back unless the game's stands in for it:
// as of when it was parked, or, once one of its entities goes while it is
// away, where that one was.
type parkedSquares struct {
	pinned, last   bool
	px, py, hx, hy int32
}

// cell is one grid cell and the entities in it.
type cell struct {
	x, y   int32
	x0, y0 int64 // its corner in wire steps, when grid.isteps is set
	ents   []int32
	live   bool // in the index; false: given back, its index free
}

// minEmptyCells is how many empty cells the grid keeps before tidy gives
// empty cells back: cells are made where entities go, and a world whose
// entities roam (or fly off) would otherwise hold every cell ever visited,
// with a cover count per peer each.
const minEmptyCells = 256

// peerScope is a peer's view of the grid.
type peerScope struct {
	// own are the slots of the entities it owns that are in a cell, by the
	// host's records (entState.owner, cell). The steps add and take them
	// away by those records (place, remove, reown), so a new cell's cover
	// is counted from them too (covering), not from the world's owners,
	// which may have changed since the last step.
	own []int32
	// cells are the distinct cells of own, a square each: an army in a few
	// cells costs a few squares, and its units moving between cells it
	// already holds move none. ownIn counts own's entities in each.
	cells []int32
	ownIn map[int32]ownCell
	most  int // the most cells ownIn held: a map does not shrink (Memory)
	// held is set while the peer owns nothing with a position but did:
	// the square of the last one stays, around cell (hx, hy), until it
	// owns one again. last is set while it owns nothing with a position
	// but did, held or not (not while the game's square stands in for it:
	// Unfocus then holds it).
	held, last bool
	hx, hy     int32
	// pinned is set while the game gives the peer a square of its own
	// (HostReplicator.Focus), around cell (px, py).
	pinned bool
	px, py int32
	cover  []uint16   // by cell: how many of the peer's squares hold it (see setCover)
	at     []atSquare // its squares' cells (cells, held, pinned), as of the last send tick
	// entering is set while a square around cell (ex, ey) is added or
	// moved there: what enters the scope then is near that square, which
	// at (as of the last send tick) may not have yet (entryPriority).
	entering bool
	ex, ey   int32
	bit      int // the peer's bit in grid.seen

	// changes are the send tick's changes in the peer's scope, in
	// network-id order, when its tick is the send tick's (distribute).
	changes []change
	tick    uint32
	// near holds, by cell, the distance from its nearest square that
	// weightOf found since at was last refreshed (its refresh, atGen), for
	// a peer of more than nearSquares squares (an army spread over the
	// map: every change near them looked at every square); made at the
	// first such refresh.
	near  []nearMemo
	atGen uint32
	// blocks indexes at by block, for weightOf (nearest), for a peer of
	// more than nearSquares squares.
	blocks squareIndex
}

// nearMemo is weightOf's memo of one cell: the distance in cells from the
// cell (x, y) to the nearest of a peer's squares as of refresh gen.
type nearMemo struct {
	gen, d uint32
	x, y   int32
}

// nearSquares is how many squares a peer has before weightOf keeps what it
// finds of each cell for the send tick.
const nearSquares = 8

func cellKey(x, y int32) uint64 { return uint64(uint32(x))<<32 | uint64(uint32(y)) }

func (g *grid) init(cfg *InterestConfig) {
	g.cfg = cfg
	g.pos = -1
	g.index = make(map[uint64]int32)
	g.r = int64(math.Ceil(cfg.Radius / cfg.CellSize)) // at most maxRadiusCells (defaults)
	g.steps = cfg.CellSize * cfg.StepsPerUnit
	margin := max(cfg.Margin, 0)
	g.fmargin = margin / cfg.CellSize
	if g.steps == math.Trunc(g.steps) && g.steps < 1<<40 {
		g.isteps = int64(g.steps)
		g.margin = int64(math.Round(margin * cfg.StepsPerUnit))
		g.fmargin = float64(g.margin) / g.steps
	}
	g.weight = make([]float64, g.r+1)
	for d := range g.weight {
		dist := float64(d) * cfg.CellSize
		w := 1.0
		if dist > cfg.Near {
			w = 1 - (1-cfg.FarWeight)*min(1, (dist-cfg.Near)/max(cfg.Radius-cfg.Near, 1))
		}
		g.weight[d] = w
		if w == 1 {
			g.whole = int64(d)
		}
	}
}

// bind finds the position component in reg; without one the grid is off.
func (g *grid) bind(reg *Registry) {
	if g.cfg.Off {
		return
	}
	if c, ok := reg.Lookup(reg.world.IDs.Transform); ok && reg.comps[c].fields >= 2 {
		g.on = true
		g.pos = int(c)
		g.off = reg.offset[c]
	}
}

// stays reports, for a whole number of steps per cell, whether an entity
// in cell c at position pos (x, y in wire steps) stays there (follow, along
// both axes at once).
func (g *grid) stays(pos []int32, c *cell) bool {
	m := g.margin
	return uint64(int64(pos[0])-c.x0+m) < uint64(g.isteps+2*m) && uint64(int64(pos[1])-c.y0+m) < uint64(g.isteps+2*m)
}

// follow returns the cell, along one axis, of an entity at p (wire steps)
// whose cell along it was c: c while p lies in it or less than the margin
// past its edges, else the cell p lies in.
func (g *grid) follow(p float64, c int32) int32 {
	if g.isteps > 0 {
		lo := int64(c) * g.isteps
		if q := int64(p); q >= lo-g.margin && q < lo+g.isteps+g.margin {
			return c
		}
		return int32(math.Floor(p / g.steps))
	}
	if x := p/g.steps - float64(c); x >= -g.fmargin && x < 1+g.fmargin {
		return c
	}
	return int32(math.Floor(p / g.steps))
}

// cellOf returns the cell coordinates of an image's position.
func (g *grid) cellOf(img []int32) (int32, int32) {
	x := math.Floor(float64(img[g.off]) / g.steps)
	y := math.Floor(float64(img[g.off+1]) / g.steps)
	return int32(x), int32(y)
}

// cellAt returns the index of cell (x, y), making it if needed (in a cell
// given back, if there is one).
func (g *grid) cellAt(x, y int32) int32 {
	k := cellKey(x, y)
	if i, ok := g.index[k]; ok {
		return i
	}
	c := cell{x: x, y: y, x0: int64(x) * g.isteps, y0: int64(y) * g.isteps, live: true}
	var i int32
	if n := len(g.free); n > 0 {
		i = g.free[n-1]
		g.free = g.free[:n-1]
		c.ents = g.cells[i].ents[:0]
		g.cells[i] = c
	} else {
		i = int32(len(g.cells))
		g.cells = append(g.cells, c)
		for _, p := range g.peers {
			p.scope.cover = append(p.scope.cover, 0)
		}
		for range g.words {
			g.seen = append(g.seen, 0)
		}
	}
	g.index[k] = i
	g.empty++
	for _, p := range g.peers {
		g.setCover(p, i, 0)
		if p.scope.squared() {
			g.setCover(p, i, g.covering(p, x, y))
		}
	}
	return i
}

// squared reports whether the peer has squares (it owns something with a
// position, or did: held; or the game gave it one: pinned); without any,
// every entity is in its scope.
func (sc *peerScope) squared() bool { return len(sc.own) > 0 || sc.held || sc.pinned }

// ownCell is how many of the entities a peer owns are in one cell, and the
// cell's place in peerScope.cells.
type ownCell struct{ n, pos int32 }

// gainCell counts one more of the peer's entities in cell ci, and reports
// whether the cell is new among its cells (its square is to be added).
func (sc *peerScope) gainCell(ci int32) bool {
	if sc.ownIn == nil {
		sc.ownIn = map[int32]ownCell{}
	}
	oc, ok := sc.ownIn[ci]
	if ok {
		oc.n++
		sc.ownIn[ci] = oc
		return false
	}
	sc.ownIn[ci] = ownCell{n: 1, pos: int32(len(sc.cells))}
	sc.cells = append(sc.cells, ci)
	sc.most = max(sc.most, len(sc.ownIn))
	return true
}

// loseCell counts one fewer of the peer's entities in cell ci, and reports
// whether the cell left its cells (its square is to be taken away).
func (sc *peerScope) loseCell(ci int32) bool {
	oc, ok := sc.ownIn[ci]
	if !ok {
		return false
	}
	if oc.n > 1 {
		oc.n--
		sc.ownIn[ci] = oc
		return false
	}
	delete(sc.ownIn, ci)
	last := sc.cells[len(sc.cells)-1]
	sc.cells[oc.pos] = last
	sc.cells = sc.cells[:len(sc.cells)-1]
	if last != ci {
		moved := sc.ownIn[last]
		moved.pos = oc.pos
		sc.ownIn[last] = moved
	}
	return true
}

// tidy gives back the empty cells once they outnumber both minEmptyCells
// and the cells holding entities, so the grid's memory follows where the
// entities are, not where they have been: O(cells) at most once per as many
// cells emptied. A cell given back is out of the index; its entity list's
// memory is kept for the cell that reuses it. Call it between steps' intake
// and packing, never while an entity is between two cells.
func (g *grid) tidy() {
	if g.empty <= max(minEmptyCells, len(g.index)-g.empty) {
		return
	}
	for i := range g.cells {
		c := &g.cells[i]
		if !c.live || len(c.ents) > 0 {
			continue
		}
		c.live = false
		delete(g.index, cellKey(c.x, c.y))
		g.free = append(g.free, int32(i))
	}
	g.empty = 0
}

// covering counts the peer's squares that hold cell (x, y).
func (g *grid) covering(p *HostPeer, x, y int32) uint16 {
	sc := &p.scope
	n := uint16(0)
	if sc.held && dist(sc.hx, x) <= g.r && dist(sc.hy, y) <= g.r {
		n++
	}
	if sc.pinned && dist(sc.px, x) <= g.r && dist(sc.py, y) <= g.r {
		n++
	}
	for _, ci := range sc.cells {
		if g.near(&g.cells[ci], x, y) {
			n++
		}
	}
	return n
}

func (g *grid) near(c *cell, x, y int32) bool {
	return dist(c.x, x) <= g.r && dist(c.y, y) <= g.r
}

// dist returns how far apart two cells' coordinates along an axis are: in
// an int64, as the coordinates span the int32s (cells of a wire step) and
// their difference may not fit one.
func dist(a, b int32) int64 {
	if d := int64(a) - int64(b); d >= 0 {
		return d
	}
	return int64(b) - int64(a)
}

// span returns the coordinates along an axis of the cells within the
// radius of coordinate c, as far as coordinates go (the int32s).
func (g *grid) span(c int32) (lo, hi int64) {
	return max(int64(c)-g.r, math.MinInt32), min(int64(c)+g.r, math.MaxInt32)
}

// place puts a new entity in its cell (or none, without a position).
func (g *grid) place(h *HostReplicator, slot int32) {
	e := &h.ents[slot]
	e.cell = -1
	if !g.on || e.has&(1<<g.pos) == 0 {
		return
	}
	x, y := g.cellOf(h.image(slot))
	ci := g.cellAt(x, y)
	g.insert(h, slot, ci)
	if e.owner != ecs.HostPeer {
		if p := h.Peer(e.owner); p != nil {
			g.ownSquare(p, slot)
		}
	}
}

func (g *grid) insert(h *HostReplicator, slot, ci int32) {
	c := &g.cells[ci]
	if len(c.ents) == 0 {
		g.empty--
	}
	h.ents[slot].cell = ci
	h.ents[slot].cellPos = int32(len(c.ents))
	if cap(c.ents) == 0 {
		// Room for a few at once, cut from a slab: entities roaming a
		// world of sparse cells would otherwise grow a cell's list one
		// by one, each growth an allocation, and make one for each cell
		// they reach first.
		if len(g.slab) < cellRoom {
			g.slab = make([]int32, cellRoom*cellSlab)
		}
		c.ents = g.slab[:0:cellRoom]
		g.slab = g.slab[cellRoom:]
	}
	c.ents = append(c.ents, slot)
}

// cellRoom is the room a cell's list of entities is made with, cellSlab
// how many such lists are made at once.
const (
	cellRoom = 4
	cellSlab = 1024
)

func (g *grid) unlink(h *HostReplicator, slot int32) {
	e := &h.ents[slot]
	c := &g.cells[e.cell]
	last := c.ents[len(c.ents)-1]
	c.ents[e.cellPos] = last
	h.ents[last].cellPos = e.cellPos
	c.ents = c.ents[:len(c.ents)-1]
	if len(c.ents) == 0 {
		g.empty++
	}
	e.cell = -1
}

// remove takes a leaving entity out of the grid.
func (g *grid) remove(h *HostReplicator, slot int32) {
	e := &h.ents[slot]
	if e.cell < 0 {
		return
	}
	if e.owner != ecs.HostPeer {
		if p := h.Peer(e.owner); p != nil {
			g.disownSquare(p, slot)
		} else {
			g.goneWhileParked(e.owner, e.cell)
		}
	}
	g.unlink(h, slot)
}

// stayed reports whether an entity in cell ci (-1: none) whose position
// component's image is pos stays in its cell (follow), the usual answer for
// a reported move: a check small enough to inline before moved.
func (g *grid) stayed(ci int32, pos []int32) bool {
	if ci < 0 || g.isteps == 0 || len(pos) < 2 {
		return false
	}
	return g.stays(pos, &g.cells[ci])
}

// moved checks whether the entity in slot, whose position image changed,
// changed cell, and if so moves it and tells every peer that gained or lost
// it.
func (g *grid) moved(h *HostReplicator, slot int32) {
	e := &h.ents[slot]
	if e.cell < 0 {
		if g.on && e.has&(1<<g.pos) != 0 {
			g.place(h, slot) // it gained a position
			for _, p := range g.peers {
				if !g.inScope(p, slot) {
					p.leave(slot)
				}
			}
		}
		return
	}
	oldCell := e.cell
	img := h.image(slot)
	ox, oy := g.cells[oldCell].x, g.cells[oldCell].y
	// Along each axis, the old cell's row or column while within the
	// margin of it.
	x, y := g.follow(float64(img[g.off]), ox), g.follow(float64(img[g.off+1]), oy)
	if x == ox && y == oy {
		return
	}
	// The new cell is made (and its cover counted) while the entity is still
	// in its old one: moveSquare then moves its own square, if it is a
	// player's, from there.
	ci := g.cellAt(x, y)
	g.unlink(h, slot)
	g.insert(h, slot, ci)
	// The peers that cover one cell and not the other gain or lose it (a
	// peer without squares covers neither, and sees it still).
	ws := g.words
	now, then := g.seen[int(ci)*ws:][:ws], g.seen[int(oldCell)*ws:][:ws]
	for w := range ws {
		for m := now[w] ^ then[w]; m != 0; m &= m - 1 {
			b := bits.TrailingZeros64(m)
			p := g.bits[w*64+b]
			if p.id == e.owner {
				continue
			}
			if now[w]&(1<<b) != 0 {
				p.enter(slot)
			} else {
				p.leave(slot)
			}
		}
	}
	if e.owner != ecs.HostPeer {
		if p := h.Peer(e.owner); p != nil {
			g.moveOwn(p, slot, oldCell, ci)
		}
	}
}

// reown moves the entity's square from its old owner to its new one.
func (g *grid) reown(h *HostReplicator, slot int32, old ecs.PeerID) {
	e := &h.ents[slot]
	if e.cell < 0 {
		return
	}
	if p := h.Peer(old); p != nil && old != ecs.HostPeer {
		g.disownSquare(p, slot)
	} else if old != ecs.HostPeer {
		g.goneWhileParked(old, e.cell)
	}
	if p := h.Peer(e.owner); p != nil && e.owner != ecs.HostPeer {
		g.ownSquare(p, slot)
	}
}

// inScope reports whether the entity in slot is in the peer's scope.
func (g *grid) inScope(p *HostPeer, slot int32) bool {
	e := &p.h.ents[slot]
	return e.cell < 0 || !p.scope.squared() || e.owner == p.id || p.scope.cover[e.cell] > 0
}

// focusCells refreshes the cells of the peer's squares (those of the cells
// it holds entities in, its held one, the game's), for the weights of a
// send tick.
func (g *grid) focusCells(p *HostPeer) {
	sc := &p.scope
	sc.at = sc.at[:0]
	sc.atGen++ // weightOf's memo goes stale (0 is never a refresh's)
	if sc.atGen == 0 {
		sc.atGen = 1
		clear(sc.near)
	}
	if !g.on || !sc.squared() {
		return
	}
	if sc.held {
		sc.at = append(sc.at, atSquare{x: sc.hx, y: sc.hy})
	}
	if sc.pinned {
		sc.at = append(sc.at, atSquare{x: sc.px, y: sc.py})
	}
	for _, ci := range sc.cells {
		c := &g.cells[ci]
		sc.at = append(sc.at, atSquare{x: c.x, y: c.y})
	}
	if len(sc.at) > nearSquares {
		g.indexSquares(&sc.blocks, sc.at)
	}
}

// entryNote is what enteringAround replaced, for endEntering.
type entryNote struct {
	entering bool
	x, y     int32
}

// enteringAround notes that entities entering the scope now come with a
// square around cell (x, y), and returns what it replaced, for
// endEntering to put back.
func (sc *peerScope) enteringAround(x, y int32) entryNote {
	was := entryNote{sc.entering, sc.ex, sc.ey}
	sc.entering, sc.ex, sc.ey = true, x, y
	return was
}

// endEntering puts back what enteringAround replaced.
func (sc *peerScope) endEntering(was entryNote) {
	sc.entering, sc.ex, sc.ey = was.entering, was.x, was.y
}

// entryWeight returns the weight by distance of the entity in slot entering
// the peer's scope: from the square that brings it, while one does
// (enteringAround), else as weightOf.
func (g *grid) entryWeight(p *HostPeer, slot int32) float64 {
	sc := &p.scope
	ci := p.h.ents[slot].cell
	if !sc.entering || ci < 0 {
		return g.weightOf(p, slot)
	}
	c := &g.cells[ci]
	return g.weight[min(max(dist(sc.ex, c.x), dist(sc.ey, c.y)), g.r)]
}

// weightOf returns the urgency weight of the entity in slot for the peer:
// by its distance in cells from the nearest entity the peer owns (as of
// focusCells).
func (g *grid) weightOf(p *HostPeer, slot int32) float64 {
	sc := &p.scope
	if len(sc.at) == 0 {
		return 1
	}
	ci := p.h.ents[slot].cell
	if ci < 0 {
		return 1
	}
	c := &g.cells[ci]
	var m *nearMemo
	if len(sc.at) > nearSquares {
		if int(ci) >= len(sc.near) {
			sc.near = append(sc.near, make([]nearMemo, len(g.cells)-len(sc.near))...)
		}
		m = &sc.near[ci]
		if m.gen == sc.atGen && m.x == c.x && m.y == c.y {
			return g.weight[m.d]
		}
	}
	var best int64
	if m != nil {
		best = g.nearest(&sc.blocks, sc.at, c.x, c.y)
	} else {
		best = int64(math.MaxInt64)
		for _, o := range sc.at {
			if best = min(best, max(dist(o.x, c.x), dist(o.y, c.y))); best <= g.whole {
				break // none nearer weighs more
			}
		}
	}
	d := min(best, g.r)
	if m != nil {
		*m = nearMemo{gen: sc.atGen, d: uint32(d), x: c.x, y: c.y}
	}
	return g.weight[d]
}
