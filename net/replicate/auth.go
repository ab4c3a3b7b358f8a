package replicate

import (
	"cmp"
	"fmt"
	"slices"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// The low bits of an AuthState item's flags, below its component mask.
const (
	// authTeleport: the entity's pose is of a teleport, whose host frame
	// follows the flags.
	authTeleport = 1
	authReserved = (1<<itemShift - 1) &^ authTeleport
)

// ownRefresh is what a peer's AuthStates have sent of its owned entities.
// An owned entity goes in every one built until the peer has one built
// after the entity last changed (or became the peer's, or lost a
// component): so a client that takes only the newest AuthState it has
// seen (predict's rule) misses no change when two arrive out of order. The
// others go in their turn (HostConfig.OwnRefresh), and every one when full
// is set (the peer's start, a loss).
type ownRefresh struct {
	full  bool   // the next AuthState carries every owned entity
	acked uint32 // the host frame the newest AuthState the peer acknowledged was built at
	// joined is the host frame the peer's join ended at (FINAL): its pages
	// carried every entity as of then.
	joined uint32
	turn   uint32 // AuthStates built: whose turn it is among the unchanged
	// force lists the entities that became the peer's or lost a component
	// (at the frame given), in slot order once sorted: due until acked
	// passes that frame.
	force []ownForce
	// sent holds, for an owner of more than ownAll entities, the last
	// AuthState that carried each owned entity, by slot: the longest unsent
	// go first when the due ones do not all fit (authShare).
	sent map[int32]ownSent
	// catchUp, when not 0, is the host frame of a full AuthState that could
	// not carry every owned entity: those that went in none since are due.
	catchUp uint32
	picks   []ownPick // scratch: the due entities that compete for the share
	// For an owner of more than ownAll entities, an AuthState looks at
	// what may be due rather than at every owned entity (sendAuth):
	// recent lists the owned entities that changed (or were made) and the
	// frame, due until acked passes it; held the slots the share left out
	// of the last one; window is where the next turn begins in the owner's
	// list, a refresh's share of it an AuthState. looked is scratch.
	recent []ownForce
	pruned int // len(recent) after its last pruning
	// told lists the entities told something (eTold) that went in an
	// AuthState, and its frame, until one of it is acknowledged: after a
	// loss they are told again, and go first in the whole one that follows.
	told   []ownForce
	held   []int32
	seen   slotSet // scratch of unacked: the slots kept, empty between calls
	window int
	looked []int32
	// shuffled: an entity left the owner's list since the round of turns
	// began (removed or given away), which moved its last entity into its
	// place, perhaps behind the window.
	shuffled bool
}

// noteChanged records that the owned entity in slot changed at frame: due
// in the AuthStates built until one built after it is acknowledged.
func (o *ownRefresh) noteChanged(slot int32, frame uint32) {
	o.recent = append(o.recent, ownForce{slot: slot, at: frame})
	if len(o.recent) > 2*o.pruned+64 {
		o.pruneRecent() // no AuthState built meanwhile (a join): once per slot
	}
}

// pruneRecent keeps of recent, once per slot, the newest change the peer
// has not acknowledged.
func (o *ownRefresh) pruneRecent() {
	o.recent = o.unacked(o.recent)
	o.pruned = len(o.recent)
}

// unacked keeps of list, once per slot, the newest entry of a frame past
// acked, in the order they were listed. The entries of a slot are listed
// in the order of their frames (a change is noted at its frame, or later at
// the entity's newest change), so the last of a slot is its newest: a pass
// from the end keeps each slot's first, marked in o.seen, and none older.
// An army that moves at every step lists each unit every step; this costs
// them a pass, where sorting them took most of the AuthState's time.
func (o *ownRefresh) unacked(list []ownForce) []ownForce {
	w := len(list)
	for i := len(list) - 1; i >= 0; i-- {
		r := list[i]
		if r.at <= o.acked || o.seen.has(r.slot) {
			continue // acknowledged, and so is every older one of the slot
		}
		o.seen.set(r.slot)
		w--
		list[w] = r // w > i but for the kept ones so far: nothing unread
	}
	kept := list[w:]
	for _, r := range kept {
		o.seen.unset(r.slot)
	}
	return list[:copy(list, kept)]
}

// ownSent is the last AuthState that carried an owned entity: the host
// frame it was built at, and its count among the AuthStates built
// (ownRefresh.turn).
type ownSent struct {
	frame, turn uint32
}

// ownPick is a due owned entity competing for an AuthState's share of the
// budget: the lower its key, the sooner it goes.
type ownPick struct {
	slot int32
	key  uint64
}

// ownOf is what an owner of more than ownAll entities knows of one of them
// as an AuthState is built: whether it is due beyond the rules of due (it
// changed since it last went; it went in none of the last refresh built, a
// turn that, deferred by the share, is not lost; it is behind a full
// AuthState the share cut short), and its key among the due. The key is
// the frame it last went, refreshFrames later for one unchanged since the
// newest AuthState the peer acknowledged and since it last went: the
// changed go before the unchanged that went as recently, and no due one
// waits behind changed ones for ever (a walking army took every share and
// the standing units never went).
func (o *ownRefresh) ownOf(slot int32, changed uint32, refresh int, refreshFrames uint32) (due bool, key uint64) {
	last := o.sent[slot]
	key = uint64(last.frame)
	if changed <= o.acked && changed <= last.frame {
		key += uint64(refreshFrames)
	}
	due = changed > last.frame || o.turn-last.turn >= uint32(refresh) || o.catchUp != 0 && last.frame < o.catchUp
	return due, key
}

// pruneSent drops from sent the slots the peer no longer owns, once it
// holds more than twice the entities the peer owns: a map that grows with
// what the peer owns, not with all it ever did.
func (o *ownRefresh) pruneSent(w *ecs.World, peer ecs.PeerID, owned int) {
	if len(o.sent) <= 2*owned+ownAll {
		return
	}
	for slot := range o.sent {
		e, _, ok := w.SlotEntity(slot)
		if !ok {
			delete(o.sent, slot)
			continue
		}
		if ni, _ := w.Identity(e); ni.Owner != peer {
			delete(o.sent, slot)
		}
	}
}

// ownForce is an owned entity due in the peer's AuthStates until one built
// after frame at is acknowledged.
type ownForce struct {
	slot int32
	at   uint32
}

// due reports whether the owned entity in slot, last changed at frame
// changed, goes in the AuthState being built: turn says it is its turn
// (never for an entity its owner does not predict); full: every one goes.
func (o *ownRefresh) due(full bool, slot int32, changed uint32, turn bool) bool {
	return full || changed > o.acked || turn || o.forced(slot)
}

// forced reports whether slot is in the force list and not yet acknowledged.
func (o *ownRefresh) forced(slot int32) bool {
	if len(o.force) == 0 {
		return false
	}
	i, ok := slices.BinarySearchFunc(o.force, slot, func(f ownForce, s int32) int { return cmp.Compare(f.slot, s) })
	return ok && o.force[i].at > o.acked
}

// forceSlot makes slot due until an AuthState built after frame is
// acknowledged.
func (o *ownRefresh) forceSlot(slot int32, frame uint32) {
	for i := range o.force {
		if o.force[i].slot == slot {
			o.force[i].at = frame
			return
		}
	}
	o.force = append(o.force, ownForce{slot: slot, at: frame})
}

// prune drops from the force list what was acknowledged, and sorts the
// rest by slot for a build.
func (o *ownRefresh) prune() {
	kept := o.force[:0]
	for _, f := range o.force {
		if f.at > o.acked {
			kept = append(kept, f)
		}
	}
	o.force = kept
	slices.SortFunc(o.force, func(a, b ownForce) int { return cmp.Compare(a.slot, b.slot) })
}

// The marks of a slot sendAuth looks at (slot<<2 | marks): its turn, or
// listed for another reason (changed, forced, left out by the share).
const (
	inTurn = 1
	listed = 2
)

// ownAll is the most entities an owner may hold and be sent every one of
// in every AuthState, changed or not: a player's avatar and its squad are
// corrected at every send tick; beyond, an army's unchanged units take turns
// (HostConfig.OwnRefresh).
const ownAll = 16

// sendAuth sends the owner the state of its entities when one changed or a
// newer input frame was applied: the shared images, byte-coded (PROTOCOL.md
// §9.4), of each owned entity the host changed since the last, and of the
// others in turn (ownRefresh). An owner of more than ownAll entities is sent
// of them what its share of the budget holds (authShare), the longest
// unsent first.
func (p *HostPeer) sendAuth() {
	if !p.authDirty && !(p.authMore && p.auth.flying == 0) {
		return
	}
	p.authMore = false
	h := p.h
	w := h.w
	owned := w.Owned(p.id)
	if len(owned) == 0 {
		p.authDirty = false
		return
	}
	frame := p.inputFrame
	if frame == 0 {
		frame = w.Frame()
	}
	p.authDirty = false // a message lost on the way (settle) sets it again
	p.auth.sending(frame)
	h.buf = wire.AppendUvarint(h.buf[:0], uint64(frame))
	header := len(h.buf)
	again := false
	own := &p.own
	refresh := h.cfg.OwnRefresh
	many := len(owned) > ownAll
	if !many {
		refresh = 1
	} else if own.sent == nil {
		own.sent = make(map[int32]ownSent, len(owned))
	}
	// A loss noted while this one is built (a message the connection
	// refused, a record pushed out) makes the next one full again.
	full := own.full
	own.full = false
	own.prune()
	if full && many {
		// What the share leaves out of this one is due until it has gone.
		own.catchUp = h.frame
	}
	// What the message costs the budget before its items: its frame, its
	// framing and its datagram's.
	items, spent, deferred := 0, header+wire.MessageOverhead(header)+h.cfg.DatagramOverhead, 0
	picks := own.picks[:0]
	refreshFrames := uint32(refresh * h.cfg.SendEvery)
	own.pruneRecent()
	own.told = own.unacked(own.told)
	if full {
		for _, t := range own.told {
			h.ents[t.slot].flags |= eTold // its AuthState may be the one lost
		}
	}
	// What to look at: every owned entity when it goes whole or is few;
	// else what may be due, sorted by slot: the changed, the forced, those
	// the share left out and those whose turn it is (a window of the
	// owner's list), so a still army costs its share a tick, not its size.
	look := own.looked[:0]
	all := full || !many
	if !all {
		// Each slot four times over: bit 0 set for one whose turn it is,
		// bit 1 for one listed for another reason.
		for _, r := range own.recent {
			look = append(look, r.slot<<2|listed)
		}
		for _, f := range own.force {
			look = append(look, f.slot<<2|listed)
		}
		for _, slot := range own.held {
			look = append(look, slot<<2|listed)
		}
		n := (len(owned) + refresh - 1) / refresh
		for i := range n {
			slot, _ := w.NetSlot(owned[(own.window+i)%len(owned)])
			look = append(look, slot<<2|inTurn)
		}
		if own.window+n >= len(owned) && own.shuffled {
			// A round of turns ends after an entity left the owner's list,
			// which moved its last entity into the place of the one gone,
			// perhaps behind the window before its turn. Those whose turn
			// has not come for a round go now: O(owned) once a round, as
			// the window, and only in a round whose list moved (a still
			// army whose share sends a few a tick would have most of its
			// units picked again and sorted, twice the tick's cost).
			own.shuffled = false
			for _, ent := range owned {
				slot, _ := w.NetSlot(ent)
				if own.turn-own.sent[slot].turn >= uint32(refresh) {
					look = append(look, slot<<2|inTurn)
				}
			}
		}
		own.window = (own.window + n) % len(owned)
		slices.Sort(look)
		kept := 0
		for _, k := range look {
			if kept > 0 && look[kept-1]>>2 == k>>2 {
				look[kept-1] |= k & 3
				continue
			}
			look[kept] = k
			kept++
		}
		look = look[:kept]
	} else {
		for _, ent := range owned {
			slot, _ := w.NetSlot(ent)
			look = append(look, slot<<2|inTurn|listed)
			if e := &h.ents[slot]; many && e.changed > own.acked {
				// Due until acknowledged (a peer starting, which has
				// acknowledged none): the AuthStates after this one look
				// at it too.
				own.noteChanged(slot, e.changed)
			}
		}
	}
	own.held = own.held[:0]
	for _, k := range look {
		slot := k >> 2
		ent, _, ok := w.SlotEntity(slot)
		if !ok {
			continue // went since it was listed
		}
		if w.Arche().Has(ent, w.IDs.HostMoved) && !own.forced(slot) {
			// Its owner does not predict it: it goes in the owner's
			// States, as another's entity does (eMoved), coded against
			// what the owner holds and weighed with the rest. One given to
			// the peer or that lost a component still goes here until
			// acknowledged (forced): a client that does not mark it yet
			// takes its components from an AuthState.
			p.movedState(slot)
			continue
		}
		if ni, _ := w.Identity(ent); ni.Owner != p.id {
			continue // given away since it was listed
		}
		e := &h.ents[slot]
		spawning := int(slot) < len(p.slots) && p.slots[slot].flags&(fSpawning|fNeedSpawn) != 0
		var key uint64
		due := spawning || own.due(full, slot, e.changed, k&inTurn != 0)
		if many {
			var aged bool
			aged, key = own.ownOf(slot, e.changed, refresh, refreshFrames)
			due = due || aged
		}
		if !due {
			continue
		}
		if spawning {
			// The peer may not hold the entity yet (its spawn, which says
			// who owns it, is on its way) and would drop its state: it goes
			// again until the spawn arrives.
			again = true
			own.held = append(own.held, slot)
			if p.slots[slot].flags&(fKnown|fSpawning|fSent) == 0 {
				// Not even sent: its state would only be dropped, and
				// would take the budget the spawn waits for (a budget
				// smaller than a message sends once it is full).
				continue
			}
		}
		if many && !spawning && !own.forced(slot) {
			if e.flags&eTold != 0 {
				// Told something (an order): ahead of the army's walk, by
				// a head start of four rounds of turns, so that units
				// told at every step (a value of the game's that changes
				// so) do not keep the others out for ever.
				key -= min(key, uint64(4*refreshFrames))
			}
			picks = append(picks, ownPick{slot: slot, key: key})
			continue
		}
		spent += p.putAuth(frame, header, slot)
		items++
	}
	if len(picks) > 0 {
		slices.SortFunc(picks, func(a, b ownPick) int {
			return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.slot, b.slot))
		})
		share := p.authShare()
		for _, pk := range picks {
			if spent >= share && items > 0 {
				// The rest wait, still due (ownOf), and older for it.
				deferred++
				if last := own.sent[pk.slot]; h.ents[pk.slot].changed > last.frame || own.catchUp != 0 && last.frame < own.catchUp {
					// Changed since it went, or behind a full one: looked
					// at again next time. One whose turn it was waits for
					// its next turn, older than the others of it.
					own.held = append(own.held, pk.slot)
				}
				continue
			}
			spent += p.putAuth(frame, header, pk.slot)
			items++
		}
	}
	own.picks, own.looked = picks[:0], look[:0]
	p.stats.AuthDeferred += uint64(deferred)
	if deferred == 0 {
		own.catchUp = 0 // every one due went
	}
	if items == 0 {
		// Nothing changed and none's turn: one goes all the same, in turn,
		// so the owner hears of every newer input frame the host applied.
		if slot, _ := w.NetSlot(owned[own.turn%uint32(len(owned))]); int(slot) >= len(p.slots) || p.slots[slot].flags&(fSpawning|fNeedSpawn) == 0 {
			p.putAuth(frame, header, slot)
		}
	}
	if len(h.buf) > header {
		p.sendAuthMessage(frame)
	}
	if many {
		own.pruneSent(w, p.id, len(owned))
	}
	own.turn++
	p.authDirty = p.authDirty || again
	// What the share left out goes at the next send tick with a newer input
	// frame, or, without one, once the AuthStates in flight are settled: a
	// state of the same frame beside one in flight would be sent whole
	// again after them (authFlight), cut short by the share again, and so
	// on for as long as the input stalls.
	p.authMore = deferred > 0
}

