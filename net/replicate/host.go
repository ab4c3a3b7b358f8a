package replicate

import (
	"errors"
	"fmt"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// HostConfig tunes the host replicator. Zero fields take the defaults noted.
type HostConfig struct {
	// SendEvery sends state every this many simulation steps. Default 2: 30 Hz
	// at the default 60 Hz step.
	SendEvery int
	// StepRate is simulation steps per second, for the budget and the motion
	// prediction of poses (it must be the tick rate clients are told in
	// Welcome; the session sets it). Default 60.
	StepRate float64
	// BitsPerSecond is each peer's budget for state, counting payloads,
	// message framing and DatagramOverhead. Default 256,000. A budget too
	// small for one message still sends: once it has saved up its most (two
	// send intervals' worth), a tick's first removal or item goes whatever
	// its size.
	BitsPerSecond int
	// DatagramOverhead is the bytes each datagram costs beyond its messages
	// (the connection's header and QUIC's), counted in the budget. Default 48.
	DatagramOverhead int
	// JoinWindow is the most bytes a join keeps queued on the join lane; pages
	// are built only while less is queued, so the lane's flow control paces
	// them. Default 4 MiB (what quicnet queues on a lane by default).
	JoinWindow int
	// JoinPage is the size a join page is filled to, in bytes. Default 16
	// KiB; at least 64 (a smaller one is taken as 64), so that every page
	// carries a removal or an entity past its head.
	JoinPage int
	// JoinBytesPerStep bounds the join pages all joining peers together get
	// built in one step, so that joins do not stretch the host's tick (a
	// page costs the host about 5 µs a KiB). Default 4 MiB.
	JoinBytesPerStep int
	// MaxJoinRounds is how many rounds a join may take before the peer is
	// dropped as unable to keep up with the world. Default 8.
	MaxJoinRounds int
	// Priority, if set, weighs how fast changes of entity e become due for
	// peer p: 1 is the default, 0.25 makes a change wait four times as long
	// (a body far from the peer's player, say), 2 makes it due twice as fast.
	// Clamped to [1/16, 4], and multiplied with Interest's weight by distance.
	// Called when a change of e is listed for p (its wait is set then, by
	// the weight of that moment), not each send tick, inside the host's
	// step on the simulation goroutine: it may read the world the host
	// replicates (with package tandem, the World its Game.Setup is given,
	// kept by the game), and must not change it. A game that makes many
	// short-lived entities (shots) weighs them below what its players
	// watch, so that a storm of them on a full budget does not hold back
	// the players' bodies.
	Priority func(p ecs.PeerID, e arche.Entity) float64
	// Interest is the spatial scope: which entities each peer receives, and
	// how urgent by distance from what it owns. On by default; see
	// InterestConfig.
	Interest InterestConfig
	// CheckReports, if set, looks at every networked entity at every step
	// and panics with an *UnreportedError, naming the component and the
	// entity (and counting the step's others: More, Also), when a
	// replicated component's value differs from what was
	// last reported with ecs.MutateComponent, or the entity holds one it
	// was never reported to have: a write or an addition without a report,
	// which no peer would ever be sent. A value that differs by less than
	// its codec's precision is not a change. It panics with a
	// *LossyCodecError when a value differs, by its codec's Equal, from what
	// its wire image gives back: a field the codec does not carry, or a
	// value beyond its range. (Without an Equal, a value of whole numbers
	// must come back exactly; one holding a float, which the wire may round
	// by design, is checked only by an Equal with its tolerance.) A tandem
	// host that saves checks its saved components too
	// (save.Tracker.CheckReports). It costs a pass over the world each
	// step, and one after each system where the schedule is watched to
	// name the system that made the write (WatchSystem, which a session's
	// host sets; not after a system marked ecs.Reporting): for tests and
	// debugging (package tandemtest turns it on), not for a host in play,
	// which Audit looks after.
	CheckReports bool
	// Audit is how many networked entities the host looks at each step, in
	// turn, for a replicated component written or added without a report
	// (ecs.MutateComponent), which no peer would be sent: what it finds it
	// reports itself before the step's reports are taken in (peers are
	// sent it, a save keeps it), counts (HostReplicator.Unreported) and
	// passes to OnUnreported. It costs the entities looked at (a
	// quantization of each of their replicated components), not the
	// world's size (about 60 ns an entity of two components): at the
	// default of 4 a step and 60 steps a second, a world of 900 entities is
	// looked through every 4 seconds and one of 20,000 every 89: one look
	// every 4 steps goes to the world's archetypes of networked entities in
	// turn (up to 64 of them, none of a relation), the others to the
	// slots in order. A system that forgets the reports of the entities it
	// moves writes one kind of entity, an archetype: when it writes most of
	// its archetype, it is found within 4 steps for each archetype there is
	// (50 wanderers among 30,000 props: within eight steps, against two
	// minutes for a walk of the slots alone); when few of a large one, in
	// a round of the slots. A test finds it at once with CheckReports, in a world
	// small enough for it.
	// Negative: no audit. Off while CheckReports, which looks at
	// everything, is on.
	Audit int
	// OnUnreported, if set, is called on the simulation goroutine with each
	// write or addition the audit found (Audit), once the step's audit is
	// done: a bug in the game to fix, the error names the component and the
	// entity (valid during the call). The write was sent when found, so
	// clients caught up; they drifted until then.
	OnUnreported func(*UnreportedError)
	// OwnRefresh is how many of its owner's AuthStates (one a send tick
	// while its inputs come) may pass between two that carry an owned
	// entity the host did not change, when the peer owns more than 16
	// entities (an owner of fewer is sent every one in every AuthState, but
	// those marked ecs.HostMoved, below).
	// One the host changed, made, gave the peer or took a component from
	// goes in every AuthState until the peer acknowledges one built after
	// that; the others take turns, each once in OwnRefresh, so that an
	// army standing still costs its owner an eighth of its states a tick,
	// not all of them, and a client's misprediction of a unit the host
	// holds still is corrected within that many sends. Every owned entity
	// goes when the peer starts (its join, a resume) and after an
	// AuthState is lost. Default 8 (267 ms at 30 Hz); 1: every owned entity
	// in every AuthState. Past 16, what is due also keeps to the budget:
	// beyond a spawn on its way and an entity given or changed in its
	// components, an AuthState carries what the send's State left of
	// BitsPerSecond, and at least half a send's worth, the longest unsent
	// first; the rest wait, due (PeerStats.AuthDeferred). A walking army
	// is corrected unit by unit in turn, not whole at every send. An owned
	// entity the host's world marks ecs.HostMoved (its owner draws it from
	// the host's states and predicts nothing of it) goes in none of them
	// (but until one acknowledged carried it once it was given to the peer
	// or lost a component, and as the one item of an AuthState that carries
	// no other): its owner is sent it in its States, as another's entity
	// is, so an army standing still costs its owner nothing.
	OwnRefresh int
	// OnLossy, if set, is called on the simulation goroutine with each value
	// the audit (Audit) found that does not survive its codec (a value
	// beyond the codec's range arrives clamped), once the step's audit is
	// done: clients hold another value than the host's. The error names the
	// component and the entity (valid during the call). Only codecs with
	// Equal, or of whole numbers, are checked.
	OnLossy func(*LossyCodecError)
}

// minJoinPage is the smallest HostConfig.JoinPage: a page's head (kind,
// frame, count of entities, count of removals) takes at most 16 bytes, and a
// page of 64 holds at least a removal, or an entity, past it.
const minJoinPage = 64

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
		c.JoinWindow = 4 << 20
	}
	if c.JoinPage <= 0 {
		c.JoinPage = 16 << 10
	}
	c.JoinPage = max(c.JoinPage, minJoinPage)
	if c.JoinBytesPerStep <= 0 {
		c.JoinBytesPerStep = 4 << 20
	}
	if c.MaxJoinRounds <= 0 {
		c.MaxJoinRounds = 8
	}
	if c.OwnRefresh <= 0 {
		c.OwnRefresh = 8
	}
	if c.Audit == 0 {
		c.Audit = defaultAudit
	}
	c.Interest.defaults()
}

