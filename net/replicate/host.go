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
	// their fate is known. At least (and by default) wire.AckWindow, 1024.
	Records int
	// Priority, if set, weighs how fast changes of entity e become due for
	// peer p: 1 is the default, 0.25 makes a change wait four times as long
	// (a body far from the peer's player, say), 2 makes it due twice as fast.
	// Clamped to [1/16, 4]. Called for each dirty entity each send tick.
	Priority func(p ecs.PeerID, e arche.Entity) float64
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
	if c.Records < wire.AckWindow {
		// A token names a record by its index: the ring must outlast every
		// datagram the connection may still report on.
		c.Records = wire.AckWindow
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
	// snapAt holds, by network slot, the frame of the entity's last teleport
	// (ecs.ReportTeleport) and its network id, for the snap flag of items.
	snapAt []snapMark
	pose   int // the registry index of ecs.Transform, or -1
}

// snapMark is a teleport's frame, and the network id of the entity it is of
// (a slot changes hands).
type snapMark struct {
	frame uint32
	id    ecs.NetID
}

// NewHost returns a host replicator for reg's world.
func NewHost(reg *Registry, cfg HostConfig) *HostReplicator {
	cfg.defaults()
	pose := -1
	if c, ok := reg.Lookup(reg.world.IDs.Transform); ok {
		pose = int(c)
	}
	return &HostReplicator{
		reg:     reg,
		w:       reg.world,
		cfg:     cfg,
		buf:     make([]byte, 0, MaxStatePayload+64),
		scratch: make([]int32, max(reg.fields, 1)),
		pose:    pose,
	}
}

// snapAge returns how many frames ago, at most snapWindow-1, the entity in
// slot with network id id was teleported, or ok == false.
func (h *HostReplicator) snapAge(slot int32, id ecs.NetID) (age uint32, ok bool) {
	if int(slot) >= len(h.snapAt) {
		return 0, false
	}
	m := h.snapAt[slot]
	age = uint32(h.w.Frame()) - m.frame
	return age, m.id == id && m.frame != 0 && age < snapWindow
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
	for _, e := range j.Teleported(w) {
		slot, _ := w.NetSlot(e)
		ni, _ := w.Identity(e)
		for int(slot) >= len(h.snapAt) {
			h.snapAt = append(h.snapAt, snapMark{})
		}
		h.snapAt[slot] = snapMark{frame: uint32(w.Frame()), id: ni.ID}
	}
	if len(h.peers) > 0 {
		for _, d := range j.Despawned() {
			for _, p := range h.peers {
				p.onDespawn(d.ID, d.Slot)
			}
		}
		for _, e := range j.Spawned(w) {
			slot, _ := w.NetSlot(e)
			ni, _ := w.Identity(e)
			for _, p := range h.peers {
				p.onSpawn(slot)
				if ni.Owner == p.id {
					p.authDirty = true
				}
			}
		}
		for _, e := range j.Reowned(w) {
			slot, _ := w.NetSlot(e)
			ni, _ := w.Identity(e)
			for _, p := range h.peers {
				p.onReown(slot, ni.Owner)
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
	p.tokens = min(p.tokens+p.maxTokens()/2, p.maxTokens())
}

// maxTokens is the most budget a peer saves up: two send intervals' worth.
func (p *HostPeer) maxTokens() uint32 {
	cfg := &p.h.cfg
	return 2 * uint32(float64(cfg.BitsPerSecond)/8*float64(cfg.SendEvery)/cfg.StepRate)
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
		if len(h.buf)+len(b) > MaxStatePayload && len(h.buf) > header {
			p.sendAuthMessage(frame)
			h.buf = wire.AppendUvarint(h.buf[:0], uint64(frame))
		}
		h.buf = append(h.buf, b...)
	}
	if len(h.buf) > header {
		p.sendAuthMessage(frame)
	}
	p.authDirty = false
}

func (p *HostPeer) sendAuthMessage(frame ecs.Frame) {
	h := p.h
	rec, token := p.record(frame)
	rec.auth = true
	if err := p.out.QueueDatagram(wire.KindAuthState, h.buf, token); err == nil {
		p.stats.AuthMessages++
	} else {
		p.resolve(rec, false)
	}
	cost := uint32(len(h.buf) + wire.MessageOverhead(len(h.buf)) + h.cfg.DatagramOverhead)
	p.tokens -= min(cost, p.tokens)
}