// movedState lists the owned entity in slot, marked ecs.HostMoved, in the
// peer's States if its last change may have gone in an AuthState alone:
// it came before the mark (not eMoved: the States carry a unit's changes
// made since its mark, and get them there again if lost) and after the
// newest AuthState the peer acknowledged and the end of its join (whose
// pages carried the unit as it was then).
func (p *HostPeer) movedState(slot int32) {
	e := &p.h.ents[slot]
	if e.flags&eMoved != 0 || e.changed <= max(p.own.acked, p.own.joined) {
		return
	}
	if int(slot) >= len(p.slots) {
		return
	}
	if s := &p.slots[slot]; s.flags&fOut == 0 {
		s.dirty |= e.has
		p.list(slot)
	}
}

// authShare is the most bytes of items an owner of more than ownAll
// entities is sent in one AuthState beyond those that must go (a spawn on
// its way, an entity given or changed in its components): what the tick's
// State left of the budget, and at least half a send interval's worth (a
// State that spent everything still leaves the owner's entities that), so
// that what a player is sent keeps to its budget (a walking army of 200,
// sent whole at every send, took four times it).
func (p *HostPeer) authShare() int {
	return max(int(p.tokens), int(p.maxTokens()/4))
}

// putAuth adds the state of the owned entity in slot to the AuthState of
// frame being built in h.buf (its frame taking header bytes), sending the
// message first if the state does not fit, and returns the state's size in
// bytes.
func (p *HostPeer) putAuth(frame ecs.Frame, header int, slot int32) int {
	h := p.h
	reg := h.reg
	e := &h.ents[slot]
	var tmp [16 + MaxComponents*MaxFields*5]byte
	b := wire.AppendUvarint(tmp[:0], uint64(e.id))
	if h.pose >= 0 && e.has&(1<<uint(h.pose)) != 0 && h.snapAge(e) != 0 {
		// The pose is of a teleport: said, with the teleport's frame,
		// in every AuthState of the entity for snapWindow frames.
		b = wire.AppendUvarint(b, uint64(e.has)<<itemShift|authTeleport)
		b = wire.AppendUvarint(b, uint64(e.tele))
	} else {
		b = wire.AppendUvarint(b, uint64(e.has)<<itemShift)
	}
	img := h.image(slot)
	for c := range reg.comps {
		if e.has&(1<<uint(c)) != 0 {
			b = appendAbsolute(b, img[reg.offset[c]:reg.offset[c]+reg.comps[c].fields])
		}
	}
	if len(h.buf)+len(b) > MaxStatePayload && len(h.buf) > header {
		p.sendAuthMessage(frame)
		h.buf = wire.AppendUvarint(h.buf[:0], uint64(frame))
	}
	h.buf = append(h.buf, b...)
	if e.flags&eTold != 0 {
		e.flags &^= eTold
		p.own.told = append(p.own.told, ownForce{slot: slot, at: h.frame})
	}
	p.stats.AuthItems++
	if p.own.sent != nil {
		p.own.sent[slot] = ownSent{frame: h.frame, turn: p.own.turn}
	}
	return len(b)
}