// ErrJoinTooSlow is a peer's error when the world changed faster than its join
// could send it: drop the peer (transport.CloseJoinTooSlow).
var ErrJoinTooSlow = errors.New("replicate: the world changes faster than the join can send it; the peer needs more bandwidth or a smaller world")

// HostReplicator replicates a host's world to its peers. It is an ecs.System:
// add it last to the host's schedule, so it reads every report of the step.
//
// Work that is the same for every peer is done once: each reported
// component is quantized once per step into a shared image, its urgency is
// measured once per send tick, and an item's encoding is shared by every peer
// whose baseline for the entity is the same. Per peer remain its dirty set,
// scope, priorities, deltas against its acknowledged frames, and
// acknowledgements.
//
// Not safe for concurrent use: it runs on the simulation goroutine, and so
// must every call into it.
type HostReplicator struct {
	reg   *Registry
	w     *ecs.World
	cfg   HostConfig
	peers []*HostPeer
	byID  []*HostPeer // by peer id
	steps uint64
	frame uint32 // the frame being stepped
	sent  uint32 // the frame of the last send tick
	// updating is set during Update: a removal queued then (an entity
	// went, or left a scope) is of frame; one queued outside it (Focus
	// between steps, a system of the step before Update) of the next
	// Update's (removalFrame).
	updating bool
	tick     uint32 // send ticks so far
	joins    int    // peers joining
	budget   int    // join bytes left this step
	pose     int    // the registry index of ecs.Transform (teleports), or -1
	vel      int    // the registry index of ecs.Velocity (stops), or -1

	ents       []entState
	ids        []ecs.NetID // by slot: the network id of the live entity, 0 for none (ents' id, 16 a cache line)
	img        []int32     // slot*fields: the shared wire images
	hist       history     // rings of historyDepth past images
	small      history     // rings of smallDepth
	pending    []int32     // slots with ePending
	changes    []change
	turning    int      // changes of this send tick that turned their entity (urgTurn)
	keys       []uint64 // scratch: sort keys
	tmpKeys    []uint64
	tmpChanges []change
	scratch    []int32
	codes      []uint64 // scratch: an item's numbers, zig-zagged (writeFields)
	pair       []int32  // scratch: an image and a baseline, back to back (pairOf)
	dc         deltaContext

	book   codeBook
	tables codeTables
	stats  streamStats
	enc    encoder
	pred   predictor
	grid   grid

	plan      []fieldPlan
	cplan     []compPlan
	mplans    [maskPlans]maskPlan // the field plans of recent masks (fieldsOf)
	cmn       maskPlan            // the field plan of the common mask (commonPlan)
	mnext     uint8
	mlast     uint8
	uplan     []urgencyField            // the fields with thresholds, for urgency
	dplan     []urgencyField            // every delta-coded field (t 0: no threshold), for measurePrev
	dcomp     [MaxComponents]fieldRange // each component's fields in dplan
	doffs     []int32                   // the delta-coded fields' offsets, for diffPrev
	dbits     []uint16                  // and their components' bits
	always    uint16                    // components whose change is always urgent (no thresholds, not delta-coded)
	told      uint16                    // of those, the ones not of motion (eTold)
	common    uint16                    // the common mask of this send tick's messages (prepareTick)
	buf       []byte
	lastMsgs  sentMessages
	keepPicks bool     // a peer packs after this one this send tick (lastMsgs.picks)
	tape      packTape // the last peer's packing this send tick (tape.go)
	noStream  bool     // never pack in one pass (stream.go): tests compare the two
	// Packings made in one pass, and the common items among their items,
	// since the host started.
	streamed, quick uint64
	// The audit (audit.go): the slot it looks at next, the writes it found,
	// and the change it takes in; the archetypes it looks at in turn
	// (auditkinds.go), the next of them, the one noted last, the
	// replicated components' mask, NewNetworked's shard tags, and the
	// archetypes turned away.
	auditAt    int
	kinds      []auditKind
	kindAt     int
	lastKind   arche.Mask
	replicated arche.Mask
	shardTags  arche.Mask   // ecs.World.Bookkeeping's
	notKinds   []arche.Mask // archetypes turned away (a relation's)
	// live counts the entities of ents the host holds (eLive): what a new
	// peer's join brings before its scope is drawn.
	live int
	// owned counts the live entities of ents each peer owns (not the
	// host's), so a new peer's admission looks for its own only when it
	// has some (a resume, a restored world).
	owned      map[ecs.PeerID]int32
	auditFound []UnreportedError // this step's, told after the walk
	unreported uint64
	lossyList  []LossyCodecError // this step's values the audit found lossy, told after the walk
	lossy      uint64
	watch      watch // CheckReports: who wrote what (watch.go)
}

