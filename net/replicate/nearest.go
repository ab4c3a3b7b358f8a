package replicate

import (
	"math"
	"math/bits"
	"slices"
)

// atSquare is one of a peer's squares as of the last send tick (its cell),
// with, for a peer of more than nearSquares squares, the block of cells it
// lies in (grid.blockOf), by which the peer's squares are then indexed.
type atSquare struct {
	block uint64
	x, y  int32
}

// blockSide is the side of the blocks of cells by which a peer's squares
// are indexed for nearest: the radius in cells (at least one), so that the
// squares within the radius of a cell lie in the three-by-three blocks
// around its own.
func (g *grid) blockSide() int64 { return max(g.r, 1) }

// blockOf returns the key of the block of cells that holds cell (x, y):
// its row, then its column.
func (g *grid) blockOf(x, y int32) uint64 {
	b := g.blockSide()
	return blockKey(floorDiv(int64(y), b), floorDiv(int64(x), b))
}

// blockKey is the key of the block in row and col, both in the int32
// range.
func blockKey(row, col int64) uint64 {
	return uint64(uint32(int32(row))^1<<31)<<32 | uint64(uint32(int32(col))^1<<31)
}

// floorDiv returns ⌊a/b⌋ for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// squareIndex finds a peer's squares by the block of cells they lie in: a
// hash table of chains, made anew at each send tick in one pass over the
// squares (no sorting), its arrays reused.
type squareIndex struct {
	head  []int32 // by a block's hash: its chain's first square, plus one; 0: none
	next  []int32 // by square: the next square of its chain, plus one; 0: the end
	shift uint    // 64 less the bits of len(head)
}

// indexSquares gives each of the squares at its block and chains them by it, for
// nearest: once a send tick, for a peer of more than nearSquares squares
// (an army spread over the map).
func (g *grid) indexSquares(ix *squareIndex, at []atSquare) {
	size := 1 << bits.Len(uint(2*len(at)-1)) // a power of two, at least twice the squares
	if cap(ix.head) < size {
		ix.head = make([]int32, size)
	}
	ix.head = ix.head[:size]
	clear(ix.head)
	ix.shift = uint(64 - bits.TrailingZeros(uint(size)))
	ix.next = slices.Grow(ix.next[:0], len(at))[:len(at)]
	for i := range at {
		at[i].block = g.blockOf(at[i].x, at[i].y)
		h := ix.hash(at[i].block)
		ix.next[i] = ix.head[h]
		ix.head[h] = int32(i + 1)
	}
}

func (ix *squareIndex) hash(block uint64) uint64 { return block * 0x9e3779b97f4a7c15 >> ix.shift }

// nearest returns the distance in cells from cell (x, y) to the nearest of
// the squares at, indexed by ix (indexSquares), if that is within the radius;
// past it, a distance past the radius. It looks only in the three by three
// blocks around the cell's, its own first, and stops at a square within
// grid.whole (none nearer weighs more): an army of thousands of squares
// spread over the map costs each cell the squares near it, not all of
// them.
func (g *grid) nearest(ix *squareIndex, at []atSquare, x, y int32) int64 {
	b := g.blockSide()
	bx, by := floorDiv(int64(x), b), floorDiv(int64(y), b)
	best := int64(math.MaxInt64)
	for _, d := range [9][2]int64{{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {1, -1}, {-1, 1}, {1, 1}} {
		row, col := by+d[1], bx+d[0]
		if row < math.MinInt32 || row > math.MaxInt32 || col < math.MinInt32 || col > math.MaxInt32 {
			continue // past the cells' range: no square there
		}
		k := blockKey(row, col)
		for i := ix.head[ix.hash(k)]; i != 0; i = ix.next[i-1] {
			s := &at[i-1]
			if s.block != k {
				continue
			}
			if best = min(best, max(dist(s.x, x), dist(s.y, y))); best <= g.whole {
				return best
			}
		}
	}
	return best
}
