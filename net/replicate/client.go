package replicate

import (
	"errors"
	"fmt"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// Errors of the client replicator. A message that fails is dropped whole
// (what was applied before the failure stays); the session counts them and
// drops the host past a limit.
var (
	// ErrMalformed: a replication message did not decode; the host speaks
	// another protocol or the data was corrupted.
	ErrMalformed = errors.New("replicate: malformed replication message")
	// ErrUnknownComponent: an item names a component the registry lacks;
	// register the same components in the same order on both sides.
	ErrUnknownComponent = errors.New("replicate: item names an unregistered component; register the same components in the same order on host and client")
	// ErrNoBaseline: a delta refers to a value this client no longer holds.
	ErrNoBaseline = errors.New("replicate: delta against a value the client does not hold")
	// ErrHeldFull: too many updates arrived before the join finished.
	ErrHeldFull = errors.New("replicate: too many updates held while joining; the host sent state before its join ended")
	// ErrJoinIncomplete: the join ended (FINAL) without the client holding
	// what the host sent: a page or entities are missing. The client does not
	// hold the world; a *JoinIncompleteError says what differs. Connect again.
	ErrJoinIncomplete = errors.New("replicate: the join ended without every page and entity the host sent; the world is incomplete, connect again")
)

// JoinIncompleteError is the failure of a join whose FINAL does not match
// what the client received. It matches ErrJoinIncomplete with errors.Is.
type JoinIncompleteError struct {
	PagesSent, PagesReceived   uint64 // join pages: FINAL's count, and those received
	EntitiesSent, EntitiesHeld uint64 // entities: FINAL's count, and those the pages left here
}

// Error says what the join lacked.
func (e *JoinIncompleteError) Error() string {
	return fmt.Sprintf("replicate: the join ended with %d of %d pages and %d of %d entities received; the world is incomplete, connect again",
		e.PagesReceived, e.PagesSent, e.EntitiesHeld, e.EntitiesSent)
}

// Unwrap returns ErrJoinIncomplete.
func (e *JoinIncompleteError) Unwrap() error { return ErrJoinIncomplete }

// Observer learns of what the client replicator applies, for interpolation:
// the host frame each state belongs to.
type Observer interface {
	// Applied is called after components of e were set from a host state of
	// frame f (spawn, update or join page).
	Applied(e arche.Entity, f ecs.Frame)
	// Removed is called before e, removed by the host, is removed locally.
	Removed(e arche.Entity)
}

// AuthHandler receives AUTH_STATE: the host's state s of this client's own
// entity e at frame f, the frame of the newest input the host applied.
type AuthHandler interface {
	AuthState(f ecs.Frame, e arche.Entity, s State)
}

// State is one entity's state as the host sent it: the wire image (what the
// component's Codec.Quantize writes) of each component present. It is a
// view of the receiver's buffer, valid only during the call that is given
// it; it allocates nothing.
type State struct {
	reg    *Registry
	mask   uint16
	images []int32
}

// NewState returns the state whose wire images are images, each registered
// component's at its Registry.Offset, every component present: for handlers
// and tests that make one.
func NewState(r *Registry, images []int32) State {
	return State{reg: r, mask: uint16(1)<<uint(len(r.comps)) - 1, images: images}
}

// Has reports whether component c is present.
func (s State) Has(c Component) bool { return s.reg != nil && s.mask&(1<<uint(c)) != 0 }

// Image returns the wire image of component c, nil if it is absent. Read
// it; do not keep it.
func (s State) Image(c Component) []int32 {
	if !s.Has(c) || int(c) >= len(s.reg.comps) {
		return nil
	}
	off := s.reg.offset[c]
	n := s.reg.comps[c].fields
	if off+n > len(s.images) {
		return nil
	}
	return s.images[off : off+n]
}

// Without returns s with component c absent.
func (s State) Without(c Component) State {
	s.mask &^= 1 << uint(c)
	return s
}

// Only returns s with only component c present (if it was).
func (s State) Only(c Component) State {
	s.mask &= 1 << uint(c)
	return s
}

// ClientConfig tunes the client replicator.
type ClientConfig struct {
	// Local is this client's peer id: entities it owns get no Interpolated.
	Local ecs.PeerID
	// MaxHeld bounds the STATE messages held while the join runs. Default 4096.
	MaxHeld int
	// OnSpawn, if set, is called after a replicated entity was created, so the
	// game can add local components (what to draw it with, say).
	OnSpawn func(e arche.Entity, owner ecs.PeerID)
	// Observer, if set, learns of every applied state.
	Observer Observer
	// Auth, if set, receives AUTH_STATE instead of it being applied as is.
	Auth AuthHandler
	// Tombstones is how many removed network ids are remembered so a spawn
	// that arrives after its removal is ignored. Default 4096.
	Tombstones int
}

// ClientStats counts what the client replicator applied and refused.
type ClientStats struct {
	States, AuthStates, Pages uint64
	Spawns, Despawns, Updates uint64
	Malformed, UnknownEntity  uint64
	DeltaMisses               uint64
	Ignored                   uint64 // spawns of removed entities, removals of unknown ones
	Snaps                     uint64 // teleports marked on arrival (the item's snap flag)
	// Swept counts the entities a rejoin's FINAL removed: held before the
	// join, and not brought by it (Rejoin).
	Swept uint64
}

// history is the client's record of the last DeltaHistory values of one
// delta-coded component, per entity slot.
type history struct {
	fields int
	frames []uint32 // slot*DeltaHistory + k
	vals   []int32  // (slot*DeltaHistory + k)*fields
}

// ClientReplicator applies the host's replication messages to a client's
// world. Not safe for concurrent use: call it from the simulation goroutine.
type ClientReplicator struct {
	reg      *Registry
	w        *ecs.World
	cfg      ClientConfig
	hist     [MaxComponents]*history
	ids      []arche.ID
	q        []int32
	pending  ecs.NetworkIdentity
	initFn   func(arche.Entity)
	joined   bool
	held     [][]byte
	heldKind []wire.Kind
	received int
	total    int
	joinHeld int64 // entities join pages created, less those they removed
	// joinPages counts the pages of the join under way.
	joinPages uint64
	// paging is set while a join page is applied; rejoin while the join
	// under way is one into a world held already (Rejoin).
	paging   bool
	rejoin   *rejoinState
	frame    ecs.Frame
	applied  []uint32                // slot*MaxComponents + component: newest host frame applied
	tomb     map[ecs.NetID]ecs.Frame // removed ids and the host frame of the removal
	tombFIFO []ecs.NetID
	tombNext int
	pose     int // the registry index of ecs.Transform, or -1
	stats    ClientStats
}

// NewClient returns a client replicator for reg's world.
func NewClient(reg *Registry, cfg ClientConfig) *ClientReplicator {
	if cfg.MaxHeld <= 0 {
		cfg.MaxHeld = 4096
	}
	if cfg.Tombstones <= 0 {
		cfg.Tombstones = 4096
	}
	c := &ClientReplicator{
		reg:      reg,
		w:        reg.world,
		cfg:      cfg,
		q:        make([]int32, max(reg.fields, 1)),
		tomb:     make(map[ecs.NetID]ecs.Frame),
		tombFIFO: make([]ecs.NetID, cfg.Tombstones),
	}
	for i := range reg.comps {
		if reg.comps[i].delta {
			c.hist[i] = &history{fields: reg.comps[i].fields}
		}
	}
	c.pose = -1
	if ci, ok := reg.Lookup(reg.world.IDs.Transform); ok {
		c.pose = int(ci)
	}
	c.initFn = c.initEntity
	return c
}

// Joined reports whether the join has finished (FINAL applied).
func (c *ClientReplicator) Joined() bool { return c.joined }

// Progress returns the entities received by join pages and the host's count
// of networked entities, for a progress bar.
func (c *ClientReplicator) Progress() (received, total int) {
	return min(c.received, c.total), c.total
}

// Frame returns the newest host frame whose state was applied.
func (c *ClientReplicator) Frame() ecs.Frame { return c.frame }

// Stats returns the counters.
func (c *ClientReplicator) Stats() ClientStats { return c.stats }

func (c *ClientReplicator) initEntity(e arche.Entity) {
	*(*ecs.NetworkIdentity)(c.w.Arche().Get(e, c.w.IDs.NetworkIdentity)) = c.pending
}

// HandleDatagram applies a datagram message: STATE or AUTH_STATE. Other
// kinds are not replication's and return ok == false. Before the join ends,
// messages are held (copied) and applied after FINAL.
func (c *ClientReplicator) HandleDatagram(kind wire.Kind, payload []byte) (ok bool, err error) {
	if kind != wire.KindState && kind != wire.KindAuthState {
		return false, nil
	}
	if !c.joined {
		if len(c.held) >= c.cfg.MaxHeld {
			c.stats.Malformed++
			return true, ErrHeldFull
		}
		c.held = append(c.held, append([]byte(nil), payload...))
		c.heldKind = append(c.heldKind, kind)
		return true, nil
	}
	return true, c.apply(kind, payload)
}

func (c *ClientReplicator) apply(kind wire.Kind, payload []byte) error {
	var err error
	if kind == wire.KindState {
		c.stats.States++
		err = c.applyState(payload)
	} else {
		c.stats.AuthStates++
		err = c.applyAuth(payload)
	}
	if err != nil {
		c.stats.Malformed++
	}
	return err
}

// HandleLane applies a join-lane message: a page or FINAL. Other kinds return
// ok == false. A FINAL whose counts of pages and entities differ from what
// the pages brought fails the join with a *JoinIncompleteError (Joined stays
// false): the client does not hold the host's world.
func (c *ClientReplicator) HandleLane(msg []byte) (ok bool, err error) {
	k, err := wire.MessageKind(msg)
	if err != nil {
		return false, nil
	}
	switch k {
	case wire.KindJoinPage:
		if c.joined {
			c.stats.Malformed++
			return true, fmt.Errorf("%w: a join page after the join ended", ErrMalformed)
		}
		c.stats.Pages++
		c.joinPages++
		spawns, despawns := c.stats.Spawns, c.stats.Despawns
		c.paging = true
		err := c.applyPage(msg[1:])
		c.paging = false
		if c.rejoin == nil {
			c.joinHeld += int64(c.stats.Spawns-spawns) - int64(c.stats.Despawns-despawns)
		}
		if err != nil {
			c.stats.Malformed++
			return true, err
		}
		return true, nil
	case wire.KindJoinFinal:
		r := wire.NewReader(msg[1:])
		frame := ecs.Frame(r.Uvarint32())
		pages := r.Uvarint()
		total := r.Count(1 << 30)
		entities := r.Uvarint()
		if err := r.Finish(); err != nil {
			c.stats.Malformed++
			return true, fmt.Errorf("%w: join final: %v", ErrMalformed, err)
		}
		if c.joined {
			c.stats.Malformed++
			return true, fmt.Errorf("%w: a second join final", ErrMalformed)
		}
		if pages != c.joinPages || c.joinHeld < 0 || entities != uint64(c.joinHeld) {
			return true, &JoinIncompleteError{PagesSent: pages, PagesReceived: c.joinPages, EntitiesSent: entities, EntitiesHeld: uint64(max(c.joinHeld, 0))}
		}
		c.total = total
		c.joined = true
		if frame > c.frame {
			c.frame = frame
		}
		if c.rejoin != nil {
			c.sweep(frame)
		}
		for i, p := range c.held {
			if err := c.apply(c.heldKind[i], p); err != nil {
				// A held message that fails is dropped alone.
				continue
			}
		}
		c.held, c.heldKind = nil, nil
		return true, nil
	}
	return false, nil
}

func (c *ClientReplicator) applyPage(body []byte) error {
	r := wire.NewReader(body)
	frame := ecs.Frame(r.Uvarint32())
	c.total = r.Count(1 << 30)
	n := r.Count(r.Len())
	for range n {
		id := ecs.NetID(r.Uvarint32())
		if r.Err() != nil {
			break
		}
		c.despawn(id, frame)
	}
	for r.Err() == nil && r.Len() > 0 {
		if err := c.item(&r, frame, true, nil); err != nil {
			return err
		}
		c.received++
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: join page: %v", ErrMalformed, err)
	}
	if frame > c.frame {
		c.frame = frame
	}
	return nil
}

func (c *ClientReplicator) applyState(payload []byte) error {
	r := wire.NewReader(payload)
	frame := ecs.Frame(r.Uvarint32())
	var prev ecs.NetID
	for r.Err() == nil && r.Len() > 0 {
		if err := c.item(&r, frame, false, &prev); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: state: %v", ErrMalformed, err)
	}
	if frame > c.frame {
		c.frame = frame
	}
	return nil
}

// item applies one item of a STATE message (prev: the id of the item before
// it, which its id is coded against) or of a join page (prev nil: absolute
// ids).
func (c *ClientReplicator) item(r *wire.Reader, frame ecs.Frame, page bool, prev *ecs.NetID) error {
	raw := r.Uvarint()
	flags := r.Uvarint()
	if r.Err() != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, r.Err())
	}
	id := ecs.NetID(raw)
	if prev != nil {
		next := uint64(*prev) + raw
		if raw == 0 && *prev != 0 || next > 1<<32-1 {
			return fmt.Errorf("%w: item ids out of order", ErrMalformed)
		}
		id = ecs.NetID(next)
		*prev = id
	} else if raw > 1<<32-1 {
		return fmt.Errorf("%w: network id overflows", ErrMalformed)
	}
	if id == 0 {
		return fmt.Errorf("%w: network id 0", ErrMalformed)
	}
	if flags&itemDespawn != 0 {
		c.despawn(id, frame)
		return nil
	}
	n := uint(len(c.reg.comps))
	all := uint64(1)<<n - 1
	mask := flags >> itemShift & all
	m := uint16(mask)
	if flags&itemSpawn != 0 {
		if flags>>(itemShift+n) != 0 {
			return ErrUnknownComponent
		}
		owner := r.Uvarint32()
		if owner > 0xffff {
			return fmt.Errorf("%w: owner %d is not a peer id", ErrMalformed, owner)
		}
		return c.spawn(r, id, ecs.PeerID(owner), m, frame)
	}
	if page {
		return fmt.Errorf("%w: update item in a join page", ErrMalformed)
	}
	dm := flags >> (itemShift + n) & all
	if dm&^mask != 0 {
		return fmt.Errorf("%w: delta mask outside component mask", ErrMalformed)
	}
	snap := flags>>(itemShift+2*n) != 0
	if flags>>(itemShift+2*n) > 1 {
		return fmt.Errorf("%w: unknown item flags", ErrMalformed)
	}
	if snap && (c.pose < 0 || mask&(1<<uint(c.pose)) == 0) {
		return fmt.Errorf("%w: snap flag on an item without a Transform", ErrMalformed)
	}
	deltas := uint16(dm)
	var age, snapAge uint32
	if deltas != 0 {
		age = r.Uvarint32()
	}
	if snap {
		snapAge = r.Uvarint32()
	}
	e, known := c.w.EntityOf(id)
	var slot int32
	if known {
		slot, _ = c.w.NetSlot(e)
		// The teleport is news if no state of the pose from its frame on
		// was applied yet (a later state may have overtaken this one).
		snap = snap && c.appliedFrame(slot, c.pose) < uint32(frame)-min(snapAge, uint32(frame))
	}
	reg := c.reg
	for ci := range reg.comps {
		bit := uint16(1) << uint(ci)
		if m&bit == 0 {
			continue
		}
		comp := &reg.comps[ci]
		img := c.q[:comp.fields]
		if deltas&bit != 0 {
			readImage(r, img)
			if r.Err() != nil {
				return fmt.Errorf("%w: %v", ErrMalformed, r.Err())
			}
			if !known {
				continue
			}
			base := c.baseline(ci, slot, uint32(frame)-age)
			if base == nil {
				c.stats.DeltaMisses++
				return ErrNoBaseline
			}
			for i := range img {
				img[i] = wrapAdd(base[i], img[i], comp.wrap[i])
			}
		} else {
			readImage(r, img)
			if r.Err() != nil {
				return fmt.Errorf("%w: %v", ErrMalformed, r.Err())
			}
		}
		if !known {
			continue
		}
		c.remember(ci, slot, uint32(frame), img)
		if !c.fresh(slot, ci, frame) {
			continue // a newer state of it was applied already
		}
		if !c.w.Arche().Has(e, comp.id) {
			c.w.Arche().Add(e, comp.id)
		}
		comp.dequant(img, c.w.Arche().Get(e, comp.id))
	}
	if !known {
		c.stats.UnknownEntity++
		return nil
	}
	c.stats.Updates++
	if snap && c.w.Arche().Has(e, c.w.IDs.Interpolated) {
		ip := (*ecs.Interpolated)(c.w.Arche().Get(e, c.w.IDs.Interpolated))
		ip.Prev = *(*ecs.Transform)(c.w.Arche().Get(e, c.w.IDs.Transform))
		ip.Snap = true
		c.stats.Snaps++
	}
	if c.cfg.Observer != nil {
		c.cfg.Observer.Applied(e, frame)
	}
	return nil
}

