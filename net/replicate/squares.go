package replicate

import (
	"math/bits"

	"github.com/tandem-go/tandem/ecs"
)

// A peer's view of the grid: the squares around what it owns, the cells they
// cover (a count per cell, and the cell's bit of the peer), the entities they
// bring into and out of its scope, and the send tick's changes in its scope.

// setCover sets the peer's cover of cell ci to n, and the cell's bit of the
// peer in seen: every change of a cover goes through it.
func (g *grid) setCover(p *HostPeer, ci int32, n uint16) {
	sc := &p.scope
	w, bit := &g.seen[int(ci)*g.words+sc.bit/64], uint64(1)<<(sc.bit%64)
	if n > 0 {
		*w |= bit
	} else {
		*w &^= bit
	}
	sc.cover[ci] = n
}

// strictGrid, set by the package's tests, makes the grid panic where its
// bookkeeping finds itself wrong (wrong), instead of going on as well as it
// can.
var strictGrid bool

// wrong reports a fault of the grid's bookkeeping: a panic with strictGrid,
// else nothing (the caller goes on as well as it can).
func (g *grid) wrong(what string) {
	if strictGrid {
		panic("replicate: interest grid: " + what)
	}
}

// clearCover sets every cover of the peer to 0.
func (g *grid) clearCover(p *HostPeer) {
	sc := &p.scope
	w, bit := sc.bit/64, uint64(1)<<(sc.bit%64)
	for ci := range sc.cover {
		g.seen[ci*g.words+w] &^= bit
	}
	clear(sc.cover)
}

// ownSquare counts the entity in slot, which the peer now owns by the
// host's records, in its cell; the first of the peer's entities there
// brings the square of radius r around the cell, whose cells that come
// into its cover bring their entities into its scope. A peer whose first
// square arrives stops seeing the whole world; one holding the square of its
// last entity (held) lets that go once the new one stands.
func (g *grid) ownSquare(p *HostPeer, slot int32) {
	sc := &p.scope
	e := &p.h.ents[slot]
	x, y := g.cells[e.cell].x, g.cells[e.cell].y
	first := !sc.squared()
	e.ownPos = int32(len(sc.own))
	sc.own = append(sc.own, slot)
	sc.last = false
	if !sc.gainCell(e.cell) {
		return // the square of its cell stands already
	}
	if first {
		g.coverSquare(p, x, y)
		g.narrow(p)
		return
	}
	g.shiftSquare(p, x, y, 1)
	if sc.held {
		// The new square first, then the held one goes: the cells both
		// cover stay in scope.
		sc.held = false
		g.shiftSquare(p, sc.hx, sc.hy, -1)
	}
}

// disownSquare takes the entity in slot, which the peer no longer owns or
// which leaves the grid, out of its cell's count; the last of the peer's
// entities there takes the cell's square away, and cells that go out of
// its cover take their entities out of its scope. The square of its last one stays
// where it was (held), until its next arrives and takes its place; unless
// the game gives the peer a square of its own (Focus), which stands in for
// it. Only a square the peer has (in own) is taken away: one never given
// to it was never counted in its cover.
func (g *grid) disownSquare(p *HostPeer, slot int32) {
	sc := &p.scope
	ents := p.h.ents
	i := ents[slot].ownPos
	if i < 0 || int(i) >= len(sc.own) || sc.own[i] != slot {
		g.wrong("a square taken away that the peer was never given")
		return
	}
	last := sc.own[len(sc.own)-1]
	sc.own[i] = last
	ents[last].ownPos = i
	sc.own = sc.own[:len(sc.own)-1]
	c := &g.cells[ents[slot].cell]
	x, y := c.x, c.y
	if !sc.loseCell(ents[slot].cell) {
		return // others of its stand in the cell: its square stays
	}
	if len(sc.own) == 0 {
		sc.last, sc.hx, sc.hy = true, x, y
		if !sc.pinned {
			sc.held = true
			return
		}
		// The game's square stays; where this one was is remembered, for
		// Unfocus to hold it.
	}
	g.shiftSquare(p, x, y, -1)
}

// coverSquare adds the square around (x, y) to the peer's cover, bringing
// nothing into or out of its scope: for a peer whose scope is drawn whole
// after (narrow, refocus, addPeer).
func (g *grid) coverSquare(p *HostPeer, x, y int32) {
	g.eachSquareCell(x, y, func(ci int32) { g.setCover(p, ci, p.scope.cover[ci]+1) })
}

