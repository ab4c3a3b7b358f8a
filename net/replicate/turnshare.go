package replicate

// Turns at the top, within a share of the budget.
//
// A client moves an entity on by the velocity it holds while a full budget
// holds its states back (interp's HeldBack): a turn that waited its turn
// behind a backlog was drawn carried straight on past its corner (in a
// test of 300 marchers under a full budget, for 45 send ticks). A change
// that turned its entity (urgTurn) goes above the top, as a stop does, but
// within a turnShare of the peer's budget, counted at the average item's
// size: when more turn at once (a storm that bounces every body), they take
// that share in turns by id, from after the last one taken, and the others
// go as urgent changes, so what waited longest keeps the rest of the
// budget. (All of them at the top, a storm's turns drained in id order
// ahead of every change that waited, and the longest wait grew by half.)
// A peer takes at the top only the turns of entities it weighs fully: near
// what it owns (its interest) and not given a lower Priority by the game;
// the others go weighed. (A young entity's turn is young: urgYoung, at the
// top for every peer.)

// turnShare is the part of a peer's budget (1/turnShare) that a send tick's
// turns may take at the top.
const turnShare = 4

// turnGrants is a peer's grant of the top to this send tick's turns.
type turnGrants struct {
	at    []int32 // indexes in the send tick's changes of the turns that may go at the top, in order
	first int     // where in at the turns after the last one taken begin
	room  int     // how many of at, from first on and wrapping, go at the top
	next  int     // the next of at that the packing's pass over the changes meets
}

// grantTurns decides which of this send tick's turns go at the top for the
// peer (see turnShare), before the pass over the changes asks each
// (granted). It moves the peer's turn among the turns on.
func (p *HostPeer) grantTurns(changes []change, budget int, weighed bool) {
	g := &p.pk.turns
	g.at, g.next = g.at[:0], 0
	if p.h.turning == 0 {
		return
	}
	for i := range changes {
		ch := &changes[i]
		if ch.urg != urgTurn || p.leavesOut(ch) || weighed && !p.weighsFully(ch.slot) {
			continue
		}
		g.at = append(g.at, int32(i))
	}
	n := len(g.at)
	if n == 0 {
		return
	}
	avg := p.pk.avgBits
	if avg == 0 {
		avg = 64
	}
	g.room = max(1, int(float64(budget/turnShare)/(avg+gapBound)))
	g.first = 0
	for g.first < n && changes[g.at[g.first]].id <= p.turnFrom {
		g.first++
	}
	if g.first == n {
		g.first = 0
	}
	// The next send tick's share begins after the last one taken. (Moved
	// when all fit too: peers whose turns all fit then hold the same
	// cursor, whatever they held before, and follow each other's tapes.)
	p.turnFrom = changes[g.at[(g.first+min(g.room, n)-1)%n]].id
}

// weighsFully reports whether the peer weighs the entity in slot fully: its
// interest's weight (by distance from what the peer owns) and the game's
// Priority for the peer both 1 or more.
func (p *HostPeer) weighsFully(slot int32) bool {
	if len(p.scope.at) > 0 && p.h.grid.weightOf(p, slot) < 1 {
		return false
	}
	return p.h.cfg.Priority == nil || p.gamePriority(slot) >= 1
}

// granted reports whether the change at index i of this send tick's
// changes goes at the top (grantTurns); the pass over the changes asks for
// each turn, in order.
func (p *HostPeer) granted(i int) bool {
	g := &p.pk.turns
	k := g.next
	if k >= len(g.at) || int(g.at[k]) != i {
		return false
	}
	g.next++
	n := len(g.at)
	return (k-g.first+n)%n < g.room
}

// leavesOut reports whether the peer's packing leaves the change out: its
// entity is out of the peer's scope, or the peer owns and predicts it (its
// AuthState carries it).
func (p *HostPeer) leavesOut(ch *change) bool {
	return p.slots[ch.slot].flags&fOut != 0 || ch.owner == p.id && p.h.ents[ch.slot].flags&eMoved == 0
}
