package session

import (
	"context"
	"crypto/rand"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/conn"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// HostConfig tunes a Host. Zero fields take the defaults noted.
type HostConfig struct {
	// Clock is the time source. Default clock.Real.
	Clock clock.Clock
	// MaxPeers is the number of player slots: the most players (peers that
	// do not watch) admitted or away within their grace window at once; past
	// it a new player's Hello gets Reject RejectFull. A known peer (away, or
	// restored by RestorePeers) holds its slot and resumes into it. Default 8.
	MaxPeers int
	// Replication tunes the replicator (send rate, budget, join pacing,
	// scope).
	Replication replicate.HostConfig
	// Conn tunes every peer's connection (limits, budget).
	Conn conn.Config
	// Admit, if set, decides on a connection that asks to be let in (its
	// Hello, or its Resume), before any peer id or slot is given: nil lets it
	// on, an error refuses it with Reject RejectDenied and the error's text as
	// the reason the client reads (ErrRejected). Every other check (version,
	// name, capacity, token) has passed. For decisions that need no world: a
	// ban list, a spectator quota, a restored world's own players only.
	Admit func(a Arrival) error
	// OnJoin is called when a new peer is to be admitted (it answered the
	// Welcome), before its join starts: the game spawns the player's entities
	// there, owned by peer. peer is a fresh id or one free long (see
	// ecs.PeerID): never one a connected or away peer holds (an away one
	// may resume), nor one of a peer that left less than 32 ids or a
	// minute ago. name follows
	// wire.CheckName. An error refuses the peer instead, with Reject
	// RejectDenied and the error's text as the reason; entities it owns are
	// removed. Not called for a resume: the peer's entities are in the world.
	OnJoin func(peer ecs.PeerID, name string) error
	// OnLeave is called when a peer left (its connection ended, or it did
	// not resume within Grace), after its owned entities were removed (or
	// kept, see KeepEntities and Keep). Not called for a peer that disconnected and
	// may resume: that one is PeerDisconnected.
	OnLeave func(peer ecs.PeerID, err error)
	// KeepEntities keeps a leaving peer's entities in the world, given to the
	// host; by default they are removed.
	KeepEntities bool
	// Keep, if set, is asked about each entity a peer that leaves for good
	// owns, before OnLeave: true keeps it in the world, given to the host,
	// false removes it (KeepEntities keeps them all without asking). Called
	// on the host's goroutine, once an entity, in the order of the peer's
	// owned entities; it may change the world (an entity it removes or
	// gives away is not asked about again).
	Keep func(peer ecs.PeerID, e arche.Entity) bool
	// OnMessage receives the datagram messages of admitted peers that are
	// input (wire.KindInput) or of the game's own kinds (0x40–0x7f);
	// payload is valid only during the call. A peer's datagram message of
	// another kind, or of these without OnMessage, counts as malformed
	// against its connection; so should one OnMessage cannot use
	// (ReportMalformed).
	OnMessage func(peer ecs.PeerID, kind wire.Kind, payload []byte)
	// OnLaneMessage receives the lane messages of admitted peers that are
	// commands (wire.KindCommand) or of the game's own lane kinds
	// (0xc0–0xff), on whatever lane they came. A peer's lane message of
	// another kind the session does not handle, or of these without
	// OnLaneMessage, counts as malformed; so should one OnLaneMessage cannot
	// use (ReportMalformed).
	OnLaneMessage func(peer ecs.PeerID, lane transport.Lane, msg []byte)
	// OnEvent, if set, receives every event as it happens.
	OnEvent func(Event)
	// HandshakeTimeout drops a connection that has not finished its handshake
	// (said Hello and answered the Welcome with its WelcomeAck) this long
	// after the host took it; until then it holds no player slot. Default 3 s:
	// two round trips and a few ticks, with room for a lossy link.
	HandshakeTimeout time.Duration
	// AdmitPerStep bounds the peers admitted in one step (their WelcomeAck
	// taken in, OnJoin run, their join begun): each draws its scope and
	// begins its join in the step that follows, which with a large world
	// costs the host a millisecond or more (about 2 with 100,000 entities:
	// 0.9 to draw its scope, the rest its join's first pages), so
	// a crowd that arrives at once is let in a few a step, in the order they
	// answered, instead of holding one step for all of them. Resumes count
	// toward it and wait their turn alike (a Resume past it is answered at
	// a later step), the crowd of a restart included, in the order they
	// came. One waiting its turn has finished its handshake:
	// HandshakeTimeout and MaxPending do not close it, but it waits no
	// longer than a client waits for the answer to its Resume, 5 s (1,200
	// resumes at 4 a step and 60 steps a second), and a newer connection
	// of the same peer takes its place.
	// Default 4; negative: no bound.
	AdmitPerStep int
	// AckTimeout drops an admitted peer whose oldest datagram in flight has
	// been neither acknowledged nor reported lost for this long: a peer that
	// stopped answering, or one that acknowledges only its newest packets.
	// Default 10 s.
	AckTimeout time.Duration
	// JoinTimeout drops a peer whose join has not finished in this long.
	// Default 120 s.
	JoinTimeout time.Duration
	// AcceptBacklog bounds the connections accepted and not yet taken by the
	// simulation. Default 16.
	AcceptBacklog int
	// MaxPending bounds the connections whose handshake has not finished; a
	// new one past it closes the oldest of them that has not said Hello (else
	// the oldest refused, else the oldest welcomed), so a flood of silent
	// connections never refuses the newest, which may be a real player, nor
	// pushes out one whose handshake is under way while there are others,
	// and connections that take their Welcome and never answer cannot hold
	// the places. The one closed gets transport.CloseLimit, "host busy", and
	// a session client with Dial says Hello again after a pause. One whose
	// WelcomeAck or Resume waits its turn (AdmitPerStep) has finished its
	// handshake: it is not counted, nor pushed out. Default 32.
	MaxPending int
	// MaxPendingPerAddress bounds the unfinished handshakes from one IP
	// address (an IPv6 one by its /64: transport.AddressKey); a new one past
	// it closes that address's oldest, in the same order. Default 4.
	MaxPendingPerAddress int
	// MaxPeersPerAddress bounds the peers admitted from one IP address (a
	// household behind one router shares one; an IPv6 household, its /64),
	// those away within their grace window counted by the address of their
	// last connection; past it a Hello, or a Resume from another address,
	// gets Reject RejectFull. Default 4.
	MaxPeersPerAddress int
	// MaxJoinsPerAddress bounds the fresh joins (peers admitted; resumes
	// have bounds of their own) from one IP address a minute, an IPv6 one
	// by its /64: a token bucket per address holding that many, refilled at
	// that many a minute, so that a client joining and leaving over and
	// over cannot keep the host drawing scopes and building join pages (a
	// join of a large world costs the host a millisecond or more). Past it
	// a Hello gets Reject RejectFull (or its WelcomeAck does, when others
	// from the address were let in since its Welcome); only the joins
	// admitted spend it.
	// Default 8 for each of MaxPeersPerAddress (32 with its default 4);
	// negative: no bound.
	MaxJoinsPerAddress int
	// MaxSpectators is how many peers may watch (their Hello's spectator
	// flag, ClientConfig.Spectator) beside the players: a spectator takes no
	// player slot, and the layer above gives it nothing to own. Past it a
	// spectator's Hello gets Reject RejectFull. Default 0: the host takes no
	// spectators (Reject RejectDenied).
	MaxSpectators int
	// Grace is how long a peer whose connection broke after its join
	// finished is kept for it to resume on a new connection: its peer id and
	// slot stay reserved, its entities stay in the world (the other peers
	// keep seeing them), the game gets no input of it. Past it the peer
	// leaves. Default 30 s; negative: a broken connection ends the peer at
	// once.
	Grace time.Duration
	// Schema, if not 0, is the hash of what the game puts on the wire
	// (tandem.Game.Schema): a Hello or Resume stating another, or none, is
	// refused with RejectSchema. 0: not checked.
	Schema uint64
	// MaxResumesPerSecond bounds the resumes the host takes back host-wide
	// (each rejoins a peer: its state is sent again), a token bucket holding
	// one second; past it a Resume with a valid token gets Reject RejectFull
	// and its client tries again. Only a resume taken spends it: one whose
	// token is wrong is refused (RejectResume) after one hash, and one
	// refused for another reason (MaxResumesPerPeer, the address's bound,
	// Admit) spends none either, so neither strangers nor a player
	// resending its own Resumes can use it up to keep others from
	// resuming. Default the larger of 16 and MaxPeers+MaxSpectators, so
	// that every peer of a full host told to come back after a restart (or
	// resuming after a kill) is taken back at its first try, not 16 a
	// second: 48 players took 2.7 s to all come back at 16. (AdmitPerStep
	// paces them a few a step.)
	MaxResumesPerSecond int
	// MaxResumesPerPeer bounds the resumes accepted for one peer a minute (a
	// token bucket holding as many), so two clients sharing a token cannot
	// take a peer back and forth; past it Reject RejectFull. Only accepted
	// resumes count. Default 6.
	MaxResumesPerPeer int
}

// Arrival is a connection asking to be let in, as HostConfig.Admit sees it.
type Arrival struct {
	Name string   // the player's name (it follows wire.CheckName)
	Addr net.Addr // where the connection comes from
	// Resume is set for a peer resuming after its connection broke, Peer
	// being the peer it takes back (its entities are in the world, its
	// token checked); otherwise a new peer asks to join and Peer is 0.
	Resume bool
	Peer   ecs.PeerID
	// Spectator is set for a peer that watches (its Hello asked to, or the
	// peer it resumes did): it takes no player slot.
	Spectator bool
}

func (c *HostConfig) defaults() {
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.MaxPeers <= 0 {
		c.MaxPeers = 8
	}
	if c.HandshakeTimeout <= 0 {
		c.HandshakeTimeout = 3 * time.Second
	}
	if c.AdmitPerStep == 0 {
		c.AdmitPerStep = 4
	}
	if c.AckTimeout <= 0 {
		c.AckTimeout = 10 * time.Second
	}
	if c.JoinTimeout <= 0 {
		c.JoinTimeout = 120 * time.Second
	}
	if c.AcceptBacklog <= 0 {
		c.AcceptBacklog = 16
	}
	if c.MaxPending <= 0 {
		c.MaxPending = 32
	}
	if c.MaxPendingPerAddress <= 0 {
		c.MaxPendingPerAddress = 4
	}
	if c.MaxPeersPerAddress <= 0 {
		c.MaxPeersPerAddress = 4
	}
	if c.MaxJoinsPerAddress == 0 {
		c.MaxJoinsPerAddress = 8 * c.MaxPeersPerAddress
	}
	if c.Grace == 0 {
		c.Grace = 30 * time.Second
	}
	if c.MaxResumesPerSecond <= 0 {
		c.MaxResumesPerSecond = max(16, c.MaxPeers+max(c.MaxSpectators, 0))
	}
	if c.MaxResumesPerPeer <= 0 {
		c.MaxResumesPerPeer = 6
	}
}

// Host runs the host side of a session: it admits peers, replicates the world
// to them, and drops peers that break the rules. Create it with NewHost after
// adding the game's systems or before: its own go to the schedule's input and
// output stages.
//
// Serve and Accept are safe from any goroutine; every other method belongs
// to the simulation goroutine.
type Host struct {
	w     *ecs.World
	sched *ecs.Schedule
	reg   *replicate.Registry
	repl  *replicate.HostReplicator
	cfg   HostConfig

	incoming chan transport.Conn
	peers    []*hostPeer
	// The peers whose WelcomeAck waits its turn (AdmitPerStep), oldest
	// first, and the admissions since the last step's end.
	admitQueue []*hostPeer
	admissions int
	events     []Event
	stats      HostStats

	// knownPeers are the peers admitted and not gone, connected or away.
	knownPeers []*knownPeer
	ids        peerIDs // the peer ids: fresh, then free the longest first
	resumeRate bucket
	joins      joinRates // the joins of each address lately (MaxJoinsPerAddress)
	between    bool      // Handshake is under way (between steps)
	noHash     [32]byte  // what a Resume naming no known peer is compared with

	droppedFull atomic.Uint64
	shut        atomic.Bool // Close was called: the host's steps do nothing

	mu         sync.Mutex
	listeners  []transport.Listener
	cancel     context.CancelFunc
	ctx        context.Context
	closed     bool
	restarting bool // closed by CloseRestarting: its peers come back
	wg         sync.WaitGroup

	left int // peers gone for good (PeerLeft), for Dismiss's count
}

// HostStats counts the host's admissions and drops.
type HostStats struct {
	// Accepted counts connections taken from the listeners, Admitted those
	// that finished the handshake, Rejected those refused (counted when
	// the refusal is sent) or closed before it ended (timed out, evicted,
	// gone), Dropped admitted peers that left with an error. A host made
	// again on a save (a restart) counts from zero: its Resumed counts the
	// players who came back.
	Accepted, Admitted, Rejected, Dropped uint64
	// DroppedFull counts connections closed at accept because the backlog
	// was full (the oldest waiting makes room for the newest).
	DroppedFull uint64
	// Evicted counts connections closed during their handshake to make room
	// for a newer one (MaxPending, MaxPendingPerAddress).
	Evicted uint64
	// Disconnected counts peers whose connection broke and that were kept
	// for Grace; Resumed the resumes accepted; Expired the kept peers whose
	// window ran out. ResumeRefused counts resumes refused with RejectResume
	// (no such session: a wrong token, an expired window, an unfinished
	// join), ResumeLimited those refused by MaxResumesPerSecond or
	// MaxResumesPerPeer. A refused resume also counts in Rejected.
	Disconnected, Resumed, Expired, ResumeRefused, ResumeLimited uint64
	// JoinLimited counts the joins refused for their address's
	// MaxJoinsPerAddress (also counted in Rejected).
	JoinLimited uint64
	// AfterReject counts the messages (datagrams and lane messages) a
	// refused connection sent while its Reject was on its way and read,
	// which the host ignores: a client's own, sent before it read the
	// refusal, or a peer's that goes on regardless (bounded by the
	// connection's receive limits and the two seconds it is kept open).
	AfterReject uint64
}

// NewHost returns a host for sched's world replicating reg's components. It
// adds its systems to sched: "net.receive" to ecs.StageInput, "net.replicate"
// and "net.send" to ecs.StageOutput.
func NewHost(sched *ecs.Schedule, reg *replicate.Registry, cfg HostConfig) *Host {
	cfg.defaults()
	if cfg.Replication.StepRate == 0 {
		// The rate clients are told in Welcome: both sides predict motion by it.
		cfg.Replication.StepRate = float64(tickRate(sched))
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &Host{
		w:        sched.World(),
		sched:    sched,
		reg:      reg,
		repl:     replicate.NewHost(reg, cfg.Replication),
		cfg:      cfg,
		incoming: make(chan transport.Conn, cfg.AcceptBacklog),
		ctx:      ctx,
		cancel:   cancel,
	}
	rand.Read(h.noHash[:])
	sched.AddTo(ecs.StageInput, "net.receive", ecs.SystemFunc(h.receive))
	sched.AddTo(ecs.StageOutput, "net.replicate", ecs.Reporting(h.repl))
	if cfg.Replication.CheckReports && sched.Watch == nil {
		// A write without a report names the system that made it.
		sched.Watch = h.repl.WatchSystem
	}
	sched.AddTo(ecs.StageOutput, "net.send", ecs.Reporting(ecs.SystemFunc(h.send)))
	return h
}

// Replicator returns the host's replicator.
func (h *Host) Replicator() *replicate.HostReplicator { return h.repl }

// Stats returns the host's counters.
func (h *Host) Stats() HostStats {
	st := h.stats
	st.DroppedFull = h.droppedFull.Load()
	return st
}

// Serve accepts connections from l on a goroutine of its own until the host
// closes. Safe to call from any goroutine.
func (h *Host) Serve(l transport.Listener) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.listeners = append(h.listeners, l)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		for {
			tc, err := l.Accept(h.ctx)
			if err != nil {
				return
			}
			h.Accept(tc)
		}
	}()
}