// appliedFrame returns the frame of the newest state of component ci applied
// to the entity in slot (0: none).
func (c *ClientReplicator) appliedFrame(slot int32, ci int) uint32 {
	if i := int(slot)*MaxComponents + ci; i < len(c.applied) {
		return c.applied[i]
	}
	return 0
}

// spawn creates (or, if present, updates) entity id from a whole image.
func (c *ClientReplicator) spawn(r *wire.Reader, id ecs.NetID, owner ecs.PeerID, mask uint16, frame ecs.Frame) error {
	reg := c.reg
	q := c.q
	for ci := range reg.comps {
		if mask&(1<<uint(ci)) == 0 {
			continue
		}
		readImage(r, q[reg.offset[ci]:reg.offset[ci]+reg.comps[ci].fields])
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: spawn: %v", ErrMalformed, err)
	}
	if removed, dead := c.tomb[id]; dead {
		if frame <= removed {
			c.stats.Ignored++ // sent before its removal, arrived after it
			return nil
		}
		delete(c.tomb, id) // the entity came back (into scope)
	}
	a := c.w.Arche()
	e, ok := c.w.EntityOf(id)
	snap := !ok
	if !ok {
		c.ids = append(c.ids[:0], c.w.IDs.NetworkIdentity)
		if owner != c.cfg.Local {
			c.ids = append(c.ids, c.w.IDs.Interpolated)
		}
		for ci := range reg.comps {
			if mask&(1<<uint(ci)) != 0 {
				c.ids = append(c.ids, reg.comps[ci].id)
			}
		}
		c.pending = ecs.NetworkIdentity{ID: id, Owner: owner}
		e = a.NewEntityFn(c.initFn, c.ids...)
		c.stats.Spawns++
		if c.paging && c.rejoin != nil {
			c.rejoined(e)
		}
		slot, _ := c.w.NetSlot(e)
		c.clearHistory(slot)
		c.clearApplied(slot)
	} else if c.paging && c.rejoin != nil && !c.rejoined(e) {
		// An entity held before this join: it stays where it is, updated
		// to the page, and is drawn as a jump to it.
		if !c.keep(e, owner) {
			return nil // its state comes with AUTH_STATE
		}
		snap = true
	} else if ni, _ := c.w.Identity(e); ni.Owner != owner {
		ecs.SetOwner(c.w, e, owner)
	} else if owner == c.cfg.Local && c.cfg.Auth != nil {
		// A repeated spawn of an entity this client predicts: its state comes
		// through AUTH_STATE and reconciliation, never as a snap back.
		return nil
	}
	slot, _ := c.w.NetSlot(e)
	for ci := range reg.comps {
		if mask&(1<<uint(ci)) == 0 {
			continue
		}
		comp := &reg.comps[ci]
		if !a.Has(e, comp.id) {
			a.Add(e, comp.id)
		}
		img := q[reg.offset[ci] : reg.offset[ci]+comp.fields]
		c.remember(ci, slot, uint32(frame), img)
		if c.fresh(slot, ci, frame) {
			comp.dequant(img, a.Get(e, comp.id))
		}
	}
	if snap && a.Has(e, c.w.IDs.Interpolated) && a.Has(e, c.w.IDs.Transform) {
		ip := (*ecs.Interpolated)(a.Get(e, c.w.IDs.Interpolated))
		ip.Prev = *(*ecs.Transform)(a.Get(e, c.w.IDs.Transform))
		ip.Snap = true
	}
	if !ok && c.cfg.OnSpawn != nil {
		c.cfg.OnSpawn(e, owner)
	}
	if c.cfg.Observer != nil {
		c.cfg.Observer.Applied(e, frame)
	}
	return nil
}