// change is one entry of a send tick's list of changed entities, shared by
// every peer: in network-id order.
type change struct {
	slot int32
	id   ecs.NetID
	comp uint16 // components whose image changed since the last send tick
	// The entity's owner and urgency (entState), beside the change so that
	// each peer's pass over the changes reads them from one array.
	owner ecs.PeerID
	urg   uint8
}

// NewHost returns a host replicator for reg's world.
func NewHost(reg *Registry, cfg HostConfig) *HostReplicator {
	cfg.defaults()
	h := &HostReplicator{
		reg:     reg,
		w:       reg.world,
		cfg:     cfg,
		buf:     make([]byte, 0, MaxStatePayload+64),
		scratch: make([]int32, MaxFields),
		codes:   make([]uint64, MaxComponents*MaxFields),
		pair:    make([]int32, 2*MaxComponents*MaxFields),
	}
	h.dc.us = h.codes
	h.hist.init(historyDepth, reg.fields)
	h.small.init(smallDepth, reg.fields)
	h.book.n = 2 + 2*reg.fields
	for i := range h.book.n {
		h.book.codes[i] = code{k: 4}
	}
	h.pred = newPredictor(reg, cfg.StepRate)
	h.makePlan()
	h.setCodes()
	h.makeUrgencyPlan()
	h.grid.init(&h.cfg.Interest)
	h.grid.bind(reg)
	h.enc.h = h
	h.pose = -1
	if c, ok := reg.Lookup(reg.world.IDs.Transform); ok {
		h.pose = int(c)
	}
	h.vel = -1
	if c, ok := reg.Lookup(reg.world.IDs.Velocity); ok {
		h.vel = int(c)
	}
	return h
}