// Accept hands the host a new connection. It never blocks: past the backlog
// the oldest connection waiting is closed to make room. Safe to call from any
// goroutine.
func (h *Host) Accept(tc transport.Conn) {
	h.mu.Lock()
	closed, restarting := h.closed, h.restarting
	h.mu.Unlock()
	if closed {
		refuse(tc, restarting)
		return
	}
	for {
		select {
		case h.incoming <- tc:
			return
		default:
		}
		select {
		case old := <-h.incoming:
			old.Close(transport.CloseLimit, busyReason+"too many connections at once; try again")
			h.droppedFull.Add(1)
		default:
		}
	}
}

// refuse closes tc, a connection that came to a closed host: with
// CloseHostRestarting after CloseRestarting (a client dialing again keeps
// dialing, for the next host), else CloseHostShutdown.
func refuse(tc transport.Conn, restarting bool) {
	if restarting {
		tc.Close(transport.CloseHostRestarting, "come back to the next host, which restores this world")
		return
	}
	tc.Close(transport.CloseHostShutdown, "the game has ended")
}

// Close stops accepting and closes every connection with
// CloseHostShutdown. Call it on the simulation goroutine (or once the
// simulation has stopped): closing reports in-flight datagrams lost to the
// replicator, which reads the world. The host's entities are not removed.
func (h *Host) Close() error {
	return h.closeWith(transport.CloseHostShutdown, "the game has ended")
}