// despawn removes entity id, removed by the host at frame f, and remembers
// the removal so that a spawn sent before it and arriving after it is ignored.
func (c *ClientReplicator) despawn(id ecs.NetID, f ecs.Frame) {
	c.tombstone(id, f)
	e, ok := c.w.EntityOf(id)
	if !ok {
		c.stats.Ignored++
		return
	}
	if c.paging && c.rejoin != nil {
		c.unjoined(e)
	}
	c.remove(e)
}

// tombstone remembers that the host removed entity id at frame f, so that a
// spawn sent before the removal and arriving after it is ignored.
func (c *ClientReplicator) tombstone(id ecs.NetID, f ecs.Frame) {
	if old, dead := c.tomb[id]; !dead {
		if evict := c.tombFIFO[c.tombNext]; evict != 0 {
			delete(c.tomb, evict)
		}
		c.tombFIFO[c.tombNext] = id
		c.tombNext = (c.tombNext + 1) % len(c.tombFIFO)
		c.tomb[id] = f
	} else if f > old {
		c.tomb[id] = f
	}
}

// remove removes entity e, telling the Observer first.
func (c *ClientReplicator) remove(e arche.Entity) {
	if c.cfg.Observer != nil {
		c.cfg.Observer.Removed(e)
	}
	c.w.Arche().RemoveEntity(e)
	c.stats.Despawns++
}