func (p *HostPeer) sendAuthMessage(frame ecs.Frame) {
	h := p.h
	p.auth.flying++
	_, token := p.record(h.frame, true) // the frame it was built at (ownRefresh.acked)
	if err := p.out.QueueDatagram(wire.KindAuthState, h.buf, token); err == nil {
		p.stats.AuthMessages++
	} else {
		p.notice(token, false)
	}
	cost := uint32(len(h.buf) + wire.MessageOverhead(len(h.buf)) + h.cfg.DatagramOverhead)
	p.tokens -= min(cost, p.tokens)
}

// authFlight is what a peer's AuthStates in flight ask of the next. A
// client applies the state of the newest input frame it has seen, and of
// two of one frame (the owner's input stalled while its entities changed)
// the one that arrives last: if they were reordered on the way, the older.
// So when a state goes while another of its frame is in flight, the state
// goes once more after every one in flight is settled: sent after they all
// arrived (or were lost), it is applied last.
type authFlight struct {
	flying int       // AuthState messages whose fate is not known
	frame  ecs.Frame // the frame of the last state sent
	again  bool      // a state went beside another of its frame in flight
}

// sending notes a state of frame about to go (in one message or more).
func (a *authFlight) sending(frame ecs.Frame) {
	if a.flying > 0 && frame == a.frame {
		a.again = true
	}
	a.frame = frame
}