// shiftSquare adds d to the peer's cover of each cell of the square around
// (x, y), bringing the entities of cells that come into or go out of its
// cover into or out of its scope.
func (g *grid) shiftSquare(p *HostPeer, x, y int32, d int) {
	sc := &p.scope
	if d > 0 {
		defer sc.endEntering(sc.enteringAround(x, y))
	}
	g.eachSquareCell(x, y, func(ci int32) {
		was := sc.cover[ci] > 0
		g.setCover(p, ci, g.shifted(sc, ci, d))
		if in := sc.cover[ci] > 0; in != was {
			g.scopeCell(p, ci, in)
		}
	})
}

// shifted returns the peer's cover of cell ci plus d. Below 0 (a square
// taken away that was never counted) it would wrap and hold the cell in the
// peer's scope for good: it stays 0, a fault (wrong).
func (g *grid) shifted(sc *peerScope, ci int32, d int) uint16 {
	n := int(sc.cover[ci]) + d
	if n < 0 {
		g.wrong("a cover gone below 0")
		return 0
	}
	return uint16(n)
}

// moveOwn notes that the peer's entity in slot went from cell from to cell
// to: the square of a cell it leaves empty of the peer's entities goes, and
// one comes for a cell that had none; a square leaving one cell for the
// next moves there.
func (g *grid) moveOwn(p *HostPeer, slot, from, to int32) {
	sc := &p.scope
	if i := p.h.ents[slot].ownPos; i < 0 || int(i) >= len(sc.own) || sc.own[i] != slot {
		return // no square of its: the step has yet to give it (place, reown)
	}
	gained, emptied := sc.gainCell(to), sc.loseCell(from)
	f, t := &g.cells[from], &g.cells[to]
	switch {
	case gained && emptied:
		g.moveSquare(p, f.x, f.y, t.x, t.y)
	case gained:
		g.shiftSquare(p, t.x, t.y, 1)
	case emptied:
		g.shiftSquare(p, f.x, f.y, -1)
	}
}

// moveSquare moves one of the peer's squares from cell (ox, oy) to (x, y).
func (g *grid) moveSquare(p *HostPeer, ox, oy, x, y int32) {
	sc := &p.scope
	defer sc.endEntering(sc.enteringAround(x, y))
	step := func(cx, cy int32, d int) {
		ci, ok := g.index[cellKey(cx, cy)]
		if !ok {
			return
		}
		was := sc.cover[ci] > 0
		g.setCover(p, ci, g.shifted(sc, ci, d))
		if in := sc.cover[ci] > 0; in != was {
			g.scopeCell(p, ci, in)
		}
	}
	if int(2*g.r+1)*int(2*g.r+1) > len(g.cells) {
		for ci := range g.cells {
			c := &g.cells[ci]
			if !c.live {
				continue
			}
			was := dist(c.x, ox) <= g.r && dist(c.y, oy) <= g.r
			in := dist(c.x, x) <= g.r && dist(c.y, y) <= g.r
			if was != in {
				d := 1
				if was {
					d = -1
				}
				step(c.x, c.y, d)
			}
		}
		return
	}
	x0, x1 := g.span(x)
	y0, y1 := g.span(y)
	for cx := x0; cx <= x1; cx++ {
		for cy := y0; cy <= y1; cy++ {
			if dist(int32(cx), ox) > g.r || dist(int32(cy), oy) > g.r {
				step(int32(cx), int32(cy), 1)
			}
		}
	}
	x0, x1 = g.span(ox)
	y0, y1 = g.span(oy)
	for cx := x0; cx <= x1; cx++ {
		for cy := y0; cy <= y1; cy++ {
			if dist(int32(cx), x) > g.r || dist(int32(cy), y) > g.r {
				step(int32(cx), int32(cy), -1)
			}
		}
	}
}

