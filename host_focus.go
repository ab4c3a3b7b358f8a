package tandem

import (
	"math"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Focus gives peer a square of interest around the world position (x, y),
// as large as those around the entities it owns (the interest's Radius
// each way), beside them: the host's interest grid
// (HostConfig.Replication.Interest) then sends it what a camera there would
// see: a spectator following a player, a scout's view, a camera that
// drifts while the player waits to spawn again. Called again, it moves the
// square; Unfocus takes it away. Without the grid (its Off set, or no
// Transform replicated), or for a peer the host does not have, it does
// nothing. From the game's Join hook (a spectator's: a PeerJoined
// observer; World.Focus where the Host is not at hand) it takes effect as
// the peer is admitted, so its join brings the square, not the whole world
// (not if Join refuses it); later, the peer holding the whole world by
// then, what the square leaves out is removed within its budget. It outlasts a broken connection, and a player's outlasts a
// restart too (it is in the player's record of a save): a player that
// resumes has its square still. A position that is not a number (NaN:
// check what a peer's command brings) leaves the square where it was. Call
// it on the simulation goroutine: in a system, a hook or an observer, or
// inside Do.
func (h *Host[I]) Focus(peer ecs.PeerID, x, y float64) {
	if math.IsNaN(x) || math.IsNaN(y) {
		return
	}
	if peer != ecs.HostPeer && peer == h.joining.peer {
		h.joining.focus, h.joining.x, h.joining.y = true, x, y
		return
	}
	delete(h.follows, peer)
	h.focusAt(peer, x, y)
}

// focusAt moves peer's square of Focus to (x, y).
func (h *Host[I]) focusAt(peer ecs.PeerID, x, y float64) {
	h.session.Replicator().Focus(peer, x, y)
	h.keepFocus(peer, focusSquare{set: true, x: x, y: y})
}

// Follow makes peer's square of Focus follow entity e: at every step,
// after the game's systems and before the host sends, the square is put
// where e's Transform is (a player out of the match watching the one who
// eliminated her, a spectator's camera on a player). It stops when e is
// removed or loses its Transform (the square stays where e was last), or
// at peer's next Focus, Unfocus or Follow. It costs a Focus a step for
// each peer that follows. For a peer the host does not have (a player
// whose Join hook runs: Focus there, Follow from a system once it plays)
// it does nothing; an entity without a Transform is not followed (Focus
// where it will be). A save keeps the square where it is, not the following: a
// restarted host's game follows again. Call it on the simulation
// goroutine.
func (h *Host[I]) Follow(peer ecs.PeerID, e arche.Entity) {
	if h.session.Replicator().Peer(peer) == nil {
		return
	}
	w := h.w.ECS
	if !w.Alive(e) || !w.Arche().Has(e, w.IDs.Transform) {
		return
	}
	if h.follows == nil {
		h.follows = map[ecs.PeerID]arche.Entity{}
	}
	h.follows[peer] = e
	h.followOne(peer, e)
}

// follow moves every following peer's square to its entity (a system of
// the host's schedule).
func (h *Host[I]) follow(*ecs.World) {
	for peer, e := range h.follows {
		h.followOne(peer, e)
	}
}

// followOne moves peer's square to entity e, or ends the following of an
// entity gone or of a peer the host no longer has.
func (h *Host[I]) followOne(peer ecs.PeerID, e arche.Entity) {
	w := h.w.ECS
	if !w.Alive(e) || !w.Arche().Has(e, w.IDs.Transform) || h.session.Replicator().Peer(peer) == nil {
		delete(h.follows, peer)
		return
	}
	if p := (*ecs.Transform)(w.Arche().Get(e, w.IDs.Transform)); !math.IsNaN(p.X) && !math.IsNaN(p.Y) {
		h.focusAt(peer, p.X, p.Y)
	}
}

// Unfocus takes away peer's square of Focus: the peer sees again what is
// around the entities it owns; owning none now, around the last it owned
// that had a position; having never owned one, the whole world. Call it on
// the simulation goroutine.
func (h *Host[I]) Unfocus(peer ecs.PeerID) {
	if peer != ecs.HostPeer && peer == h.joining.peer {
		h.joining.focus = false
		return
	}
	delete(h.follows, peer)
	h.session.Replicator().Unfocus(peer)
	h.keepFocus(peer, focusSquare{})
}

// keepFocus keeps a player's square of Focus for its record in the next
// save.
func (h *Host[I]) keepFocus(peer ecs.PeerID, sq focusSquare) {
	pl := h.people.players[peer]
	if pl == nil || pl.focus == sq {
		return
	}
	pl.focus = sq
	if !pl.refocus && h.saves != nil {
		pl.refocus = true
		h.refocused = append(h.refocused, peer)
	}
}

// refocusResumed gives a player that resumed into a restored save the
// square of Focus its record kept (one that resumed after a broken
// connection has it still: giving it again changes nothing).
func (h *Host[I]) refocusResumed(peer ecs.PeerID) {
	if pl := h.people.players[peer]; pl != nil && pl.focus.set {
		h.session.Replicator().Focus(peer, pl.focus.x, pl.focus.y)
	}
}

// InScope reports whether entity e is in peer's scope: the host sends it
// to the peer and keeps it up to date there (with the interest grid off,
// every networked entity is, for every peer); false for an entity outside
// it, one that is not networked, and a peer the host does not have. What
// the peer holds follows within its budget and a round trip. A new
// player's scope is drawn at the first step after its admission, from the
// world as it is then (with what its Join hook made): until then, in its
// PeerJoined observer say, InScope is false for every entity; ask from a
// system, or from PeerReady. (A player that resumed, or a spectator, has
// its scope at once.) Call it on the simulation goroutine: in a system, a
// hook or an observer, or inside Do.
func (h *Host[I]) InScope(peer ecs.PeerID, e arche.Entity) bool {
	p := h.session.Replicator().Peer(peer)
	return p != nil && p.InScope(e)
}

// ScopeSize returns how many networked entities are in peer's scope (as
// InScope counts them: 0 for a peer the host does not have, and for a new
// player before the step that draws its scope): once the peer
// has acknowledged everything sent, what its client holds (its
// NetStats.Entities, what it draws to a removal aside). It walks the
// world: for tests, tools and a server's status, not for every step. Call
// it on the simulation goroutine, as InScope.
func (h *Host[I]) ScopeSize(peer ecs.PeerID) int {
	p := h.session.Replicator().Peer(peer)
	if p == nil {
		return 0
	}
	return p.Held()
}

// AppendScope appends to ids the network ids of the entities in peer's
// scope (those InScope and ScopeSize count: none for a peer the host does
// not have, or a new player's before the step that draws its scope), and
// returns the extended slice: what a test compares its client's world
// with, once the client caught up (leaving out what the client draws to a
// removal, ecs.Departing, and what it removed ahead of the host,
// World.Removed). It walks the world: for tests, tools and a server's
// status, not for every step. Call it on the simulation goroutine, as
// InScope.
func (h *Host[I]) AppendScope(peer ecs.PeerID, ids []ecs.NetID) []ecs.NetID {
	p := h.session.Replicator().Peer(peer)
	if p == nil {
		return ids
	}
	return p.AppendScope(ids)
}

// joiningFocus is the peer whose Join hook runs, and the square of interest
// the hook gave it (Focus), for when the peer is added.
type joiningFocus struct {
	peer  ecs.PeerID
	focus bool
	x, y  float64
}

// focusJoined gives a peer just admitted the square its Join hook gave it.
func (h *Host[I]) focusJoined(peer ecs.PeerID) {
	j := h.joining
	h.joining = joiningFocus{}
	if j.peer == peer && j.focus {
		h.Focus(peer, j.x, j.y)
	}
}