// CloseRestarting closes as Close does, with CloseHostRestarting: each
// client that can resume (its ClientConfig.Dial set, a grace window given,
// its first join done) reconnects as after a broken connection, for the
// grace window, and resumes its peer on a host that restored this host's
// save (which keeps its players). Other clients end as with Close;
// connections not admitted yet, and those that arrive after, are closed
// with CloseHostRestarting too.
func (h *Host) CloseRestarting() error {
	return h.closeWith(transport.CloseHostRestarting, "come back to the next host, which restores this world")
}

// closeWith closes every connection with code and reason (Close).
func (h *Host) closeWith(code transport.CloseCode, reason string) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	h.restarting = code == transport.CloseHostRestarting
	h.shut.Store(true)
	h.cancel()
	for _, l := range h.listeners {
		l.Close()
	}
	h.mu.Unlock()
	h.wg.Wait()
	for _, p := range h.peers {
		p.closedFirst = p.c.Ended()
		p.c.Close(code, reason)
	}
	for {
		select {
		case tc := <-h.incoming:
			// Not admitted: told as the players are.
			refuse(tc, h.restarting)
		default:
			return nil
		}
	}
}

// Peers returns the admitted peers' ids, in admission order. The slice is new.
func (h *Host) Peers() []ecs.PeerID {
	var ids []ecs.PeerID
	for _, p := range h.peers {
		if p.admitted() {
			ids = append(ids, p.id)
		}
	}
	return ids
}