// Config returns the configuration in force.
func (h *HostReplicator) Config() HostConfig { return h.cfg }

// SentFrame returns the frame of the last send tick (0 before the first):
// the frames whose states clients receive and draw between (every
// SendEvery steps).
func (h *HostReplicator) SentFrame() ecs.Frame { return ecs.Frame(h.sent) }

// AddPeer starts replicating to peer id through out: its join begins at the
// next step, or at once with StartJoin. The peer must not be added twice.
func (h *HostReplicator) AddPeer(id ecs.PeerID, out Out) *HostPeer {
	if h.Peer(id) != nil {
		panic(fmt.Sprintf("replicate: peer %d added twice", id))
	}
	p := &HostPeer{h: h, id: id, out: out, quiet: quietMarks + 1, own: ownRefresh{full: true}}
	p.grow(h.w.NetSlots())
	p.join = newJoin(h, p)
	h.joins++
	h.peers = append(h.peers, p)
	for int(id) >= len(h.byID) {
		h.byID = append(h.byID, nil)
	}
	h.byID[id] = p
	h.grid.addPeer(p)
	return p
}

// AppendPeers appends every peer being replicated to (joined or joining)
// to dst, in the order they were added, and returns the extended slice.
func (h *HostReplicator) AppendPeers(dst []*HostPeer) []*HostPeer {
	return append(dst, h.peers...)
}

// RemovePeer stops replicating to peer id and forgets its state, and any
// of it ParkPeer kept.
func (h *HostReplicator) RemovePeer(id ecs.PeerID) {
	h.removePeer(id, false)
}

// ParkPeer stops replicating to peer id, whose connection broke and which
// may come back on a new one, and keeps what the game gave it for then: its
// squares of interest of its own (Focus, and the one held between lives),
// which AddPeer of the same id gives back. Meanwhile Focus and Unfocus
// still move them, and if the last entity it owns with a position goes, it
// comes back holding that entity's square, as it would have had it been
// there. DropParked forgets them, for a peer that will not come back.
func (h *HostReplicator) ParkPeer(id ecs.PeerID) {
	h.removePeer(id, true)
}

// DropParked forgets what ParkPeer kept of peer id.
func (h *HostReplicator) DropParked(id ecs.PeerID) {
	delete(h.grid.parked, id)
}

func (h *HostReplicator) removePeer(id ecs.PeerID, park bool) {
	if !park {
		delete(h.grid.parked, id)
	}
	for i, p := range h.peers {
		if p.id == id {
			if p.join != nil {
				h.joins--
			}
			if park {
				h.grid.parkPeer(p)
			} else {
				h.grid.removePeer(p)
			}
			copy(h.peers[i:], h.peers[i+1:])
			h.peers[len(h.peers)-1] = nil
			h.peers = h.peers[:len(h.peers)-1]
			h.byID[id] = nil
			return
		}
	}
}

// Peer returns the replication state of peer id, or nil.
func (h *HostReplicator) Peer(id ecs.PeerID) *HostPeer {
	if int(id) < len(h.byID) {
		return h.byID[id]
	}
	return nil
}

