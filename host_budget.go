package tandem

import (
	"time"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// A peer's state budget (HostConfig.Replication.BitsPerSecond) that stays
// full leaves its client drawing many entities from old states; the client
// shows it (NetStats.Backlog) and so does the host's net graph, but a host
// run headless says it in its log: once a peer's budget has held items back
// at the last send tick of every batch of steps for budgetWarnAfter, a
// warning names the peer and what to change, at most once every
// budgetWarnEvery for each peer.
const (
	budgetWarnAfter = 5 * time.Second
	budgetWarnEvery = time.Minute
)

// budgetWatch is what the host keeps of each peer whose budget was full
// lately.
type budgetWatch struct {
	peers []*replicate.HostPeer // scratch, cleared after each use
	seen  map[ecs.PeerID]budgetSeen
}

type budgetSeen struct {
	since  time.Time // the budget has been full since (zero: it is not now)
	warned time.Time // the last warning (zero: none)
}

// watchBudgets runs after each batch of steps: it notes which peers' budgets
// are full and warns of those full for budgetWarnAfter. It allocates only
// when a peer's budget first fills.
func (h *Host[I]) watchBudgets() {
	if h.session == nil {
		return
	}
	now := h.clk.Now()
	b := &h.budgets
	b.peers = h.session.Replicator().AppendPeers(b.peers[:0])
	for _, p := range b.peers {
		held := p.Stats().Backlog
		seen, ok := b.seen[p.ID()]
		switch {
		case held == 0 && !ok:
			continue
		case held == 0:
			seen.since = time.Time{}
		case seen.since.IsZero():
			seen.since = now
		case now.Sub(seen.since) >= budgetWarnAfter && (seen.warned.IsZero() || now.Sub(seen.warned) >= budgetWarnEvery):
			seen.warned = now
			h.mu.logger().Warn("tandem: a player's state budget has been full for "+budgetWarnAfter.String()+
				"; its client draws the entities held back from old states. Raise HostConfig.Replication.BitsPerSecond, or narrow Replication.Interest",
				"peer", p.ID(), "name", h.names[p.ID()], "held", held, "kbit/s", (h.session.Replicator().Config().BitsPerSecond+999)/1000)
		}
		if b.seen == nil {
			b.seen = map[ecs.PeerID]budgetSeen{}
		}
		b.seen[p.ID()] = seen
	}
	clear(b.peers) // holds no peer, nor through it the world, past the call
	for id, seen := range b.seen {
		gone := h.session.Replicator().Peer(id) == nil
		if gone || seen.since.IsZero() && (seen.warned.IsZero() || now.Sub(seen.warned) >= budgetWarnEvery) {
			delete(b.seen, id)
		}
	}
}
