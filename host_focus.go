package tandem

import "github.com/tandem-go/tandem/ecs"

// Focus gives peer a square of interest around the world position (x, y),
// beside those around the entities it owns: the host's interest grid
// (HostConfig.Replication.Interest) then sends it what a camera there would
// see: a spectator following a player, a scout's view, a camera that
// drifts while the player waits to spawn again. Called again, it moves the
// square; Unfocus takes it away. Without the grid (its Off set, or no
// Transform replicated), or for a peer the host does not have, it does
// nothing. Call it on the simulation goroutine: in a system, a hook or an
// observer, or inside Do.
func (h *Host[I]) Focus(peer ecs.PeerID, x, y float64) {
	h.session.Replicator().Focus(peer, x, y)
}

// Unfocus takes away peer's square of Focus: the peer sees again what is
// around the entities it owns (or, if it never owned one, the whole world).
// Call it on the simulation goroutine.
func (h *Host[I]) Unfocus(peer ecs.PeerID) {
	h.session.Replicator().Unfocus(peer)
}