// eachSquareCell calls fn for every existing cell within the radius of
// (x, y), by whichever is fewer: the square's cells or all cells.
func (g *grid) eachSquareCell(x, y int32, fn func(ci int32)) {
	if int(2*g.r+1)*int(2*g.r+1) > len(g.cells) {
		for ci := range g.cells {
			if g.cells[ci].live && g.near(&g.cells[ci], x, y) {
				fn(int32(ci))
			}
		}
		return
	}
	x0, x1 := g.span(x)
	y0, y1 := g.span(y)
	for cx := x0; cx <= x1; cx++ {
		for cy := y0; cy <= y1; cy++ {
			if ci, ok := g.index[cellKey(int32(cx), int32(cy))]; ok {
				fn(ci)
			}
		}
	}
}

// scopeCell brings the entities of cell ci into (in) or out of the peer's
// scope.
func (g *grid) scopeCell(p *HostPeer, ci int32, in bool) {
	for _, slot := range g.cells[ci].ents {
		if p.h.ents[slot].owner == p.id {
			continue
		}
		if in {
			p.enter(slot)
		} else {
			p.leave(slot)
		}
	}
}

// narrow draws the scope of a peer that gained its first square: until
// then it saw every entity, so those of the cells its cover leaves out,
// other than its own, leave its scope; the others stay. O(world), once, in
// slot order (the host's records are read in the order they lie: walking
// the cells' lists instead read them at random, four times slower with
// 100,000 entities).
func (g *grid) narrow(p *HostPeer) {
	p.grow(len(p.h.ents))
	cover := p.scope.cover
	// A join that has paged nothing yet (the player the game gave the peer
	// as it came in) holds none of them: each just leaves the round, as
	// leave would have it, without the call.
	fresh := p.join != nil && p.join.held == 0 && p.join.pending == 0 && len(p.join.despawns) == 0
	if p.join == nil {
		// Room once for the removals: at most the entities of the cells
		// the cover leaves out.
		in := 0
		for ci := range g.cells {
			if cover[ci] > 0 {
				in += len(g.cells[ci].ents)
			}
		}
		p.reserveRemovals(p.h.live - in)
	}
	for slot := range p.h.ents {
		e := &p.h.ents[slot]
		if e.flags&eLive == 0 || e.cell < 0 || cover[e.cell] > 0 || e.owner == p.id {
			continue
		}
		if s := &p.slots[slot]; fresh && s.flags&fOut == 0 {
			*s = peerSlot{flags: fOut, epoch: s.epoch + 1}
			p.join.scoped--
			continue
		}
		p.leave(int32(slot))
	}
}

// refocus sets the scope of every entity for a peer that lost its last
// square: O(world), once.
func (g *grid) refocus(p *HostPeer) {
	h := p.h
	p.grow(len(h.ents))
	for slot := range h.ents {
		e := &h.ents[slot]
		if e.flags&eLive == 0 {
			continue
		}
		if g.inScope(p, int32(slot)) {
			p.enter(int32(slot))
		} else {
			p.leave(int32(slot))
		}
	}
}

// addPeer starts a peer's view of the grid: every cell, and its squares
// around what it owns already.
func (g *grid) addPeer(p *HostPeer) {
	g.peers = append(g.peers, p)
	g.takeBit(p)
	p.scope.cover = make([]uint16, len(g.cells))
	h := p.h
	sc := &p.scope
	// Its squares by the host's records, as the steps add and take them
	// away: an entity spawned, removed, given to the peer or given away
	// since the last step is counted, or no longer, when the step takes
	// that in (place, remove, reown), as for a peer that was there.
	// O(world), once, and only for a peer that owns some already (a resume,
	// a restored world); the walk stops at the last of them.
	for slot, left := 0, h.owned[p.id]; left > 0 && slot < len(h.ents); slot++ {
		e := &h.ents[slot]
		if e.flags&eLive == 0 || e.owner != p.id {
			continue
		}
		left--
		if e.cell >= 0 {
			e.ownPos = int32(len(sc.own))
			sc.own = append(sc.own, int32(slot))
			if sc.gainCell(e.cell) {
				g.coverSquare(p, g.cells[e.cell].x, g.cells[e.cell].y)
			}
		}
	}
	// The squares of its own it had when it was parked (ParkPeer).
	if k, ok := g.parked[p.id]; ok {
		delete(g.parked, p.id)
		sc.pinned, sc.px, sc.py = k.pinned, k.px, k.py
		sc.last, sc.hx, sc.hy = k.last && len(sc.own) == 0, k.hx, k.hy
		sc.held = sc.last && !sc.pinned
		if sc.pinned {
			g.coverSquare(p, sc.px, sc.py)
		}
		if sc.held {
			g.coverSquare(p, sc.hx, sc.hy)
		}
	}
	if !sc.squared() {
		return // no square: every entity is in scope
	}
	held := 0
	for slot := range h.ents {
		if h.ents[slot].flags&eLive == 0 {
			continue
		}
		if g.inScope(p, int32(slot)) {
			held++
		} else {
			p.slots[slot].flags |= fOut
		}
	}
	if p.join != nil {
		p.join.scoped = held // what the join brings now
	}
}