// PeerStats returns the connection statistics of peer id.
func (h *Host) PeerStats(id ecs.PeerID) (conn.Stats, replicate.PeerStats, bool) {
	for _, p := range h.peers {
		if p.admitted() && p.id == id {
			var rs replicate.PeerStats
			if p.rp != nil {
				rs = p.rp.Stats()
			}
			return p.c.Stats(), rs, true
		}
	}
	return conn.Stats{}, replicate.PeerStats{}, false
}

// ReportMalformed counts a malformed message from peer id, one the game or a
// layer above the session decoded and refused (an input that does not
// decode, say). Past the connection's MaxMalformed the peer is dropped with
// CloseProtocol, as for malformed datagrams.
func (h *Host) ReportMalformed(id ecs.PeerID, err error) {
	for _, p := range h.peers {
		if p.id == id && p.admitted() && !p.c.Closed() {
			p.c.ReportMalformed(err)
		}
	}
}

// Kick closes peer id's connection with CloseKicked and reason, and the
// peer leaves at the next step's reap, never kept for a resume: not if its
// link had broken just before, nor if a Resume of it arrives first (that
// Resume is refused, RejectResume, and a client that dials again by itself
// joins afresh as a new peer: keep it out with HostConfig.Admit). A peer
// away within its grace window leaves at once.
func (h *Host) Kick(id ecs.PeerID, reason string) {
	for _, p := range h.peers {
		if p.id == id && p.admitted() {
			p.endFor(transport.CloseKicked, reason)
		}
	}
	if k := h.known(id); k != nil && k.away() {
		h.end(k, "kicked: "+reason)
	}
}