func (c *ClientReplicator) applyAuth(payload []byte) error {
	r := wire.NewReader(payload)
	frame := ecs.Frame(r.Uvarint32())
	reg := c.reg
	q := c.q
	for r.Err() == nil && r.Len() > 0 {
		id := ecs.NetID(r.Uvarint32())
		mask := r.Uvarint() >> itemShift
		if mask>>uint(len(reg.comps)) != 0 {
			return ErrUnknownComponent
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
		if c.cfg.Auth != nil {
			c.cfg.Auth.AuthState(frame, e, State{reg: reg, mask: uint16(mask), images: q})
			continue
		}
		a := c.w.Arche()
		for ci := range reg.comps {
			comp := &reg.comps[ci]
			if mask&(1<<uint(ci)) != 0 && a.Has(e, comp.id) {
				comp.dequant(q[reg.offset[ci]:reg.offset[ci]+comp.fields], a.Get(e, comp.id))
			}
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: auth state: %v", ErrMalformed, err)
	}
	return nil
}

// Offset returns where component c's integers start in a full wire image,
// such as the images an AuthHandler receives.
func (r *Registry) Offset(c Component) int { return r.offset[c] }

// fresh reports whether a state of frame f of component ci is newer than
// what the entity in slot holds, and if so records it as applied.
func (c *ClientReplicator) fresh(slot int32, ci int, f ecs.Frame) bool {
	i := int(slot)*MaxComponents + ci
	if i >= len(c.applied) {
		c.applied = append(c.applied, make([]uint32, i+1-len(c.applied)+len(c.applied)/2+MaxComponents)...)
	}
	if uint32(f) < c.applied[i] {
		return false
	}
	c.applied[i] = uint32(f)
	return true
}

func (c *ClientReplicator) clearApplied(slot int32) {
	at := int(slot) * MaxComponents
	if at+MaxComponents <= len(c.applied) {
		clear(c.applied[at : at+MaxComponents])
	}
}

func (c *ClientReplicator) growHistory(h *history, slot int32) {
	need := (int(slot) + 1) * DeltaHistory
	if len(h.frames) < need {
		h.frames = append(h.frames, make([]uint32, need-len(h.frames)+need/2)...)
		h.vals = append(h.vals, make([]int32, len(h.frames)*h.fields-len(h.vals))...)
	}
}

func (c *ClientReplicator) clearHistory(slot int32) {
	for _, h := range c.hist {
		if h == nil {
			continue
		}
		c.growHistory(h, slot)
		clear(h.frames[int(slot)*DeltaHistory : int(slot+1)*DeltaHistory])
	}
}

// remember keeps value img of component ci at frame f in the entity's
// history, replacing the oldest.
func (c *ClientReplicator) remember(ci int, slot int32, f uint32, img []int32) {
	h := c.hist[ci]
	if h == nil {
		return
	}
	c.growHistory(h, slot)
	at := int(slot) * DeltaHistory
	oldest := at
	for k := at; k < at+DeltaHistory; k++ {
		if h.frames[k] == f {
			oldest = k
			break
		}
		if h.frames[k] < h.frames[oldest] {
			oldest = k
		}
	}
	if h.frames[oldest] > f {
		return // older than everything kept
	}
	h.frames[oldest] = f
	copy(h.vals[oldest*h.fields:], img)
}

// baseline returns the kept value of component ci at frame f, or nil.
func (c *ClientReplicator) baseline(ci int, slot int32, f uint32) []int32 {
	h := c.hist[ci]
	if h == nil || f == 0 {
		return nil
	}
	at := int(slot) * DeltaHistory
	if at+DeltaHistory > len(h.frames) {
		return nil
	}
	for k := at; k < at+DeltaHistory; k++ {
		if h.frames[k] == f {
			return h.vals[k*h.fields : (k+1)*h.fields]
		}
	}
	return nil
}
