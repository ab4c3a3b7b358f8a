package session

import (
	"fmt"
	"time"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// Joins from one address. Each admission costs the host its scope drawn
// and its join's pages built (a millisecond or more in a large world), so a
// client that joins and leaves over and over, from one address, is held to
// HostConfig.MaxJoinsPerAddress a minute: a token bucket per address that
// joined lately, forgotten once full again (60/MaxJoinsPerAddress seconds
// after its last join).

// joinRates holds the buckets of the addresses that joined lately.
type joinRates struct {
	by     map[string]*bucket
	pruned time.Time // when full buckets were last forgotten
}

// joinBucket returns the capacity and the rate per second of an address's
// bucket, and false when joins are not bounded.
func (h *Host) joinBucket() (capacity, rate float64, bounded bool) {
	n := h.cfg.MaxJoinsPerAddress
	if n < 0 {
		return 0, 0, false
	}
	return float64(n), float64(n) / 60, true
}

// joinsLeft reports whether addr may join at now: a token is in its bucket.
// It spends none.
func (h *Host) joinsLeft(addr string, now time.Time) bool {
	capacity, rate, bounded := h.joinBucket()
	if !bounded {
		return true
	}
	b := h.joins.by[addr]
	return b == nil || b.has(now, capacity, rate)
}

// spendJoin spends a token of addr's bucket, for a peer admitted at now.
func (h *Host) spendJoin(addr string, now time.Time) {
	capacity, rate, bounded := h.joinBucket()
	if !bounded {
		return
	}
	if h.joins.by == nil {
		h.joins.by = map[string]*bucket{}
	}
	b := h.joins.by[addr]
	if b == nil {
		b = &bucket{}
		h.joins.by[addr] = b
	}
	b.take(now, capacity, rate)
}

// pruneJoins forgets, at most once a second, the buckets that are full
// again: the map holds the addresses that joined lately, at most as many as
// joined within the last minute.
func (h *Host) pruneJoins(now time.Time) {
	capacity, rate, bounded := h.joinBucket()
	if !bounded || len(h.joins.by) == 0 || now.Sub(h.joins.pruned) < time.Second {
		return
	}
	h.joins.pruned = now
	for addr, b := range h.joins.by {
		if b.has(now, capacity, rate); b.tokens >= capacity {
			delete(h.joins.by, addr)
		}
	}
}

// refuseJoins refuses p's join, its address past MaxJoinsPerAddress.
func (h *Host) refuseJoins(p *hostPeer) {
	h.stats.JoinLimited++
	h.reject(p, wire.RejectFull, transport.CloseNormal,
		fmt.Sprintf("too many joins from your address (%d a minute); try again in a few seconds", h.cfg.MaxJoinsPerAddress))
}
