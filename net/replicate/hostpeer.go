package replicate

import (
	"time"
	"unsafe"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// Per-entity flags of a host peer. Not on the wire.
const (
	fKnown     = 1 << iota // the peer holds the entity (spawn delivered, or joined with it)
	fSpawning              // a spawn is in flight
	fNeedSpawn             // a spawn must be sent
	fListed                // the slot is in the peer's dirty list
	fPaged                 // join: the entity went out in a page (base says when)
	fCatchUp               // join: changed since its page; paged again in the next round
	fSent                  // the peer may hold the entity: a spawn went out, or its removal was taken back, since the slot was last reset
	fOut                   // out of the peer's scope: not sent, removed from the peer
)

// peerSlot is a peer's record of one networked entity: 12 bytes, the whole
// per-entity cost of a peer, joining or not. The values the peer holds are
// not copied: base names the frame of the shared image the peer
// acknowledged.
type peerSlot struct {
	base  uint32 // frame of the image the peer acknowledged (its delta baseline); 0: none
	dirty uint16 // components to send
	prio  uint8  // priority gained while waiting
	flags uint8
	sends uint8 // items of the entity sent to the peer, wrapping
	bsend uint8 // sends when the baseline's item went out
	epoch uint8 // bumped whenever the peer's record of the entity starts anew
	wait  uint8 // waiting bit and placements in the wheel (pack.go); prio is then the tick it is due
}

// despawnEntry is a removal a peer must learn of.
type despawnEntry struct {
	id ecs.NetID
	// frame is the host frame of the removal: the entity went, or left the
	// peer's scope (its copies carry their age from it).
	frame uint32
	at    uint32 // the frame of the message carrying its newest copy (once one went)
	// from is the frame of its first copy (0 until it goes): the fate of a
	// copy sent before (of a removal taken back since) does not count.
	from   uint32
	copies uint8 // copies in flight with no fate known (at most removalCopies)
	flying bool
	// back: the entity came back into scope while its removal was in
	// flight: its fate, either way, ends the removal, and it is not sent
	// again meanwhile.
	back bool
}

// A removal in flight is sent again at each later send tick, up to as many
// copies whose fate is unknown as the send ticks the connection takes to
// learn a datagram's fate (its round trip, reorder window and the peer's
// acknowledgement delay: an Out's FateAfter) and one, from minRemovalCopies
// to maxRemovalCopies, as long as the copies take at most half the tick's
// budget: a removal waiting for its loss to be known (an entity a client
// still draws: a shot that hit) shows. The first copy delivered ends it;
// the loss of the newest sends it again at once. (Four copies whatever the
// link left one removal in 500 drawn half a second late at 150 ms each way
// and 20% loss: all four lost before the first loss was known.) An Out
// that does not say how long a fate takes gets minRemovalCopies.
const (
	minRemovalCopies = 4
	maxRemovalCopies = 16
)

// removalCopies returns how many copies of a removal may be in flight to
// the peer with their fate unknown (see minRemovalCopies).
func (p *HostPeer) removalCopies() uint8 {
	fa, ok := p.out.(interface{ FateAfter() time.Duration })
	if !ok {
		return minRemovalCopies
	}
	cfg := &p.h.cfg
	tick := max(time.Duration(float64(time.Second)*float64(cfg.SendEvery)/cfg.StepRate), time.Millisecond)
	return uint8(min(max(int(fa.FateAfter()/tick)+1, minRemovalCopies), maxRemovalCopies))
}

// HostPeer is the host's replication state for one peer. Create it with
// HostReplicator.AddPeer.
//
// Its memory is in proportion to what it is and has in flight: a 12-byte
// slot per networked entity, its dirty list, and a record of each message
// whose fate is not known yet, with 16 bytes per item it carried.
type HostPeer struct {
	h        *HostReplicator
	id       ecs.PeerID
	out      Out
	slots    []peerSlot
	dirty    []uint64 // dirtyKey of each entity due and left by the budget, by network id
	added    []uint64 // listed since the last send tick (due at once), in no order
	wheel    [wheelLen][]uint64
	despawns []despawnEntry
	unsent   int          // despawns not flying: queued, or lost and due again
	rmIndex  removalIndex // despawns by network id, past removalScan of them
	// copyLimit is removalCopies as this send tick's packing took it.
	copyLimit uint8
	// base is the common base of the peer's States this send tick, and
	// what chooses it (commonBase).
	base   commonBase
	recs   records
	tokens uint32 // budget bytes available
	// turn is the id of the last item taken of those waiting longest
	// (takeByPriority): the next tick's turn begins after it.
	turn ecs.NetID
	// turnFrom is the id of the last turn taken at the top (grantTurns):
	// the next send tick's turns begin after it.
	turnFrom ecs.NetID
	quiet    uint8 // send ticks in a row the peer was sent no State (quiet.go)
	// stepped is set by the first step after the peer was added: its
	// scope is drawn from then on, if not before (scoped, InScope).
	stepped    bool
	backlog    backlogSent
	authDirty  bool
	authMore   bool // the share left owned entities out: more once the AuthStates in flight settle
	inputFrame ecs.Frame
	auth       authFlight
	own        ownRefresh
	join       *joinState
	err        error
	stats      PeerStats
	scope      peerScope
	pk         packScratch
}

// PeerStats counts one peer's replication traffic. Totals since the peer was
// added.
type PeerStats struct {
	Messages, Items, Bytes uint64 // State messages, items and payload bytes sent
	Spawns, Despawns       uint64 // spawn and removal items sent
	Deltas                 uint64 // items sent as deltas of a baseline
	Shared                 uint64 // items whose encoded fields were another peer's
	Reused                 uint64 // messages whose bytes were another peer's
	Resent                 uint64 // items marked dirty again after a loss
	// Repeats counts the copies of removals sent while an earlier copy
	// was in flight with its fate unknown (removalCopies); one sent
	// because the newest copy was lost counts in Resent instead. Despawns
	// counts both.
	Repeats uint64
	// AuthMessages counts AuthState messages, AuthItems the owned
	// entities' states they carried (each owned entity the host changed,
	// the others in turn: HostConfig.OwnRefresh).
	AuthMessages, AuthItems uint64
	// AuthDeferred counts the owned entities' states that were due in an
	// AuthState and waited for a later one: an owner of more than 16
	// entities is sent what its share of the budget holds, the longest
	// unsent first (HostConfig.BitsPerSecond).
	AuthDeferred uint64
	// JoinPages counts the pages of the peer's join, JoinBytes their bytes
	// and those of its FINAL: what the client counts as its ClientStats.Pages
	// and JoinBytes once it has them all (a resume's join is another peer
	// record's, where the client's counts add up every join).
	JoinPages, JoinBytes uint64
	JoinEntities         uint64 // entities the join's pages carried, one paged again in a later round (it changed meanwhile) each time
	// JoinRounds counts the rounds of the peer's join: 1 from its start,
	// one more each time it pages again what changed during the round
	// before.
	JoinRounds int
	// Deferred counts the dirty items, and the removals not sent yet,
	// that the budget left for a later tick, each time it left them.
	Deferred uint64
	// Quiet counts the empty State messages sent on quiet ticks, as the
	// peer's world fell still: nothing it holds changed, nothing waited to
	// go to it (quiet.go). They are not in Messages; their bytes are in
	// Bytes.
	Quiet uint64
	// Entered and Left count the entities that came into and went out of
	// the peer's scope: once its join is done, and during it those a page
	// had sent that left (the join takes them back). What the join finds
	// out of scope, and what comes into scope while it runs (the join
	// sends it), are neither.
	Entered, Left uint64
	// Backlog is how many items (removals among them) the budget held
	// back at the peer's last send tick (0: everything due went); Backlogs
	// counts the Backlog
	// messages that told the client (backlog.go). Their bytes are in
	// Bytes.
	Backlog  int
	Backlogs uint64
}

// ID returns the peer's id.
func (p *HostPeer) ID() ecs.PeerID { return p.id }

// Stats returns the peer's counters.
func (p *HostPeer) Stats() PeerStats { return p.stats }

// Joining reports whether the peer's join has not finished.
func (p *HostPeer) Joining() bool { return p.join != nil }

// Err returns why the peer must be dropped (a join that could not catch up),
// or nil.
func (p *HostPeer) Err() error { return p.err }

// SetInputFrame records the newest frame of the peer's input the host has
// applied: AuthState carries the owned entities' state at it.
func (p *HostPeer) SetInputFrame(f ecs.Frame) {
	if f != p.inputFrame {
		p.inputFrame = f
		p.authDirty = true
	}
}

// Held returns how many networked entities the host counts the peer as
// holding or about to hold: those in its scope (0, as InScope says, for a
// peer whose scope the next step draws). Once the peer has
// acknowledged everything sent, it holds exactly these. O(world): for tests,
// tools and a join's start, not for every tick.
func (p *HostPeer) Held() int {
	if !p.stepped && !p.scoped() {
		return 0 // its scope is drawn at the next step, as InScope says
	}
	n := 0
	for i := range min(len(p.slots), len(p.h.ents)) {
		if p.h.ents[i].flags&eLive != 0 && p.slots[i].flags&fOut == 0 {
			n++
		}
	}
	return n
}

// AppendScope appends to ids the network ids of the entities in the peer's
// scope, those Held counts (none for a peer whose scope the next step
// draws), in slot order, and returns the extended slice. O(world): for
// tests and tools, as Held.
func (p *HostPeer) AppendScope(ids []ecs.NetID) []ecs.NetID {
	if !p.stepped && !p.scoped() {
		return ids
	}
	for i := range min(len(p.slots), len(p.h.ents)) {
		if e := &p.h.ents[i]; e.flags&eLive != 0 && p.slots[i].flags&fOut == 0 {
			ids = append(ids, e.id)
		}
	}
	return ids
}

// InScope reports whether the networked entity e is in the peer's scope:
// the host sends it to the peer (it holds it, or it is on its way), and
// keeps it up to date; false for one outside it (never sent, or removed
// from the peer) and for an entity that is not networked. False too for a
// peer added since the last step that owns entities the replicator has not
// taken in (made, or given to it, since: a new player's), whose scope they
// decide: the next step draws it. O(1) but in that case.
func (p *HostPeer) InScope(e arche.Entity) bool {
	h := p.h
	slot, ok := h.w.NetSlot(e)
	if !ok || !p.stepped && !p.scoped() || !h.known(e) || int(slot) >= len(p.slots) {
		return false
	}
	return p.slots[slot].flags&fOut == 0
}

// scoped reports whether the peer's scope is drawn from what it owns: after
// a step, every entity it owns taken in by the replicator as its own (a
// peer that resumed, one that owns nothing), not one made, or given to it,
// since the last step.
func (p *HostPeer) scoped() bool {
	h := p.h
	if h.steps == 0 {
		return false
	}
	for _, e := range h.w.Owned(p.id) {
		slot, ok := h.w.NetSlot(e)
		ni, _ := h.w.Identity(e)
		if !ok || int(slot) >= len(h.ents) || h.ents[slot].flags&eLive == 0 || h.ents[slot].id != ni.ID || h.ents[slot].owner != p.id {
			return false
		}
	}
	return true
}

func (p *HostPeer) grow(n int) {
	switch {
	case len(p.slots) >= n:
	case cap(p.slots) >= n:
		p.slots = p.slots[:n]
	case len(p.slots) == 0:
		// A new peer: exactly the world's slots, 12 bytes each.
		p.slots = make([]peerSlot, n)
	default:
		p.slots = append(p.slots, make([]peerSlot, n-len(p.slots))...)
	}
}

// unlist takes the entity off the peer's dirty list: nothing of it is to
// send (it went, or the peer holds it as it is).
func (s *peerSlot) unlist() {
	s.dirty = 0
	s.flags &^= fListed
	s.prio = 0
}

// reset starts the peer's record of the entity in slot anew: notices of
// messages sent before are stale, and so is its entry in the dirty list, if
// any. Only fOut stays.
func (s *peerSlot) reset() {
	*s = peerSlot{flags: s.flags & fOut, epoch: s.epoch + 1, wait: s.wait &^ waiting}
}

// onSpawn notes a new networked entity.
func (p *HostPeer) onSpawn(slot int32) {
	p.grow(int(slot) + 1)
	s := &p.slots[slot]
	s.flags &^= fOut
	if !p.h.grid.inScope(p, slot) {
		s.flags |= fOut
	}
	if p.join != nil {
		p.join.onSpawn(p, slot)
		return
	}
	s.reset()
	if s.flags&fOut != 0 {
		return
	}
	s.flags |= fNeedSpawn
	s.prio = prioLongest
	p.list(slot)
}

// onDespawn notes that the entity id left slot; live: the host held it (an
// entity made and removed within a step it never did).
func (p *HostPeer) onDespawn(id ecs.NetID, slot int32, live bool) {
	if int(slot) >= len(p.slots) {
		return
	}
	if p.join != nil {
		p.join.onDespawn(p, id, slot, live)
		return
	}
	p.forget(slot, id)
	p.slots[slot].flags &^= fOut
}

// forget resets the peer's record of the entity id in slot, queueing its
// removal if the peer may hold it. The slot stays in the dirty list, if it is,
// to be dropped there.
func (p *HostPeer) forget(slot int32, id ecs.NetID) {
	s := &p.slots[slot]
	p.queueRemoval(id, s.flags&(fKnown|fSpawning|fSent) != 0)
	s.reset()
}

// queueRemoval queues the removal of id, once, if the peer may hold the
// entity (held) or a removal of it is still queued: one in flight that was
// taken back (the entity had come back) stands again.
func (p *HostPeer) queueRemoval(id ecs.NetID, held bool) {
	if i := p.findRemoval(id); i >= 0 {
		// One in flight from before the entity came back is older than
		// what the peer was sent since (and so ignored there): it goes
		// again, and the fate of the old one no longer counts.
		if d := &p.despawns[i]; d.back {
			if d.flying {
				p.unsent++
			}
			d.back, d.flying, d.copies, d.from, d.frame = false, false, 0, 0, p.h.removalFrame()
		}
		return
	}
	if held {
		p.pushRemoval(id)
	}
}

// onReown notes that the entity in slot got a new owner, or lost a
// component: every peer learns it through a spawn, which carries the owner
// and the entity's components; the owner gets AuthState.
func (p *HostPeer) onReown(slot int32, owner ecs.PeerID) {
	if int(slot) >= len(p.slots) {
		return
	}
	if p.join != nil {
		p.join.onChange(p, slot)
		return
	}
	if owner == p.id {
		// It goes in the owner's AuthStates until one is acknowledged.
		p.authDirty = true
		p.own.forceSlot(slot, p.h.frame)
	}
	s := &p.slots[slot]
	if s.flags&fOut != 0 {
		return
	}
	s.flags |= fNeedSpawn
	p.list(slot)
}

// enter makes the entity in slot part of the peer's scope: it is sent whole.
func (p *HostPeer) enter(slot int32) {
	s := &p.slots[slot]
	if s.flags&fOut == 0 {
		return
	}
	s.flags &^= fOut
	if p.join != nil {
		p.join.onEnter(p, slot)
		return
	}
	p.stats.Entered++
	back := p.cancelRemoval(p.h.ents[slot].id)
	s.reset()
	s.flags |= fNeedSpawn
	if back {
		s.flags |= fSent // it may still hold the entity: leaving again removes it
	}
	s.prio = p.entryPriority(slot)
	p.list(slot)
}

// leave takes the entity in slot out of the peer's scope: the peer removes
// it now, not on its next change.
func (p *HostPeer) leave(slot int32) {
	s := &p.slots[slot]
	if s.flags&fOut != 0 {
		return
	}
	e := &p.h.ents[slot]
	if p.join != nil {
		if s.flags&fPaged != 0 {
			p.stats.Left++ // a page sent it: the join takes it back
		}
		p.join.onLeave(p, e.id, slot)
		s.flags |= fOut
		return
	}
	p.stats.Left++
	if e.owner != p.id {
		p.forget(slot, e.id)
	}
	s.flags |= fOut
}

// notice applies the fate of the message that carried token.
func (p *HostPeer) notice(token uint32, delivered bool) {
	r := p.recs.get(token)
	if r == nil {
		return
	}
	p.settle(r, delivered)
	r.seq = 0
	p.recs.release()
}

// record opens the record of a message about to be sent and returns it with
// its token.
func (p *HostPeer) record(frame uint32, auth bool) (*sentRecord, uint32) {
	r, token, evicted := p.recs.open(frame, auth)
	if evicted.seq != 0 {
		// Unresolved after maxRecords newer messages: its fate is lost.
		p.settle(&evicted, false)
		p.recs.release()
	}
	return r, token
}

// maxNoticeAge is the oldest message, in send ticks, whose delivery still
// makes a baseline: well under the 256 sends an entity's wrapping counters
// tell apart (an entity goes at most once a send tick).
const maxNoticeAge = 128

// settle applies a record's fate: delivered images become baselines; lost
// items are marked to go again with their newest state.
func (p *HostPeer) settle(r *sentRecord, delivered bool) {
	if r.auth {
		if delivered {
			p.own.acked = max(p.own.acked, r.frame)
		} else {
			// The owner gets its state again, at its newest: every owned
			// entity, for what the lost message carried.
			p.authDirty, p.own.full = true, true
		}
		if p.auth.settled() {
			// Once more, after all of a frame (authFlight): whole.
			p.authDirty, p.own.full = true, true
		}
		return
	}
	h := p.h
	if delivered && r.frame > p.base.acked {
		p.base.acked = r.frame
	}
	fresh := h.frame-r.frame < maxNoticeAge*uint32(h.cfg.SendEvery)
	for i := range r.n {
		it := p.recs.item(r, i)
		if it.kind == itemDespawn {
			p.resolveDespawn(it.id, r.frame, delivered)
			continue
		}
		if int(it.slot) >= len(p.slots) || h.ids[it.slot] != it.id {
			continue // the entity left; its slot may hold another
		}
		s := &p.slots[it.slot]
		if s.epoch != it.epoch {
			continue // sent before the peer's record of the entity began anew
		}
		if !delivered {
			p.stats.Resent++
			if it.kind == itemSpawn {
				// A spawn goes again even to a peer that holds the entity
				// (an earlier spawn arrived): this one may have carried what
				// only a spawn says (a new owner, a component that is not
				// delta-coded added since), which no update would.
				s.flags = s.flags&^fSpawning | fNeedSpawn
				p.urge(it.slot)
				continue
			}
			s.dirty |= it.mask | h.reg.delta&h.ents[it.slot].has
			if stopped, turned := p.heldAstray(it.slot); stopped || turned {
				// It stopped (its Velocity zero) or turned, and the peer
				// holds it moving as it did: the state that said so may be
				// the one lost, and a client moves on by the velocity it
				// holds, for as long as a full budget says waiting is the
				// budget's (interp's HeldBack). It goes again first, as a
				// stop goes.
				p.urgeStop(it.slot)
				continue
			}
			p.list(it.slot)
			continue
		}
		if it.kind == itemSpawn {
			s.flags = s.flags&^fSpawning | fKnown
		}
		if fresh && r.frame > s.base && s.sends-it.send < DeltaReach {
			s.base = r.frame
			s.bsend = it.send
		}
	}
}

func (p *HostPeer) resolveDespawn(id ecs.NetID, frame uint32, delivered bool) {
	if i := p.findRemoval(id); i >= 0 {
		d := &p.despawns[i]
		if d.from == 0 || frame < d.from || frame > d.at {
			return // the fate of a send of a removal taken back since
		}
		// Counted off whether or not a copy is flying: the newest one's
		// loss may be known before an older one's (a datagram the
		// connection refused is lost at once).
		if d.copies > 0 {
			d.copies--
		}
		if !delivered && (frame != d.at || !d.flying) {
			return // a newer copy is on its way, or goes at the next send tick
		}
		if delivered || d.back {
			// Done: delivered, or lost when the entity had come back (the
			// peer still holds it). One delivered after the entity came back
			// is older than the state the peer was sent since, which the
			// peer keeps (a client ignores a removal older than what it
			// holds).
			p.dropRemoval(i)
		} else {
			d.flying = false
			p.unsent++
			p.stats.Resent++
		}
	}
}

// cancelRemoval takes back the removal of an entity that came back into the
// peer's scope (which sends it whole again): one not sent yet is dropped;
// one in flight is marked so that its fate, either way, ends it (the peer
// keeps the newer spawn). It reports whether there was one.
func (p *HostPeer) cancelRemoval(id ecs.NetID) (found bool) {
	i := p.findRemoval(id)
	switch {
	case i < 0:
		return false
	case !p.despawns[i].flying:
		p.dropRemoval(i)
	default:
		p.despawns[i].back = true
	}
	return true
}

// Memory returns the bytes of host memory the peer's replication state
// holds: its slots, dirty lists, records of what is in flight, scope and
// scratch, by their capacity. It is what the peer costs beyond the shared
// state of the world (and the connection's buffers, which net/conn bounds).
func (p *HostPeer) Memory() int {
	n := cap(p.slots)*int(unsafe.Sizeof(peerSlot{})) + (cap(p.dirty)+cap(p.added))*8 + cap(p.despawns)*int(unsafe.Sizeof(despawnEntry{})) + p.rmIndex.memory()
	n += cap(p.recs.recs)*int(unsafe.Sizeof(sentRecord{})) + cap(p.recs.items)*int(unsafe.Sizeof(sentItem{}))
	n += cap(p.scope.cover)*2 + cap(p.scope.own)*4 + cap(p.scope.at)*int(unsafe.Sizeof(atSquare{})) + cap(p.scope.changes)*int(unsafe.Sizeof(change{}))
	n += cap(p.scope.cells)*4 + p.scope.most*20 // a map entry of 12 bytes and its share of the groups' words and slack
	n += cap(p.scope.near)*int(unsafe.Sizeof(nearMemo{})) + (cap(p.scope.blocks.head)+cap(p.scope.blocks.next))*4
	// The owned entities' AuthState stamps: a map's entry of 12 bytes and
	// its share of the groups' control words and slack, about 20 bytes.
	n += len(p.own.sent)*20 + cap(p.own.picks)*int(unsafe.Sizeof(ownPick{})) + (cap(p.own.force)+cap(p.own.recent)+cap(p.own.told))*int(unsafe.Sizeof(ownForce{}))
	n += (cap(p.own.held)+cap(p.own.looked))*4 + cap(p.own.seen)*8
	for i := range p.wheel {
		n += cap(p.wheel[i]) * 8
	}
	ps := &p.pk
	n += (cap(ps.next) + cap(ps.order) + cap(ps.keys) + cap(ps.tmp)) * 8
	n += cap(ps.turns.at) * 4
	n += (cap(ps.picks) + cap(ps.sel)) * int(unsafe.Sizeof(pick{}))
	n += cap(ps.buf)
	if p.join != nil {
		n += cap(p.join.page) + cap(p.join.paged)*4 + cap(p.join.despawns)*4
	}
	return n + int(unsafe.Sizeof(*p))
}