// Delivered tells the replicator that the datagram carrying token to peer id
// arrived.
func (h *HostReplicator) Delivered(id ecs.PeerID, token uint32) {
	if p := h.Peer(id); p != nil {
		p.notice(token, true)
	}
}

// Lost tells the replicator that the datagram carrying token to peer id was
// lost: what it carried is sent again, at its newest state.
func (h *HostReplicator) Lost(id ecs.PeerID, token uint32) {
	if p := h.Peer(id); p != nil {
		p.notice(token, false)
	}
}

// Update reads the step's journal into the shared images (quantizing each
// reported component once) and the peers' spawn and removal records,
// advances joins, and on send steps measures the urgency of what changed
// once, then packs and sends each peer's updates. Cost: the step's reports,
// plus per peer what changed in its scope and what it is sent, plus the
// audit's few entities (HostConfig.Audit, which reports what it finds into
// the journal: systems after this one see those reports); nothing in the
// size of the world (but with HostConfig.CheckReports, a debugging aid).
func (h *HostReplicator) Update(w *ecs.World) {
	h.steps++
	h.frame = uint32(w.Frame())
	h.updating = true
	defer func() { h.updating = false }()
	h.growShared(w.NetSlots())
	j := w.Journal()
	for _, d := range j.Despawned() {
		h.despawn(d.ID, d.Slot)
	}
	first := h.steps == 1
	if first {
		h.adopt(w)
	}
	for _, e := range j.Spawned(w) {
		if first && h.known(e) {
			continue // taken in by adopt
		}
		h.spawn(e)
		h.noteKind(e)
		if !first {
			h.born(e)
		}
	}
	for _, e := range j.Reowned(w) {
		h.reown(e)
	}
	if !h.cfg.CheckReports && h.cfg.Audit > 0 {
		h.audit(w, h.cfg.Audit)
	}
	h.intake(j.Changes(w))
	if h.cfg.CheckReports {
		h.checkReports(w)
	}
	for _, e := range j.Teleported(w) {
		if slot, ok := w.NetSlot(e); ok && int(slot) < len(h.ents) {
			h.ents[slot].tele = h.frame
			h.ents[slot].flags &^= eBorn
		}
	}
	h.grid.tidy()
	h.budget = h.cfg.JoinBytesPerStep
	send := h.steps%uint64(h.cfg.SendEvery) == 0
	if send {
		h.sent = h.frame
		h.prepareTick()
	}
	// The last peer to pack this tick keeps no copy of its picks: no peer
	// after it compares its own with them (write).
	lastPacker := -1
	if send {
		for i, p := range h.peers {
			if p.err == nil && p.join == nil {
				lastPacker = i
			}
		}
	}
	for i, p := range h.peers {
		p.stepped = true
		if p.err != nil {
			continue
		}
		if p.join != nil {
			p.join.tick(p)
			if p.join == nil {
				h.joins--
			}
			continue
		}
		if send {
			p.refill()
			h.keepPicks = i < lastPacker
			sent, deferred := p.stats.Messages, p.stats.Deferred
			p.pack(h.grid.changesFor(p, h.changes))
			if unsentChecked {
				p.checkUnsent()
			}
			p.tellQuiet(p.stats.Messages != sent)
			p.tellBacklog(uint32(p.stats.Deferred - deferred))
			p.sendAuth()
		}
	}
}

// adopt takes in, at the first step, the networked entities the world held
// before it that its journal does not report: those of a world restored
// with its frame ended (save.Tracker.Load), say.
func (h *HostReplicator) adopt(w *ecs.World) {
	for slot := range int32(w.NetSlots()) {
		if e, _, ok := w.SlotEntity(slot); ok && !h.known(e) {
			h.spawn(e)
			h.noteKind(e)
		}
	}
}

// known reports whether entity e is live in the shared state.
func (h *HostReplicator) known(e arche.Entity) bool {
	slot, ok := h.w.NetSlot(e)
	if !ok || int(slot) >= len(h.ents) {
		return false
	}
	ni, _ := h.w.Identity(e)
	st := &h.ents[slot]
	return st.flags&eLive != 0 && st.id == ni.ID
}

// snapAge returns the age + 1 of the entity's teleport if it is younger
// than snapWindow frames, else 0.
func (h *HostReplicator) snapAge(e *entState) uint8 {
	if e.flags&eBorn != 0 {
		return 0
	}
	return h.spawnSnap(e)
}