// Events returns the events since the last call and forgets them. The slice
// is reused by the next call.
func (h *Host) Events() []Event {
	ev := h.events
	h.events = h.events[:0]
	return ev
}

func (h *Host) emit(e Event) {
	h.events = append(h.events, e)
	if len(h.events) > 1024 {
		// Nobody drains them: keep the newest.
		copy(h.events, h.events[512:])
		h.events = h.events[:len(h.events)-512]
	}
	if h.cfg.OnEvent != nil {
		h.cfg.OnEvent(e)
	}
}

// takeIncoming takes every connection the transport has handed over since
// the last look.
func (h *Host) takeIncoming(now time.Time) {
	for {
		select {
		case tc := <-h.incoming:
			h.take(tc, now)
		default:
			return
		}
	}
}

// receive takes new connections and polls every peer: the input stage.
// After Close it does nothing: the world stays as it was.
func (h *Host) receive(w *ecs.World) {
	if h.shut.Load() {
		return
	}
	now := h.cfg.Clock.Now()
	h.takeIncoming(now)
	h.admitQueued()
	for _, p := range h.peers {
		if !p.c.Closed() {
			p.c.Poll()
		}
		if m := p.heldResume; m != nil && !p.c.Closed() {
			// Taken between steps; the connection it replaces, earlier in
			// the list, was read first.
			fromLine := p.inLine
			p.heldResume, p.inLine = nil, false
			h.resume(p, *m, fromLine)
		}
		p.check(now)
	}
	h.reap(false)
	h.expire(now)
	h.pruneJoins(now)
}

