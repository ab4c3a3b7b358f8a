package replicate

import (
	"errors"
	"fmt"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
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
	// ErrJoinQueueFull: join pages arrived faster than they could be applied,
	// past ClientConfig.MaxJoinQueue.
	ErrJoinQueueFull = errors.New("replicate: join pages arrived faster than this client applies them; raise ClientConfig.MaxJoinQueue or JoinSlice")
	// ErrJoinIncomplete: the join ended (FINAL) without the client holding
	// what the host sent: a page or entities are missing. The client does not
	// hold the world; a *JoinIncompleteError says what differs. Connect again.
	ErrJoinIncomplete = errors.New("replicate: the join ended without every page and entity the host sent; the world is incomplete, connect again")
	// ErrTooManyEntities: the host would make this client hold more
	// networked entities than ClientConfig.MaxEntities; the message is
	// refused whole, and the session ends (CloseLimit): a host that sends
	// more is broken or hostile, or the limit too low for the game.
	ErrTooManyEntities = errors.New("replicate: the host sent more networked entities than ClientConfig.MaxEntities allows; raise it if the game's world is that large")
)

// DefaultMaxEntities is ClientConfig.MaxEntities's default.
const DefaultMaxEntities = 1 << 20

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

// BirthObserver is an Observer that also hears which entities a spawn made
// on this client that had no place to be drawn before host frame f: the
// host made them at f, in play (a shot, a new player's figure), or they
// jumped there (a teleport) at f, within the last 128 frames. Born is
// called after the Applied of the spawn that made e, with f at most that
// spawn's frame; one entering this client's interest some frames after its
// making is told too, with the making's frame (an observer drawing the past
// has drawn f already, then). An entity that a join brings, or that
// enters this client's interest with neither in those frames, was
// somewhere before: it gets no Born.
type BirthObserver interface {
	Observer
	Born(e arche.Entity, f ecs.Frame)
}

// FrameObserver is an Observer that also hears the host frame of each
// State message, after its items were applied, and of the empty ones too:
// the host had reached that frame, and had nothing newer of the entities
// the message left out to send, or not yet. A host whose world falls still
// sends a few empty ones (quiet ticks), so that an interpolator tells an
// entity that stopped from one whose states are late.
type FrameObserver interface {
	Observer
	Heard(f ecs.Frame)
}

// WriteObserver is an Observer that is also told, just before each Applied
// of an update or a spawn, which of e's replicated components the state
// wrote. One it left out holds what it held before: for an entity whose
// components the client's own systems run (ecs.Predicted), the client's own
// value, which may equal the host's or not. Not told: a join page, which
// writes every component of the entities it makes, and the Applied of an
// AuthState (Auth) of an entity of this client's own the host moves
// (ecs.HostMoved).
type WriteObserver interface {
	Observer
	Wrote(e arche.Entity, f ecs.Frame, comps Components)
}

// JumpObserver is an Observer that is also told, just before the Applied of
// a state whose pose is of a teleport this client had not applied, of an
// entity it draws from states (it has ecs.Interpolated, whose Snap the
// state set), the host frame of that teleport: the state's
// frame, or an earlier one when the host sent its first state after the
// teleport later (a budget's priorities: an entity the teleport took far
// from what the client owns weighs less).
type JumpObserver interface {
	Observer
	Jumped(e arche.Entity, f ecs.Frame)
}

// BacklogObserver is an Observer that also hears each Backlog the host
// sends this client, as it is applied: at host frame f the host's budget
// for this client had held held items back since its last Backlog (0:
// none, the budget has room again), and it says so again every every host
// frames while the budget stays full. While it is full, an entity left out
// of the host's states may be one waiting its turn, not one at rest: an
// interpolator goes on moving it by its velocity.
type BacklogObserver interface {
	Observer
	HeldBack(f ecs.Frame, held, every int)
}

// Components is a set of a registry's replicated components: bit c is
// Component c.
type Components uint16