// spawnSnap is what a spawn of the entity says of its pose: the age + 1 of
// its teleport, or of its making in play, if younger than snapWindow
// frames, else 0. A client that the spawn makes the entity on draws it from
// that state on, not before (BirthObserver); one that holds it already has
// a state at least as new as the making, and ignores the mark.
func (h *HostReplicator) spawnSnap(e *entState) uint8 {
	if e.tele == 0 || h.frame-e.tele >= snapWindow {
		return 0
	}
	return uint8(h.frame-e.tele) + 1
}

// born marks entity e, made in play this step, as made now: its spawns
// carry the frame (spawnSnap) until a teleport replaces it.
func (h *HostReplicator) born(e arche.Entity) {
	if slot, ok := h.w.NetSlot(e); ok && int(slot) < len(h.ents) {
		h.ents[slot].tele = h.frame
		h.ents[slot].flags |= eBorn
	}
}

// countOwned adds d to the entities peer owns (h.owned); the host's own
// are not counted.
func (h *HostReplicator) countOwned(peer ecs.PeerID, d int32) {
	if peer == ecs.HostPeer {
		return
	}
	if h.owned == nil {
		h.owned = map[ecs.PeerID]int32{}
	}
	if n := h.owned[peer] + d; n > 0 {
		h.owned[peer] = n
	} else {
		delete(h.owned, peer)
	}
}

// shuffled notes that an entity left peer's list of owned entities, which
// moves the list's last entity into its place (the peer's turns look again
// at the whole list at the end of the round: sendAuth).
func (h *HostReplicator) shuffled(peer ecs.PeerID) {
	if p := h.Peer(peer); p != nil {
		p.own.shuffled = true
	}
}

func (h *HostReplicator) despawn(id ecs.NetID, slot int32) {
	live := false // the host held the entity (one made and removed in a step it never did)
	if int(slot) < len(h.ents) {
		e := &h.ents[slot]
		if e.id == id {
			live = e.flags&eLive != 0
			if live {
				h.live--
				h.countOwned(e.owner, -1)
				h.shuffled(e.owner)
			}
			e.flags &^= eLive
			h.grid.remove(h, slot)
			h.forgetHistory(e)
			*e = entState{cell: -1}
			h.ids[slot] = 0
		}
	}
	for _, p := range h.peers {
		p.onDespawn(id, slot, live)
	}
}

func (h *HostReplicator) spawn(ent arche.Entity) {
	w := h.w
	slot, _ := w.NetSlot(ent)
	ni, _ := w.Identity(ent)
	h.growShared(int(slot) + 1)
	e := &h.ents[slot]
	if e.flags&eLive == 0 {
		h.live++
	} else {
		h.countOwned(e.owner, -1)
	}
	h.countOwned(ni.Owner, 1)
	*e = entState{id: ni.ID, owner: ni.Owner, since: h.frame, changed: h.frame, flags: eLive, cell: -1}
	h.ids[slot] = ni.ID
	reg := h.reg
	a := w.Arche()
	for c := range reg.comps {
		comp := &reg.comps[c]
		if !a.Has(ent, comp.id) {
			continue
		}
		comp.quant(a.Get(ent, comp.id), h.image(slot)[reg.offset[c]:][:comp.fields])
		e.has |= 1 << c
	}
	for _, p := range h.peers {
		p.grow(int(slot) + 1)
	}
	h.grid.place(h, slot)
	for _, p := range h.peers {
		p.onSpawn(slot)
		if ni.Owner == p.id {
			p.authDirty = true // changed at its spawn: due until acknowledged
			p.own.noteChanged(slot, h.frame)
		}
	}
}

func (h *HostReplicator) reown(ent arche.Entity) {
	slot, _ := h.w.NetSlot(ent)
	ni, _ := h.w.Identity(ent)
	old := h.ents[slot].owner
	h.ents[slot].owner = ni.Owner
	h.countOwned(old, -1)
	h.countOwned(ni.Owner, 1)
	h.shuffled(old)
	h.grid.reown(h, slot, old)
	for _, p := range h.peers {
		if in := h.grid.inScope(p, slot); in && p.slots[slot].flags&fOut != 0 {
			p.enter(slot)
		} else if !in {
			p.leave(slot)
		}
		p.onReown(slot, ni.Owner)
	}
}
