package session

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
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
	// MaxPeers is the most peers admitted at once. Default 8.
	MaxPeers int
	// Replication tunes the replicator (send rate, budget, join pacing,
	// scope).
	Replication replicate.HostConfig
	// Conn tunes every peer's connection (limits, budget).
	Conn conn.Config
	// OnJoin is called when a peer is admitted, before its join starts: the
	// game spawns the player's entities there, owned by peer.
	OnJoin func(peer ecs.PeerID, name string)
	// OnLeave is called when a peer left, after its owned entities were
	// removed (or kept, see KeepEntities).
	OnLeave func(peer ecs.PeerID, err error)
	// KeepEntities keeps a leaving peer's entities in the world, given to the
	// host; by default they are removed.
	KeepEntities bool
	// OnMessage receives datagram messages of kinds the session does not
	// handle itself (inputs, the game's own kinds) from admitted peers.
	// payload is valid only during the call.
	OnMessage func(peer ecs.PeerID, kind wire.Kind, payload []byte)
	// OnLaneMessage receives lane messages the session does not handle (the
	// commands lane, the game's lane kinds) from admitted peers.
	OnLaneMessage func(peer ecs.PeerID, lane transport.Lane, msg []byte)
	// OnEvent, if set, receives every event as it happens.
	OnEvent func(Event)
	// HandshakeTimeout drops a connection that has not said Hello. Default 5 s.
	HandshakeTimeout time.Duration
	// AckTimeout drops a peer that acknowledges nothing for this long while
	// datagrams to it are outstanding. Default 10 s.
	AckTimeout time.Duration
	// JoinTimeout drops a peer whose join has not finished in this long.
	// Default 120 s.
	JoinTimeout time.Duration
	// AcceptBacklog bounds the connections accepted and not yet taken by the
	// simulation. Default 16.
	AcceptBacklog int
	// MaxPending bounds the connections that have not said Hello yet; more
	// are closed at once. Default 32.
	MaxPending int
}

func (c *HostConfig) defaults() {
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.MaxPeers <= 0 {
		c.MaxPeers = 8
	}
	if c.HandshakeTimeout <= 0 {
		c.HandshakeTimeout = 5 * time.Second
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
	events   []Event
	stats    HostStats

	droppedFull atomic.Uint64

	mu        sync.Mutex
	listeners []transport.Listener
	cancel    context.CancelFunc
	ctx       context.Context
	closed    bool
	wg        sync.WaitGroup
}

// HostStats counts the host's admissions and drops.
type HostStats struct {
	Accepted, Admitted, Rejected, Dropped uint64
	// DroppedFull counts connections refused at accept because the backlog
	// was full.
	DroppedFull uint64
}

// NewHost returns a host for sched's world replicating reg's components. It
// adds its systems to sched: "net.receive" to ecs.StageInput, "net.replicate"
// and "net.send" to ecs.StageOutput.
func NewHost(sched *ecs.Schedule, reg *replicate.Registry, cfg HostConfig) *Host {
	cfg.defaults()
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
	sched.AddTo(ecs.StageInput, "net.receive", ecs.SystemFunc(h.receive))
	sched.AddTo(ecs.StageOutput, "net.replicate", h.repl)
	sched.AddTo(ecs.StageOutput, "net.send", ecs.SystemFunc(h.send))
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
// the connection is closed at once. Safe to call from any goroutine.
func (h *Host) Accept(tc transport.Conn) {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		tc.Close(transport.CloseHostShutdown, "host shutting down")
		return
	}
	select {
	case h.incoming <- tc:
	default:
		tc.Close(transport.CloseLimit, "host busy: too many connections waiting; try again")
		h.droppedFull.Add(1)
	}
}

// Close stops accepting and closes every connection with
// CloseHostShutdown. Call it on the simulation goroutine (or once the
// simulation has stopped): closing reports in-flight datagrams lost to the
// replicator, which reads the world. The host's entities are not removed.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	h.cancel()
	for _, l := range h.listeners {
		l.Close()
	}
	h.mu.Unlock()
	h.wg.Wait()
	for _, p := range h.peers {
		p.c.Close(transport.CloseHostShutdown, "host shutting down")
	}
	for {
		select {
		case tc := <-h.incoming:
			tc.Close(transport.CloseHostShutdown, "host shutting down")
		default:
			return nil
		}
	}
}

// Peers returns the admitted peers' ids, in admission order. The slice is new.
func (h *Host) Peers() []ecs.PeerID {
	var ids []ecs.PeerID
	for _, p := range h.peers {
		if p.admitted {
			ids = append(ids, p.id)
		}
	}
	return ids
}