// send closes peers whose join failed and flushes every connection: the
// last system of the output stage. Closed peers are removed, with their
// entities, at the next input stage, so the removals are journaled in a frame
// that replication still reads.
func (h *Host) send(w *ecs.World) {
	if h.shut.Load() {
		return
	}
	for _, p := range h.peers {
		if p.rp != nil && p.rp.Err() != nil && !p.c.Closed() {
			code := transport.CloseProtocol
			if errors.Is(p.rp.Err(), replicate.ErrJoinTooSlow) {
				code = transport.CloseJoinTooSlow
			}
			p.endFor(code, p.rp.Err().Error())
		}
		if !p.c.Closed() {
			p.c.Flush()
		}
		// A join's first round goes on between steps (Handshake tops it
		// up), also after a step that spent the budget or began the join.
		p.topUp = p.admitted() && p.rp != nil && p.rp.Joining() && !p.c.Closed()
	}
	h.admissions = 0
}

// reap removes closed peers and their entities; with handshakes, only the
// connections closed in their handshake (never admitted: nothing of the
// world is theirs), which Handshake lets go between steps, so that a flood
// of connections closed past MaxPending holds no memory until the step.
func (h *Host) reap(handshakes bool) {
	kept := h.peers[:0]
	for _, p := range h.peers {
		if !p.c.Closed() || handshakes && (p.admitted() || p.stage == stageReplaced) {
			kept = append(kept, p)
			continue
		}
		h.leave(p)
		h.ids.release(p.id, h.holds, h.cfg.Clock.Now()) // if nothing else holds it
	}
	for i := len(kept); i < len(h.peers); i++ {
		h.peers[i] = nil
	}
	h.peers = kept
}