// settled notes the fate of one message known, and reports whether the
// state must go once more now.
func (a *authFlight) settled() bool {
	a.flying = max(a.flying-1, 0)
	if a.flying == 0 && a.again {
		a.again = false
		return true
	}
	return false
}

// applyAuth applies an AuthState message on the client: to the Auth
// handler, or, without one, to the entities, unless a newer one was
// applied; a state of an entity marked ecs.HostMoved goes to the entity
// and the Observer, as a state of another's entity does.
func (c *ClientReplicator) applyAuth(payload []byte) error {
	r := wire.NewReader(payload)
	frame := ecs.Frame(r.Uvarint32())
	if err := c.checkFrame(frame); r.Err() == nil && err != nil {
		return err
	}
	reg := c.reg
	q := c.q
	for r.Err() == nil && r.Len() > 0 {
		id := ecs.NetID(r.Uvarint32())
		flags := r.Uvarint()
		mask := flags >> itemShift
		if mask>>uint(len(reg.comps)) != 0 {
			return ErrUnknownComponent
		}
		var tele uint32
		if flags&authTeleport != 0 {
			if c.pose < 0 || mask&(1<<uint(c.pose)) == 0 {
				return fmt.Errorf("%w: auth state: a teleport on an item without a Transform", ErrMalformed)
			}
			if tele = r.Uvarint32(); tele == 0 && r.Err() == nil {
				return fmt.Errorf("%w: auth state: a teleport at frame 0", ErrMalformed)
			}
		}
		if flags&authReserved != 0 {
			return fmt.Errorf("%w: auth state: an item flag this version does not know", ErrMalformed)
		}
		for ci := range reg.comps {
			if mask&(1<<uint(ci)) != 0 {
				readImage(&r, q[reg.offset[ci]:reg.offset[ci]+reg.comps[ci].fields])
			}
		}
		if r.Err() != nil {
			break
		}
		e, ok := c.w.EntityOf(id)
		if !ok {
			c.stats.UnknownEntity++
			continue
		}
		slot, _ := c.w.NetSlot(e)
		st := c.slots.at(slot)
		a := c.w.Arche()
		hostMoved := a.Has(e, c.w.IDs.HostMoved)
		if c.cfg.Auth != nil && !hostMoved {
			if uint32(frame) >= st.applied {
				st.applied = uint32(frame) // no older state undoes what this one does
				c.matchAuth(e, slot, uint16(mask), frame)
				c.unmarked(e, slot, frame)
			}
			c.cfg.Auth.AuthState(frame, e, State{reg: reg, mask: uint16(mask), images: q, tele: tele})
			continue
		}
		if uint32(frame) < st.applied {
			continue // overtaken by a newer state of the entity
		}
		prev := st.applied
		st.applied = uint32(frame)
		c.matchAuth(e, slot, uint16(mask), frame)
		for ci := range reg.comps {
			comp := &reg.comps[ci]
			if mask&(1<<uint(ci)) != 0 {
				comp.dequant(q[reg.offset[ci]:reg.offset[ci]+comp.fields], a.Get(e, comp.id))
			}
		}
		if hostMoved {
			c.hostMovedState(e, slot, frame, tele, prev)
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: auth state: %v", ErrMalformed, err)
	}
	return nil
}

// hostMovedState finishes the AuthState of frame of e (in slot), an entity
// this client owns and does not predict (ecs.HostMoved), applied as a state
// of another's entity is: a teleport after prev, the frame of the state
// applied before, is drawn as a jump (the host names a teleport in the
// states of the frames after it, for a while), and the Observer draws it.
func (c *ClientReplicator) hostMovedState(e arche.Entity, slot int32, frame ecs.Frame, tele, prev uint32) {
	c.movedFrame = max(c.movedFrame, frame)
	if tele != 0 && tele > prev && c.jump(e) {
		c.stats.Snaps++
	}
	c.markMoved(slot)
	if c.cfg.Observer != nil {
		c.cfg.Observer.Applied(e, frame)
	}
}

// markMoved notes that the entity in slot, of this client's own, was drawn
// from a state as ecs.HostMoved (unmarked).
func (c *ClientReplicator) markMoved(slot int32) {
	if c.hostMoved == nil {
		c.hostMoved = map[int32]struct{}{}
	}
	c.hostMoved[slot] = struct{}{}
}

// unmarked tells the Observer of a state of e (in slot), of frame, if e was
// drawn from its states as ecs.HostMoved and is no longer marked: it is
// predicted again, drawn as a simulated entity.
func (c *ClientReplicator) unmarked(e arche.Entity, slot int32, frame ecs.Frame) {
	if len(c.hostMoved) == 0 {
		return
	}
	if _, was := c.hostMoved[slot]; !was {
		return
	}
	delete(c.hostMoved, slot)
	if c.cfg.Observer != nil {
		c.cfg.Observer.Applied(e, frame)
	}
}

// matchAuth gives e (in slot), an entity this client owns, the replicated
// components of an AuthState of it of frame (mask: every one the host's
// entity has): one the host's entity gained is added with the state's
// value, one it lost is removed. Called with the newest state of the
// entity only.
func (c *ClientReplicator) matchAuth(e arche.Entity, slot int32, mask uint16, frame ecs.Frame) {
	a := c.w.Arche()
	reg := c.reg
	for ci := range reg.comps {
		comp := &reg.comps[ci]
		switch has := a.Has(e, comp.id); {
		case mask&(1<<uint(ci)) != 0 && !has:
			a.Add(e, comp.id)
			comp.dequant(c.q[reg.offset[ci]:reg.offset[ci]+comp.fields], a.Get(e, comp.id))
			c.stats.Gained++
		case mask&(1<<uint(ci)) == 0:
			if has {
				a.Remove(e, comp.id)
				c.stats.Dropped++
			}
			c.absentSince(slot, ci, frame)
		}
	}
}