// Has reports whether c is in the set.
func (s Components) Has(c Component) bool { return c < 16 && s&(1<<c) != 0 }

// AuthHandler receives AuthState: the host's state s of this client's own
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
	tele   uint32 // host frame of the entity's last teleport, sent with an AuthState; 0: none
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

// Teleport returns the host frame of the entity's newest teleport
// (ecs.ReportTeleport) when an AuthState says its pose is of one: the host
// says so for snapWindow (128) frames after the teleport, in every
// AuthState of the entity, so that a prediction that compares with one of
// them draws the jump as a jump, not as a correction to hide. ok is false
// without one (and for the states of State messages, whose teleports reach
// the interpolation as Interpolated.Snap).
func (s State) Teleport() (f ecs.Frame, ok bool) { return ecs.Frame(s.tele), s.tele != 0 }

// WithTeleport returns s saying its pose is of a teleport at host frame f
// (0: of none), as an AuthState says it: for handlers and tests that make
// one.
func (s State) WithTeleport(f ecs.Frame) State {
	s.tele = uint32(f)
	return s
}

// ClientConfig tunes the client replicator.
type ClientConfig struct {
	// Local is this client's peer id: entities it owns get no Interpolated.
	Local ecs.PeerID
	// StepRate is the host's simulation steps per second (Welcome's tick
	// rate), for the motion prediction of poses. Default 60.
	StepRate float64
	// MaxHeld bounds the State messages held while the join runs. Default 4096.
	MaxHeld int
	// OnSpawn, if set, is called after a replicated entity was created, so the
	// game can add local components (what to draw it with, say); frame is
	// the host frame of the state it was made from (a join page's, or a
	// State's).
	OnSpawn func(e arche.Entity, owner ecs.PeerID, frame ecs.Frame)
	// OnRemove, if set, is called before the client removes a replicated
	// entity, holding every component it had, before the Observer's
	// Removed: the host removed it (drawn to its removal first, with a
	// DrawnObserver), it left this client's interest, a rejoin found it
	// gone, or MaxEntities made room. It must not remove e itself.
	OnRemove func(e arche.Entity)
	// Observer, if set, learns of every applied state.
	Observer Observer
	// Auth, if set, receives AuthState instead of it being applied as is.
	Auth AuthHandler
	// Tombstones is how many removed network ids are remembered so a spawn
	// that arrives after its removal is ignored. Default 4096.
	Tombstones int
	// JoinSlice is the most time one Pump spends applying join pages, so a
	// frame that pumps never stalls on a large join: a Pump stops before a
	// page that would take it past, by the time pages took so far (it
	// always applies one). Default 1 ms: a frame that also waits for a
	// core, or helps the garbage collector, still ends within a few ms.
	JoinSlice time.Duration
	// MaxJoinQueue bounds the bytes of join messages received and not yet
	// applied. Default 64 MiB.
	MaxJoinQueue int
	// MaxEntities bounds the networked entities the host may make this
	// client hold, so that a hostile host cannot grow it without end: a
	// message that would go past it is ErrTooManyEntities. Default
	// DefaultMaxEntities (1,048,576).
	MaxEntities int
	// Clock times JoinSlice, and how long a Backlog stands (Backlog).
	// Default clock.Real.
	Clock clock.Clock
	// Meter, if set, counts every symbol of the State items applied, for
	// measuring their information (SymbolMeter).
	Meter *SymbolMeter
}