// parkPeer removes the peer, keeping its squares of its own (held,
// pinned) for the next addPeer of its id; while it is away, the game may
// give it a square (Focus), and its entities that go note where they were
// (goneWhileParked).
func (g *grid) parkPeer(p *HostPeer) {
	sc := &p.scope
	if g.parked == nil {
		g.parked = map[ecs.PeerID]parkedSquares{}
	}
	g.parked[p.id] = parkedSquares{pinned: sc.pinned, px: sc.px, py: sc.py, last: sc.last || sc.held, hx: sc.hx, hy: sc.hy}
	g.removePeer(p)
}

// goneWhileParked notes, for a parked peer, the cell ci of its entity that
// goes (removed, given away, or without a position now): should it be the
// last it owned with a position, the peer holds that square once it is back
// (addPeer), as it would have had it been there.
func (g *grid) goneWhileParked(id ecs.PeerID, ci int32) {
	k, ok := g.parked[id]
	if !ok {
		return
	}
	k.last, k.hx, k.hy = true, g.cells[ci].x, g.cells[ci].y
	g.parked[id] = k
}

func (g *grid) removePeer(p *HostPeer) {
	for i, q := range g.peers {
		if q == p {
			g.peers = append(g.peers[:i], g.peers[i+1:]...)
			g.clearCover(p)
			g.bits[p.scope.bit] = nil
			return
		}
	}
}

// takeBit gives a new peer the first free bit of seen, widening every
// cell's words when none is free.
func (g *grid) takeBit(p *HostPeer) {
	b := 0
	for b < len(g.bits) && g.bits[b] != nil {
		b++
	}
	if b == len(g.bits) {
		g.bits = append(g.bits, nil)
	}
	g.bits[b] = p
	p.scope.bit = b
	if b/64 < g.words {
		return
	}
	// One more word a cell: the cells' words move apart.
	words := g.words + 1
	seen := make([]uint64, len(g.cells)*words)
	for ci := range g.cells {
		copy(seen[ci*words:], g.seen[ci*g.words:(ci+1)*g.words])
	}
	g.seen, g.words = seen, words
}

// distribute hands each peer with squares (that is not joining) the send
// tick's changes in its scope, in their order: those in cells its squares
// cover, and those without a cell. The changes of its own entities are among
// them; pack passes over those, and over any whose entity is out of its scope.
// A peer without squares has every change in its scope and reads the tick's
// list itself.
func (g *grid) distribute(h *HostReplicator, changes []change) {
	if len(g.peers) == 0 || !g.on {
		return
	}
	some := false
	for _, p := range g.peers {
		if sc := &p.scope; sc.squared() && p.join == nil && p.err == nil {
			sc.changes, sc.tick = sc.changes[:0], h.tick
			some = true
		}
	}
	if !some {
		return
	}
	words := g.words
	for i := range changes {
		ch := &changes[i]
		ci := h.ents[ch.slot].cell
		if ci < 0 {
			for _, p := range g.peers {
				if sc := &p.scope; sc.tick == h.tick && sc.squared() {
					sc.changes = append(sc.changes, *ch)
				}
			}
			continue
		}
		seen := g.seen[int(ci)*words : int(ci+1)*words]
		for w, m := range seen {
			for m != 0 {
				b := w*64 + bits.TrailingZeros64(m)
				m &= m - 1
				if sc := &g.bits[b].scope; sc.tick == h.tick {
					sc.changes = append(sc.changes, *ch)
				}
			}
		}
	}
}

// changesFor returns the send tick's changes the peer's packing looks at:
// its own, if distribute made them this tick, else all of them.
func (g *grid) changesFor(p *HostPeer, changes []change) []change {
	if sc := &p.scope; sc.tick == p.h.tick && sc.squared() {
		return sc.changes
	}
	return changes
}
