package replicate

import (
	"math"

	"github.com/tandem-go/tandem/ecs"
)

// Focus gives peer a square of interest around the world position (x, y),
// beside those around what it owns: what a camera the game moves for it
// sees (a spectator following a player, a scout's view, a death camera that
// drifts). Called again, it moves the square; Unfocus takes it away. A peer
// whose only square it is sees what is around it, not the whole world. The
// square outlasts a broken connection: a peer that resumes has it still.
// With the interest grid off (InterestConfig.Off, or no Transform
// replicated) it does nothing, and for a peer not added yet (from the
// game's Join hook: call it once the peer joined) or gone, nothing either.
// A position that is not a number (a NaN, as from an unchecked peer's
// command) leaves the square where it was; one past the wire's range is
// taken at its edge. Call it on the simulation goroutine (in a system or a
// hook, or with the world held); it costs what enters and leaves the
// square, as an owned entity's move does.
func (h *HostReplicator) Focus(peer ecs.PeerID, x, y float64) {
	g := &h.grid
	if !g.on || math.IsNaN(x) || math.IsNaN(y) {
		return
	}
	sx, sy := g.stepsAt(x), g.stepsAt(y)
	cx, cy := int32(math.Floor(sx/g.steps)), int32(math.Floor(sy/g.steps))
	p := h.Peer(peer)
	if p == nil {
		if k, ok := g.parked[peer]; ok {
			if k.pinned {
				cx, cy = g.follow(sx, k.px), g.follow(sy, k.py)
			}
			k.pinned, k.px, k.py = true, cx, cy
			g.parked[peer] = k
		}
		return
	}
	sc := &p.scope
	if sc.pinned {
		// A square moved by less than the margin past its cell's edge
		// stays, as an entity's does.
		cx, cy = g.follow(sx, sc.px), g.follow(sy, sc.py)
	}
	switch {
	case sc.pinned && sc.px == cx && sc.py == cy:
		return
	case sc.pinned:
		g.shiftSquare(p, cx, cy, 1)
		g.shiftSquare(p, sc.px, sc.py, -1)
	case !sc.squared():
		// Its first square: it stops seeing the whole world.
		g.coverSquare(p, cx, cy)
		sc.pinned, sc.px, sc.py = true, cx, cy
		g.narrow(p)
		return
	default:
		g.shiftSquare(p, cx, cy, 1)
		if sc.held {
			// The game's square stands in for the one held (sc.last
			// keeps where it was, for Unfocus).
			sc.held = false
			g.shiftSquare(p, sc.hx, sc.hy, -1)
		}
	}
	sc.pinned, sc.px, sc.py = true, cx, cy
}

// Unfocus takes away peer's square of Focus: it sees again what is around
// what it owns; owning nothing with a position now, around the last thing
// it owned that had one; having never owned one, the whole world. Call it
// on the simulation goroutine.
func (h *HostReplicator) Unfocus(peer ecs.PeerID) {
	g := &h.grid
	p := h.Peer(peer)
	if p == nil {
		if k, ok := g.parked[peer]; ok {
			k.pinned = false
			g.parked[peer] = k
		}
		return
	}
	sc := &p.scope
	if !sc.pinned {
		return
	}
	sc.pinned = false
	switch {
	case len(sc.own) == 0 && sc.last && !sc.held:
		// Held where the last entity it owned was, as if the game's square
		// had never stood in for it.
		sc.held = true
		g.shiftSquare(p, sc.hx, sc.hy, 1)
		g.shiftSquare(p, sc.px, sc.py, -1)
	case !sc.squared():
		g.clearCover(p)
		g.refocus(p)
	default:
		g.shiftSquare(p, sc.px, sc.py, -1)
	}
}

// stepsAt returns world coordinate v in wire steps, as a position's
// quantized image holds it.
func (g *grid) stepsAt(v float64) float64 {
	limit := float64(math.MaxInt32)
	return max(-limit, min(limit, math.Round(v*g.cfg.StepsPerUnit)))
}