// ClientStats counts what the client replicator applied and refused.
// Spawns counts every entity made, the join's pages' among them (a host's
// PeerStats.Spawns counts only its spawn items, JoinEntities those of the
// join); Despawns every entity removed.
type ClientStats struct {
	States, AuthStates, Pages uint64
	Spawns, Despawns, Updates uint64
	// Malformed counts the messages that did not decode. UnknownEntity
	// counts updates (and AuthState entries) of entities the client does
	// not hold: mostly an update that left before a removal of the entity
	// and arrived after it (reordered, or a removal's copy that overtook
	// it), or one of an entity whose spawn has not arrived; nothing is lost
	// (a spawn goes until one is delivered), and over a link that reorders
	// datagrams (latency with jitter) a few a second are ordinary.
	Malformed, UnknownEntity uint64
	// DeltaMisses counts updates coded against a baseline the client no
	// longer holds: read past, and the entity marked to be sent whole.
	DeltaMisses  uint64
	Ignored      uint64 // spawns of removed entities, removals of unknown ones (a removal's later copies among them)
	JoinSlices   uint64 // Pumps that applied join pages
	LongestSlice time.Duration
	JoinBytes    uint64 // bytes of join messages received
	Snaps        uint64 // teleports marked on arrival (a snap head, a spawn's snap age)
	// Swept counts the entities a rejoin's FINAL removed: held before the
	// join, and not brought by it (Rejoin).
	Swept uint64
	// Departed counts the removals the client kept back while its
	// Observer drew the entity (DrawnObserver), carried out since: once
	// drawn to them, past the Observer's bound, to make room for a spawn
	// at MaxEntities, or at a rejoin. They count in Despawns too.
	Departed uint64
	// Dropped counts the replicated components removed from entities held
	// because a newer spawn, or AuthState, of the entity left them out (the
	// host's entity lost them); Gained those an AuthState added to an
	// entity the client owns (a spawn's are not counted).
	Dropped, Gained uint64
	// Backlogs counts the Backlog messages received that decoded: the host
	// telling that its budget for this client held items back (Backlog),
	// those dropped as older than the newest among them.
	Backlogs uint64
	// MarkedByHost counts the entities this client owned and predicted
	// that the host sent it in States, which it does of those it marks
	// ecs.HostMoved: the client marked them too and draws them from the
	// host's states since (a game that marks them on one side only; mark
	// them on both).
	MarkedByHost uint64
}

// ClientReplicator applies the host's replication messages to a client's
// world. Not safe for concurrent use: call it from the simulation goroutine.
//
// Its memory per entity is what the entity needs: its components in the
// world, a 20-byte record and an anchor image (the one it arrived with),
// kept in chunks of 4,096 entities allocated as entities arrive; an entity
// that is updated gets a history of its last DeltaHistory images, from a
// pool.
type ClientReplicator struct {
	reg *Registry
	w   *ecs.World
	cfg ClientConfig
	// wo and jo are cfg.Observer as a WriteObserver and a JumpObserver,
	// nil when it is not one.
	wo       WriteObserver
	jo       JumpObserver
	q        []int32 // scratch: a whole image
	bq       []int32 // scratch: a baseline
	ids      []arche.ID
	pending  ecs.NetworkIdentity
	initFn   func(arche.Entity)
	joined   bool
	final    bool // FINAL arrived (it may still wait in the queue)
	held     [][]byte
	heldKind []wire.Kind
	total    int
	joinHeld int64 // entities join pages created, less those they removed
	// joinPages counts the pages of the join under way.
	joinPages uint64
	// paging is set while a join page is applied; rejoin while the join
	// under way is one into a world held already (Rejoin).
	paging   bool
	rejoin   *rejoinState
	frame    ecs.Frame
	backlog  clientBacklog
	slots    chunked[clientSlot]
	anchors  rows
	nd       rows // per slot and component that is not delta-coded: newest frame applied
	hist     clientHistory
	pred     predictor
	book     codeBook
	used     streamSet
	queue    joinQueue
	pageTime time.Duration // the smoothed time a join message takes to apply (Pump)
	lastPage int           // entities the last join page brought (Pump)
	// majority is the peer most of the first join page's entities belong
	// to, whose list of owned entities a Pump of its own makes room in for
	// the rest of the world (reserveOwners); owning is set until it has.
	majority ecs.PeerID
	owning   bool
	stage    joinStage
	tomb     map[ecs.NetID]ecs.Frame // removed ids and the host frame of the removal
	tombFIFO []ecs.NetID
	tombNext int
	leaving  []departing // removed by the host, kept while drawn (DrawnObserver)
	// hostMoved holds the slots of entities this client owns whose states
	// it applied, drawn from them (ecs.HostMoved), to tell the Observer
	// when one is predicted again.
	hostMoved map[int32]struct{}
	// movedFrame is the newest frame of a state applied to an entity of
	// this client's own marked ecs.HostMoved (HostMovedFrame).
	movedFrame ecs.Frame
	stats      ClientStats
	pose       int                            // the registry index of ecs.Transform, or -1
	itemHook   func(id ecs.NetID, kind uint8) // tests: every State item
}