// PeerStats returns the connection statistics of peer id.
func (h *Host) PeerStats(id ecs.PeerID) (conn.Stats, replicate.PeerStats, bool) {
	for _, p := range h.peers {
		if p.admitted && p.id == id {
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
		if p.id == id && p.admitted && !p.c.Closed() {
			p.c.ReportMalformed(err)
		}
	}
}

// Kick closes peer id's connection with CloseKicked and reason.
func (h *Host) Kick(id ecs.PeerID, reason string) {
	for _, p := range h.peers {
		if p.id == id {
			p.c.Close(transport.CloseKicked, reason)
		}
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

// receive takes new connections and polls every peer: the input stage.
func (h *Host) receive(w *ecs.World) {
	now := h.cfg.Clock.Now()
	for {
		select {
		case tc := <-h.incoming:
			h.stats.Accepted++
			if h.pending() >= h.cfg.MaxPending {
				tc.Close(transport.CloseLimit, "host busy: too many connections handshaking; try again")
				h.stats.Rejected++
				continue
			}
			p := &hostPeer{h: h, since: now, lastAck: now}
			c, err := conn.New(tc, h.cfg.Clock, p, h.cfg.Conn)
			if err != nil {
				tc.Close(transport.CloseProtocol, "host misconfigured")
				continue
			}
			p.c = c
			h.peers = append(h.peers, p)
			continue
		default:
		}
		break
	}
	for _, p := range h.peers {
		if !p.c.Closed() {
			p.c.Poll()
		}
		p.check(now)
	}
	h.reap()
}

// send closes peers whose join failed and flushes every connection: the
// last system of the output stage. Closed peers are removed, with their
// entities, at the next input stage, so the removals are journaled in a frame
// that replication still reads.
func (h *Host) send(w *ecs.World) {
	for _, p := range h.peers {
		if p.rp != nil && p.rp.Err() != nil && !p.c.Closed() {
			code := transport.CloseProtocol
			if errors.Is(p.rp.Err(), replicate.ErrJoinTooSlow) {
				code = transport.CloseJoinTooSlow
			}
			p.c.Close(code, p.rp.Err().Error())
		}
		if !p.c.Closed() {
			p.c.Flush()
		}
	}
}

// reap removes closed peers and their entities.
func (h *Host) reap() {
	kept := h.peers[:0]
	for _, p := range h.peers {
		if !p.c.Closed() {
			kept = append(kept, p)
			continue
		}
		h.leave(p)
	}
	for i := len(kept); i < len(h.peers); i++ {
		h.peers[i] = nil
	}
	h.peers = kept
}

func (h *Host) leave(p *hostPeer) {
	err := p.c.Err()
	var ce *transport.CloseError
	if errors.As(err, &ce) && ce.Code == transport.CloseNormal {
		err = nil
	}
	if !p.admitted {
		h.stats.Rejected++
		h.emit(Event{Kind: PeerRejected, Peer: p.id, Name: p.name, Err: err})
		return
	}
	if err != nil {
		h.stats.Dropped++
	}
	h.repl.RemovePeer(p.id)
	owned := h.w.Owned(p.id)
	if h.cfg.KeepEntities {
		for len(owned) > 0 {
			ecs.SetOwner(h.w, owned[len(owned)-1], ecs.HostPeer)
			owned = h.w.Owned(p.id)
		}
	} else {
		doomed := append([]arche.Entity(nil), owned...)
		for _, e := range doomed {
			h.w.Arche().RemoveEntity(e)
		}
	}
	h.emit(Event{Kind: PeerLeft, Peer: p.id, Name: p.name, Err: err})
	if h.cfg.OnLeave != nil {
		h.cfg.OnLeave(p.id, err)
	}
}

// pending counts connections that have not said Hello yet.
func (h *Host) pending() int {
	n := 0
	for _, p := range h.peers {
		if !p.admitted && !p.c.Closed() {
			n++
		}
	}
	return n
}

// freePeerID returns the lowest peer id no live peer holds, or 0 if none is
// free.
func (h *Host) freePeerID() ecs.PeerID {
	for id := ecs.PeerID(1); id != 0; id++ {
		taken := false
		for _, p := range h.peers {
			if p.admitted && p.id == id {
				taken = true
				break
			}
		}
		if !taken {
			return id
		}
	}
	return 0
}

func (h *Host) admitted() int {
	n := 0
	for _, p := range h.peers {
		if p.admitted && !p.c.Closed() {
			n++
		}
	}
	return n
}

// admit answers a Hello: Welcome and a join, or Reject and a close.
func (h *Host) admit(p *hostPeer, hello wire.Hello) {
	reject := func(code wire.RejectCode, close transport.CloseCode, reason string) {
		msg, _ := wire.Reject{Code: code, Version: wire.Version, Reason: reason}.Encode(nil)
		p.c.SendLane(transport.LaneControl, msg)
		p.c.Close(close, reason)
	}
	switch {
	case hello.Version != wire.Version:
		reject(wire.RejectVersion, transport.CloseVersion,
			fmt.Sprintf("host speaks protocol %d, client %d; update the older side", wire.Version, hello.Version))
		return
	case h.admitted() >= h.cfg.MaxPeers || h.freePeerID() == 0:
		reject(wire.RejectFull, transport.CloseNormal, fmt.Sprintf("host full (%d players); try again later", h.cfg.MaxPeers))
		return
	}
	p.id = h.freePeerID()
	p.name = hello.Name
	p.admitted = true
	var token [wire.TokenLen]byte
	rand.Read(token[:])
	step := h.sched.StepDuration()
	tick := uint16(time.Second / step)
	send := uint16(max(1, int(tick)/max(1, h.repl.Config().SendEvery)))
	p.c.SendLane(transport.LaneControl, wire.Welcome{PeerID: uint32(p.id), Token: token, TickRate: tick, SendRate: send, Frame: uint64(h.w.Frame())}.Encode(nil))
	h.stats.Admitted++
	if h.cfg.OnJoin != nil {
		h.cfg.OnJoin(p.id, p.name)
	}
	p.rp = h.repl.AddPeer(p.id, p)
	p.joinStart = h.cfg.Clock.Now()
	h.emit(Event{Kind: PeerJoined, Peer: p.id, Name: p.name})
}
