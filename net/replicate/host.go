package replicate

import (
	"errors"
	"fmt"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// HostConfig tunes the host replicator. Zero fields take the defaults noted.
type HostConfig struct {
	// SendEvery sends state every this many simulation steps. Default 2: 30 Hz
	// at the default 60 Hz step.
	SendEvery int
	// StepRate is simulation steps per second, for the budget. Default 60.
	StepRate float64
	// BitsPerSecond is each peer's budget for state, counting payloads,
	// message framing and DatagramOverhead. Default 256,000.
	BitsPerSecond int
	// DatagramOverhead is the bytes each datagram costs beyond its messages
	// (the connection's header and QUIC's), counted in the budget. Default 48.
	DatagramOverhead int
	// JoinWindow is the most bytes a join keeps queued on the join lane; pages
	// are built only while less is queued. Default 256 KiB.
	JoinWindow int
	// JoinPage is the size a join page is filled to, in bytes. Default 16 KiB.
	JoinPage int
	// MaxJoinRounds is how many rounds a join may take before the peer is
	// dropped as unable to keep up with the world. Default 8.
	MaxJoinRounds int
	// Records is how many sent STATE messages per peer are remembered until
	// their fate is known. Default 1024.
	Records int
	// Scope, if set, says whether entity e is in peer p's scope. An entity out
	// of scope is not sent; one that leaves scope is removed from the peer on
	// its next change, and one that enters is spawned on its next change.
	Scope func(p ecs.PeerID, e arche.Entity) bool
}

func (c *HostConfig) defaults() {
	if c.SendEvery <= 0 {
		c.SendEvery = 2
	}
	if c.StepRate <= 0 {
		c.StepRate = 60
	}
	if c.BitsPerSecond <= 0 {
		c.BitsPerSecond = 256_000
	}
	if c.DatagramOverhead <= 0 {
		c.DatagramOverhead = 48
	}
	if c.JoinWindow <= 0 {
		c.JoinWindow = 256 << 10
	}
	if c.JoinPage <= 0 {
		c.JoinPage = 16 << 10
	}
	if c.MaxJoinRounds <= 0 {
		c.MaxJoinRounds = 8
	}
	if c.Records <= 0 {
		c.Records = 1024
	}
}

// ErrJoinTooSlow is a peer's error when the world changed faster than its join
// could send it: drop the peer (transport.CloseJoinTooSlow).
var ErrJoinTooSlow = errors.New("replicate: the world changes faster than the join can send it; the peer needs more bandwidth or a smaller world")

// HostReplicator replicates a host's world to its peers. It is an ecs.System:
// add it last to the host's schedule, so it reads every report of the step.
//
// Not safe for concurrent use: it runs on the simulation goroutine, and so
// must every call into it.
type HostReplicator struct {
	reg     *Registry
	w       *ecs.World
	cfg     HostConfig
	peers   []*HostPeer
	buf     []byte
	scratch []int32
	steps   uint64
}

// NewHost returns a host replicator for reg's world.
func NewHost(reg *Registry, cfg HostConfig) *HostReplicator {
	cfg.defaults()
	return &HostReplicator{
		reg:     reg,
		w:       reg.world,
		cfg:     cfg,
		buf:     make([]byte, 0, MaxStatePayload+64),
		scratch: make([]int32, max(reg.fields, 1)),
	}
}

// Config returns the configuration in force.
func (h *HostReplicator) Config() HostConfig { return h.cfg }

// AddPeer starts replicating to peer id through out: its join begins at the
// next step. The peer must not be added twice.
func (h *HostReplicator) AddPeer(id ecs.PeerID, out Out) *HostPeer {
	for _, p := range h.peers {
		if p.id == id {
			panic(fmt.Sprintf("replicate: peer %d added twice", id))
		}
	}
	p := &HostPeer{h: h, id: id, out: out, sent: make([]sentRecord, h.cfg.Records)}
	p.base.fields = h.reg.fields
	p.base.comps = len(h.reg.comps)
	p.grow(h.w.NetSlots())
	p.join = newJoin(h, p)
	h.peers = append(h.peers, p)
	return p
}

// RemovePeer stops replicating to peer id and forgets its state.
func (h *HostReplicator) RemovePeer(id ecs.PeerID) {
	for i, p := range h.peers {
		if p.id == id {
			copy(h.peers[i:], h.peers[i+1:])
			h.peers[len(h.peers)-1] = nil
			h.peers = h.peers[:len(h.peers)-1]
			return
		}
	}
}

// Peer returns the replication state of peer id, or nil.
func (h *HostReplicator) Peer(id ecs.PeerID) *HostPeer {
	for _, p := range h.peers {
		if p.id == id {
			return p
		}
	}
	return nil
}

// Delivered tells the replicator that the datagram carrying token to peer id
// arrived.
func (h *HostReplicator) Delivered(id ecs.PeerID, token uint32) {
	if p := h.Peer(id); p != nil {
		if r := p.tokenRecord(token); r != nil {
			p.resolve(r, true)
		}
	}
}

// Lost tells the replicator that the datagram carrying token to peer id was
// lost: what it carried is sent again, at its newest state.
func (h *HostReplicator) Lost(id ecs.PeerID, token uint32) {
	if p := h.Peer(id); p != nil {
		if r := p.tokenRecord(token); r != nil {
			p.resolve(r, false)
		}
	}
}

// Update reads the step's journal into every peer's dirty state, advances
// joins, and on send steps packs and sends each peer's updates. Cost: the
// step's reports times the peers, plus what is sent; nothing in the size of
// the world.
func (h *HostReplicator) Update(w *ecs.World) {
	h.steps++
	j := w.Journal()
	if len(h.peers) > 0 {
		for _, d := range j.Despawned() {
			for _, p := range h.peers {
				p.onDespawn(d.ID, d.Slot)
			}
		}
		for _, e := range j.Spawned(w) {
			slot, _ := w.NetSlot(e)
			for _, p := range h.peers {
				p.onSpawn(slot)
			}
		}
		for _, ch := range j.Changes(w) {
			c := h.reg.fromBit(ch.Bit)
			if c < 0 {
				continue
			}
			var owner ecs.PeerID
			if ni, ok := w.Identity(ch.Entity); ok {
				owner = ni.Owner
			}
			for _, p := range h.peers {
				p.onChange(ch.Slot, c, owner)
			}
		}
	}
	send := h.steps%uint64(h.cfg.SendEvery) == 0
	for _, p := range h.peers {
		if p.err != nil {
			continue
		}
		if p.join != nil {
			p.join.tick(p)
			continue
		}
		if send {
			p.refill()
			p.pack()
			p.sendAuth()
		}
	}
}

// refill adds a send interval's worth of budget, keeping at most two.
func (p *HostPeer) refill() {
	cfg := &p.h.cfg
	per := uint32(float64(cfg.BitsPerSecond) / 8 * float64(cfg.SendEvery) / cfg.StepRate)
	p.tokens = min(p.tokens+per, 2*per)
}

// sortDirty orders the dirty list by priority, highest first (a counting
// sort over the 256 priorities; stable; no allocation in steady state).
func (p *HostPeer) sortDirty() {
	var count [256]int32
	for _, slot := range p.dirty {
		count[p.slots[slot].prio]++
	}
	var start [256]int32
	pos := int32(0)
	for i := 255; i >= 0; i-- {
		start[i] = pos
		pos += count[i]
	}
	if cap(p.order) < len(p.dirty) {
		p.order = make([]int32, len(p.dirty), 2*len(p.dirty))
	}
	p.order = p.order[:len(p.dirty)]
	for _, slot := range p.dirty {
		pr := p.slots[slot].prio
		p.order[start[pr]] = slot
		start[pr]++
	}
	p.dirty, p.order = p.order, p.dirty
}

// packer builds a peer's STATE messages within the budget.
type packer struct {
	p      *HostPeer
	rec    *sentRecord
	token  uint32
	frame  ecs.Frame
	header int
	spent  int
	full   bool
}

func (k *packer) begin() {
	h := k.p.h
	h.buf = h.buf[:0]
	h.buf = wire.AppendUvarint(h.buf, uint64(k.frame))
	k.header = len(h.buf)
	k.rec, k.token = k.p.record(k.frame)
}

// flush sends the message under way, if it holds items.
func (k *packer) flush() {
	h := k.p.h
	if k.rec == nil {
		return
	}
	if len(h.buf) == k.header {
		k.rec.live = false
		k.rec = nil
		return
	}
	if err := k.p.out.QueueDatagram(wire.KindState, h.buf, k.token); err != nil {
		// The datagram never left: its items are lost.
		k.p.resolve(k.rec, false)
	}
	k.p.stats.Messages++
	k.p.stats.Bytes += uint64(len(h.buf))
	k.spent += len(h.buf) + wire.MessageOverhead(len(h.buf)) + h.cfg.DatagramOverhead
	k.rec = nil
}

// fits reports whether n more bytes fit the message and the budget, starting a
// new message when only the message is full.
func (k *packer) fits(n int) bool {
	h := k.p.h
	if k.rec == nil {
		k.begin()
	}
	if len(h.buf)+n > MaxStatePayload {
		k.flush()
		k.begin()
	}
	cost := k.spent + len(h.buf) + n + wire.MessageOverhead(len(h.buf)+n) + h.cfg.DatagramOverhead
	if cost > int(k.p.tokens) {
		k.full = true
		return false
	}
	return true
}

// pack sends the peer's pending removals and dirty entities, highest
// priority first, within the budget.
func (p *HostPeer) pack() {
	h := p.h
	w := h.w
	if len(p.despawns) == 0 && len(p.dirty) == 0 {
		return
	}
	k := packer{p: p, frame: w.Frame()}
	var item [16]byte
	for i := range p.despawns {
		d := &p.despawns[i]
		if d.flying {
			continue
		}
		b := wire.AppendUvarint(item[:0], uint64(d.id))
		b = wire.AppendUvarint(b, itemDespawn)
		if !k.fits(len(b)) {
			break
		}
		h.buf = append(h.buf, b...)
		d.flying = true
		k.rec.items = append(k.rec.items, sentItem{id: d.id, kind: itemDespawn})
		p.stats.Despawns++
		p.stats.Items++
	}
	p.sortDirty()
	kept := 0
	for n, slot := range p.dirty {
		if k.full {
			// Out of budget: the rest wait, gaining priority.
			for _, rest := range p.dirty[n:] {
				s := &p.slots[rest]
				if s.flags&fListed == 0 {
					continue
				}
				if s.prio < 255 {
					s.prio++
				}
				p.dirty[kept] = rest
				kept++
				p.stats.Deferred++
			}
			break
		}
		s := &p.slots[slot]
		if s.flags&fListed == 0 {
			continue
		}
		e, id, ok := w.SlotEntity(slot)
		if !ok {
			s.flags &^= fListed
			continue
		}
		if h.cfg.Scope != nil && !h.cfg.Scope(p.id, e) {
			if s.flags&(fKnown|fSpawning) != 0 {
				p.despawns = append(p.despawns, despawnEntry{id: id})
			}
			if s.base != 0 {
				p.base.release(s.base - 1)
			}
			*s = peerSlot{}
			continue
		}
		if !p.packEntity(&k, slot, entityRef{e, id}) {
			if s.prio < 255 {
				s.prio++
			}
			p.dirty[kept] = slot
			kept++
			p.stats.Deferred++
			continue
		}
	}
	p.dirty = p.dirty[:kept]
	k.flush()
	p.tokens -= uint32(min(k.spent, int(p.tokens)))
}

// packEntity writes one entity's item, if it fits; it returns false when it
// did not, leaving the entity dirty.
func (p *HostPeer) packEntity(k *packer, slot int32, e entityRef) bool {
	h := p.h
	reg := h.reg
	s := &p.slots[slot]
	q := h.scratch
	var tmp [256]byte
	if s.flags&fSpawning != 0 {
		// The spawn is still in flight: the peer may not hold the entity, so
		// what changed goes as another spawn, which it applies idempotently.
		s.flags |= fNeedSpawn
	}
	if s.flags&fNeedSpawn != 0 {
		ni, _ := h.w.Identity(e.entity)
		mask := reg.mask(e.entity)
		b := reg.appendEntityImage(tmp[:0], e, ni.Owner, mask, q)
		if !k.fits(len(b)) {
			return false
		}
		h.buf = append(h.buf, b...)
		p.sentItem(k, slot, e.id, mask, itemSpawn, q)
		s.flags = s.flags&^(fNeedSpawn|fListed) | fSpawning
		s.dirty = 0
		s.prio = 0
		p.stats.Spawns++
		return true
	}
	// An update: the dirty components that differ from the peer's baseline.
	var rec int32 = -1
	if s.base != 0 {
		rec = s.base - 1
	}
	b := &p.base
	var mask, deltas uint16
	body := tmp[:0]
	sendNo := uint32(1)
	if rec >= 0 {
		sendNo = b.sends[rec] + 1
	}
	for c := range reg.comps {
		bit := uint16(1) << uint(c)
		if s.dirty&bit == 0 {
			continue
		}
		comp := &reg.comps[c]
		img := q[reg.offset[c] : reg.offset[c]+comp.fields]
		comp.quant(h.w.Arche().Get(e.entity, comp.id), img)
		if rec >= 0 && b.has[rec]&bit != 0 && comp.delta {
			fi := int(rec)*b.comps + c
			base := b.vals[int(rec)*b.fields+reg.offset[c]:][:comp.fields]
			if b.sendNos[fi] == b.sends[rec] && equalImage(img, base) {
				continue // the peer holds this value and nothing newer is on its way
			}
			if sendNo-1-b.sendNos[fi] < DeltaReach {
				age := uint32(k.frame) - b.frames[fi]
				if dl := deltaLen(img, base, &comp.wrap) + wire.UvarintLen(uint64(age)); dl < imageLen(img) {
					deltas |= bit
					mask |= bit
					continue
				}
			}
		}
		mask |= bit
	}
	if mask == 0 {
		s.dirty = 0
		s.flags &^= fListed
		s.prio = 0
		return true
	}
	body = wire.AppendUvarint(body, uint64(e.id))
	body = wire.AppendUvarint(body, uint64(mask)<<itemShift)
	body = wire.AppendUvarint(body, uint64(deltas))
	for c := range reg.comps {
		bit := uint16(1) << uint(c)
		if mask&bit == 0 {
			continue
		}
		comp := &reg.comps[c]
		img := q[reg.offset[c] : reg.offset[c]+comp.fields]
		if deltas&bit != 0 {
			fi := int(rec)*b.comps + c
			body = wire.AppendUvarint(body, uint64(uint32(k.frame)-b.frames[fi]))
			body = appendDelta(body, img, b.vals[int(rec)*b.fields+reg.offset[c]:][:comp.fields], &comp.wrap)
			p.stats.Deltas++
		} else {
			body = appendAbsolute(body, img)
		}
	}
	if !k.fits(len(body)) {
		return false
	}
	h.buf = append(h.buf, body...)
	p.sentItem(k, slot, e.id, mask, 0, q)
	s.dirty = 0
	s.flags &^= fListed
	s.prio = 0
	return true
}

func equalImage(a, b []int32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sentItem records an item in the message's record, with its values, and
// counts the entity's send.
func (p *HostPeer) sentItem(k *packer, slot int32, id ecs.NetID, mask uint16, kind uint8, q []int32) {
	s := &p.slots[slot]
	if s.base == 0 {
		s.base = p.base.alloc() + 1
	}
	rec := s.base - 1
	p.base.sends[rec]++
	r := k.rec
	off := int32(len(r.vals))
	r.vals = append(r.vals, q[:p.h.reg.fields]...)
	r.items = append(r.items, sentItem{slot: slot, id: id, mask: mask, kind: kind, sendNo: p.base.sends[rec], valOff: off})
	p.stats.Items++
}

// sendAuth sends the owner the state of its entities when it changed or a
// newer input frame was applied.
func (p *HostPeer) sendAuth() {
	if !p.authDirty {
		return
	}
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
	reg := h.reg
	q := h.scratch
	h.buf = wire.AppendUvarint(h.buf[:0], uint64(frame))
	header := len(h.buf)
	var tmp [256]byte
	for _, e := range owned {
		ni, _ := w.Identity(e)
		mask := reg.mask(e)
		b := wire.AppendUvarint(tmp[:0], uint64(ni.ID))
		b = wire.AppendUvarint(b, uint64(mask)<<itemShift)
		for c := range reg.comps {
			if mask&(1<<uint(c)) == 0 {
				continue
			}
			comp := &reg.comps[c]
			img := q[reg.offset[c] : reg.offset[c]+comp.fields]
			comp.quant(w.Arche().Get(e, comp.id), img)
			b = appendAbsolute(b, img)
		}
		if len(h.buf)+len(b) > MaxStatePayload {
			p.sendAuthMessage()
			h.buf = wire.AppendUvarint(h.buf[:0], uint64(frame))
		}
		h.buf = append(h.buf, b...)
	}
	if len(h.buf) > header {
		p.sendAuthMessage()
	}
	p.authDirty = false
}

func (p *HostPeer) sendAuthMessage() {
	h := p.h
	if err := p.out.QueueDatagram(wire.KindAuthState, h.buf, 0); err == nil {
		p.stats.AuthMessages++
	}
	cost := uint32(len(h.buf) + wire.MessageOverhead(len(h.buf)) + h.cfg.DatagramOverhead)
	p.tokens -= min(cost, p.tokens)
}