// NewClient returns a client replicator for reg's world.
func NewClient(reg *Registry, cfg ClientConfig) *ClientReplicator {
	if cfg.MaxHeld <= 0 {
		cfg.MaxHeld = 4096
	}
	if cfg.Tombstones <= 0 {
		cfg.Tombstones = 4096
	}
	if cfg.StepRate <= 0 {
		cfg.StepRate = 60
	}
	if cfg.JoinSlice <= 0 {
		cfg.JoinSlice = time.Millisecond
	}
	if cfg.MaxJoinQueue <= 0 {
		cfg.MaxJoinQueue = 64 << 20
	}
	if cfg.MaxEntities <= 0 {
		cfg.MaxEntities = DefaultMaxEntities
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	c := &ClientReplicator{
		reg:      reg,
		w:        reg.world,
		cfg:      cfg,
		q:        make([]int32, max(reg.fields, 1)),
		bq:       make([]int32, max(reg.fields, 1)),
		tomb:     make(map[ecs.NetID]ecs.Frame),
		tombFIFO: make([]ecs.NetID, cfg.Tombstones),
		pred:     newPredictor(reg, cfg.StepRate),
	}
	c.anchors.n = max(reg.fields, 1)
	c.nd.n = len(reg.comps)
	c.hist.init(reg.fields)
	c.initFn = c.initEntity
	c.pose = -1
	if ci, ok := reg.Lookup(reg.world.IDs.Transform); ok {
		c.pose = int(ci)
	}
	c.wo, _ = cfg.Observer.(WriteObserver)
	c.jo, _ = cfg.Observer.(JumpObserver)
	return c
}

// Joined reports whether the join has finished: FINAL applied, with every
// page before it and the state held back while joining.
func (c *ClientReplicator) Joined() bool { return c.joined }

// Progress returns the entities the join's pages brought that the client
// holds (one paged again counts once, one the host removed since no more)
// and what the join brings, the host's count of networked entities in the
// peer's scope, for a progress bar.
func (c *ClientReplicator) Progress() (received, total int) {
	return int(min(max(c.joinHeld, 0), int64(c.total))), c.total
}

// Frame returns the newest host frame whose state was applied.
func (c *ClientReplicator) Frame() ecs.Frame { return c.frame }

// HostMovedFrame returns the newest host frame of a state applied to an
// entity this client owns and draws from the host's states
// (ecs.HostMoved), which come in States (and in AuthStates once given to
// this client, or as the one item of an AuthState): 0 before one came. Frame and
// it together say how recent the client's picture of what it does not
// predict is.
func (c *ClientReplicator) HostMovedFrame() ecs.Frame { return c.movedFrame }

// Stats returns the counters.
func (c *ClientReplicator) Stats() ClientStats { return c.stats }

func (c *ClientReplicator) initEntity(e arche.Entity) {
	*(*ecs.NetworkIdentity)(c.w.Arche().Get(e, c.w.IDs.NetworkIdentity)) = c.pending
}

// HandleDatagram applies a datagram message: State, AuthState or Backlog.
// Other kinds are not replication's and return ok == false. Before the join
// ends, State and AuthState are held (copied) and applied after FINAL.
func (c *ClientReplicator) HandleDatagram(kind wire.Kind, payload []byte) (ok bool, err error) {
	switch kind {
	case wire.KindState, wire.KindAuthState:
	case wire.KindBacklog:
		return true, c.applyBacklog(payload)
	default:
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

// Offset returns where component c's integers start in a full wire image,
// such as the images an AuthHandler receives.
func (r *Registry) Offset(c Component) int { return r.offset[c] }

// despawn removes entity id, removed by the host at frame f, and remembers
// the removal so that a spawn sent before it and arriving after it is ignored.
func (c *ClientReplicator) despawn(id ecs.NetID, f ecs.Frame) {
	e, ok := c.w.EntityOf(id)
	var slot int32
	if ok {
		slot, _ = c.w.NetSlot(e)
		if s := c.slots.peek(slot); s != nil && s.applied > uint32(f) {
			// A state of a later frame arrived first: the entity came back
			// into the peer's scope after this removal, which is no news.
			c.stats.Ignored++
			return
		} else if s != nil && s.leaving != 0 {
			// Drawn to a removal already: this one (a copy, or a later
			// removal that overtook the spawn of a return into scope)
			// raises what a late spawn must be newer than.
			c.tombstone(id, f)
			c.stats.Ignored++
			return
		}
	}
	c.tombstone(id, f)
	if !ok {
		c.stats.Ignored++
		return
	}
	if c.paging && c.rejoin != nil {
		c.unjoined(e)
	}
	if c.keepDrawn(e, slot, f) {
		return // removed once drawn to its removal (Depart)
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

// remove removes entity e and the client's record of it, telling OnRemove
// and the Observer first.
func (c *ClientReplicator) remove(e arche.Entity) {
	if c.cfg.OnRemove != nil {
		c.cfg.OnRemove(e)
	}
	if c.cfg.Observer != nil {
		c.cfg.Observer.Removed(e)
	}
	slot, _ := c.w.NetSlot(e)
	c.forgetSlot(slot)
	c.w.Arche().RemoveEntity(e)
	c.stats.Despawns++
}

// forgetSlot clears the client's record of the entity in slot.
func (c *ClientReplicator) forgetSlot(slot int32) {
	if len(c.hostMoved) > 0 {
		delete(c.hostMoved, slot)
	}
	s := c.slots.at(slot)
	if s.hist != 0 {
		c.hist.release(s.hist - 1)
	}
	*s = clientSlot{}
	if len(c.reg.comps) > 0 && c.reg.delta != c.reg.all {
		clear(c.nd.at(slot))
	}
}

// remember keeps the image img (delta-coded components of has) of frame f
// as the entity's newest or among its recent ones.
func (c *ClientReplicator) remember(slot int32, f uint32, has uint16, img []int32) {
	s := c.slots.at(slot)
	if s.hist == 0 {
		if s.anchor == 0 || s.anchor == f {
			s.anchor, s.ahas = f, has
			copy(c.anchors.at(slot), img)
			return
		}
		s.hist = c.hist.alloc() + 1
		s.next, s.newest = 0, 0
		c.hist.remember(s.hist-1, s, s.anchor, s.ahas, c.anchors.at(slot))
		s.anchor = 0
	}
	c.hist.remember(s.hist-1, s, f, has, img)
}

// baseline returns the image of frame f the client holds of the entity in
// slot (f == 0: its newest) and that frame, or nil.
func (c *ClientReplicator) baseline(slot int32, f uint32) ([]int32, uint16, uint32) {
	s := c.slots.peek(slot)
	if s == nil {
		return nil, 0, 0
	}
	if s.hist != 0 {
		return c.hist.find(s.hist-1, s, f)
	}
	if s.anchor != 0 && (f == 0 || f == s.anchor) {
		return c.anchors.at(slot), s.ahas, s.anchor
	}
	return nil, 0, 0
}

// freshND reports whether a state of frame f of component ci (not
// delta-coded) is newer than what the entity in slot holds, and if so
// records it as applied.
func (c *ClientReplicator) freshND(slot int32, ci int, f ecs.Frame) bool {
	a := &c.nd.at(slot)[ci]
	if uint32(f) < uint32(*a) {
		return false
	}
	*a = int32(f)
	return true
}