func (h *Host) leave(p *hostPeer) {
	if p.stage == stageReplaced {
		return // its peer lives on, on the connection that replaced it
	}
	err := p.cause()
	var ce *transport.CloseError
	if errors.As(err, &ce) && ce.Code == transport.CloseNormal {
		err = nil
	}
	if !p.admitted() {
		if p.refusal == nil { // its refusal was told when it was made (reject)
			h.refused(p, err)
		}
		return
	}
	if h.park(p, err) {
		return
	}
	if p.kp != nil {
		h.forgetKnown(p.kp)
	}
	if err != nil {
		h.stats.Dropped++
	}
	h.repl.RemovePeer(p.id)
	h.gone(p.id, p.name, err)
}

// gone ends peer id for good: its owned entities are removed (or given to
// the host, with KeepEntities, or those Keep keeps), then PeerLeft and
// OnLeave.
func (h *Host) gone(id ecs.PeerID, name string, err error) {
	switch {
	case h.cfg.KeepEntities:
		owned := h.w.Owned(id)
		for len(owned) > 0 {
			ecs.SetOwner(h.w, owned[len(owned)-1], ecs.HostPeer)
			owned = h.w.Owned(id)
		}
	case h.cfg.Keep != nil:
		h.keepOrRemove(id)
	default:
		h.removeOwned(id)
	}
	h.left++
	h.emit(Event{Kind: PeerLeft, Peer: id, Name: name, Err: err})
	if h.cfg.OnLeave != nil {
		h.cfg.OnLeave(id, err)
	}
}

// keepOrRemove gives the host each entity peer id owns that Keep keeps,
// and removes the others.
func (h *Host) keepOrRemove(id ecs.PeerID) {
	owns := func(e arche.Entity) bool {
		ni, ok := h.w.Identity(e)
		return ok && ni.Owner == id
	}
	for _, e := range append([]arche.Entity(nil), h.w.Owned(id)...) {
		if !owns(e) {
			continue // Keep, asked about another, removed it or gave it away
		}
		keep := h.cfg.Keep(id, e)
		if !owns(e) {
			continue
		}
		if keep {
			ecs.SetOwner(h.w, e, ecs.HostPeer)
		} else {
			h.w.Arche().RemoveEntity(e)
		}
	}
}

// removeOwned removes every entity peer id owns.
func (h *Host) removeOwned(id ecs.PeerID) {
	doomed := append([]arche.Entity(nil), h.w.Owned(id)...)
	for _, e := range doomed {
		h.w.Arche().RemoveEntity(e)
	}
}

// tickRate is the simulation steps per second Welcome announces.
func tickRate(sched *ecs.Schedule) uint16 { return uint16(time.Second / sched.StepDuration()) }

// lineage returns the lineage of the host's world as its answers name it
// (Welcome, Resumed).
func (h *Host) lineage() wire.Lineage {
	var buf [ecs.MaxLineage]ecs.RunStart
	var l wire.Lineage
	for _, run := range h.w.Lineage(buf[:0]) {
		l.Runs[l.N] = wire.RunStart{Run: run.Run, Fresh: uint32(run.Fresh)}
		l.N++
	}
	return l
}

// The world's lineage and the wire's list as many runs.
const _ = uint(ecs.MaxLineage-wire.MaxLineage) + uint(wire.MaxLineage-ecs.MaxLineage)
