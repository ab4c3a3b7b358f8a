package tandem

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/interp"
	"github.com/tandem-go/tandem/net/predict"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// Event is something that happened to a peer or a session, as observers added
// with OnEvent hear it, on the simulation goroutine.
type Event = session.Event

// HostConfig tunes a Host. The zero value hosts up to 8 peers, sending state
// at half the step rate, on the real clock.
type HostConfig struct {
	// Clock is the time source. Default clock.Real.
	Clock clock.Clock
	// MaxPeers is the most peers admitted at once. Default 8.
	MaxPeers int
	// SendEvery sends state every this many steps. Default 2: 30 Hz at
	// 60 Hz. Clients learn the rate from the host.
	SendEvery int
	// Replication tunes the replicator further (budget, priority, scope);
	// its SendEvery and StepRate are set from the fields above.
	Replication replicate.HostConfig
	// Interp tunes how the host draws its world; its Step is the Game's.
	Interp interp.Config
	// Name is the name of the player at the host's machine in the roster
	// (Game.Roster). Empty: the host has no roster entry (nobody plays at
	// it).
	Name string
	// Grace is how long a peer whose connection broke is kept for it to
	// come back on a new one (its client reconnects by itself): its peer id
	// and slot stay reserved, its entities stay in the world and the other
	// peers keep seeing them, its Input is the zero input meanwhile. Then it
	// leaves (Game.Leave). Default 30 s; negative: a broken connection ends
	// the peer at once.
	Grace time.Duration
	// Admit, if set, decides on a connection that asks to be let in (a new
	// player's Hello, or a Resume) before anything is given to it: nil lets
	// it on (Game.Join then runs for a new player), an error refuses it with
	// a Reject whose reason is the error's text. See session.Arrival.
	Admit func(a session.Arrival) error
}

// Host runs a game that peers join over the network: it simulates the world,
// takes each peer's inputs for each frame, routes them to the entities the
// peer owns (Input), and replicates the world to every peer. It is a Local
// (Run, Advance, View, SetInput for a player at the host's machine) with a
// session around it. Create it with NewHost, give it connections with Serve
// or Accept, and Close it at the end.
type Host[I comparable] struct {
	*Local[I]
	session  *session.Host
	inputs   *predict.HostInputs[I]
	names    map[ecs.PeerID]string
	roster   *roster            // nil without Game.Roster
	resumed  map[ecs.PeerID]int // resumes of each peer
	stats    HostStats
	events   []func(Event)
	closing  sync.Once
	closeErr error
	closed   bool
}

// HostStats counts a host's peers.
type HostStats struct {
	// Peers is the number admitted now, Away among them the peers whose
	// connection broke and that may still resume; Joined counts every peer
	// admitted since the start, Left those that left, Refused those the
	// Join hook refused, Resumed the times a peer came back on a new
	// connection.
	Peers, Away, Joined, Left, Refused, Resumed int
	// Malformed counts input messages refused as malformed; past the
	// connection's limit the peer is dropped.
	Malformed int
}

// NewHost builds g's world as the host's and the session around it. Nothing
// is accepted until Serve or Accept.
func NewHost[I comparable](g *Game[I], cfg HostConfig) (*Host[I], error) {
	l, err := newLocal(g, Hosting, LocalConfig{Clock: cfg.Clock, Interp: cfg.Interp})
	if err != nil {
		return nil, err
	}
	h := &Host[I]{Local: l, names: map[ecs.PeerID]string{}, resumed: map[ecs.PeerID]int{}}
	h.Local.ip.SetLocal(ecs.HostPeer)
	w := h.w
	reg := replicate.NewEmptyRegistry(w.ECS)
	for _, c := range g.replicated() {
		c.register(reg)
	}
	rc := cfg.Replication
	rc.SendEvery = cfg.SendEvery
	rc.StepRate = 1 / g.step().Seconds()
	h.session = session.NewHost(w.Schedule, reg, session.HostConfig{
		Clock:       h.clk,
		MaxPeers:    cfg.MaxPeers,
		Replication: rc,
		Grace:       cfg.Grace,
		Admit:       cfg.Admit,
		OnJoin:      h.join,
		OnLeave:     h.leave,
		OnMessage:   h.message,
		OnEvent:     h.event,
	})
	h.inputs = predict.NewHostInputs(w.ECS, g.Input, predict.HostInputConfig[I]{Replicator: h.session.Replicator()})
	w.Schedule.AddTo(ecs.StageInput, "predict.inputs", h.inputs)
	h.routeLocal(h.input)
	if g.Roster {
		h.roster = newRoster(w, func(p ecs.PeerID) (time.Duration, bool) {
			cs, _, ok := h.session.PeerStats(p)
			return cs.RTT, ok
		})
		if cfg.Name != "" {
			h.roster.add(ecs.HostPeer, cfg.Name)
		}
	}
	return h, nil
}

// input is the input of peer p for the frame: the host's own for HostPeer,
// else what p sent, the zero input before its first one and while its
// connection is broken (its last input is not repeated).
func (h *Host[I]) input(p ecs.PeerID) (I, bool) {
	if p == ecs.HostPeer {
		return h.keys, true
	}
	in, ok := h.inputs.Input(p)
	if !ok {
		var zero I
		return zero, true
	}
	return *in, true
}

// join runs the Game's Join hook for a peer the session is about to admit;
// a refusal goes back to the session, which refuses the peer with the hook's
// reason (a Reject: the client reads it, and no slot was taken).
func (h *Host[I]) join(peer ecs.PeerID, name string) error {
	if h.g.Join != nil {
		if err := h.g.Join(h.w, Peer{ID: peer, Name: name}); err != nil {
			h.stats.Refused++
			return err
		}
	}
	h.names[peer] = name
	h.stats.Joined++
	if h.roster != nil {
		h.roster.add(peer, name)
	}
	return nil
}

// leave forgets a peer: the session has removed its entities.
func (h *Host[I]) leave(peer ecs.PeerID, err error) {
	name, ok := h.names[peer]
	delete(h.names, peer)
	delete(h.resumed, peer)
	h.inputs.RemovePeer(peer)
	if h.roster != nil {
		h.roster.remove(peer)
	}
	if !ok {
		return
	}
	h.stats.Left++
	if h.g.Leave != nil {
		h.g.Leave(h.w, Peer{ID: peer, Name: name})
	}
}

// message takes a peer's input messages; malformed ones count against the
// peer's connection, which drops a peer that keeps sending them.
func (h *Host[I]) message(peer ecs.PeerID, kind wire.Kind, payload []byte) {
	if kind != wire.KindInput {
		return
	}
	if err := h.inputs.Receive(peer, payload); errors.Is(err, predict.ErrMalformed) {
		h.stats.Malformed++
		h.session.ReportMalformed(peer, err)
	}
}

func (h *Host[I]) event(e Event) {
	switch e.Kind {
	case session.PeerDisconnected:
		// Its input is the zero input until it comes back.
		h.inputs.RemovePeer(e.Peer)
	case session.PeerResumed:
		h.inputs.Resume(e.Peer, e.Frame)
		h.stats.Resumed++
		h.resumed[e.Peer]++
	}
	for _, fn := range h.events {
		fn(e)
	}
}

// OnEvent adds fn to the observers of the host's events (a peer joined, is
// ready, left, was refused); they run in the order added, on the simulation
// goroutine. Safe from any goroutine.
func (h *Host[I]) OnEvent(fn func(Event)) {
	h.mu.Lock()
	h.events = append(h.events, fn)
	h.mu.Unlock()
}

// Serve accepts connections from l until the host closes. Safe from any
// goroutine.
func (h *Host[I]) Serve(l transport.Listener) { h.session.Serve(l) }

// Accept hands the host one connection (tests, custom listeners). Safe from
// any goroutine.
func (h *Host[I]) Accept(c transport.Conn) { h.session.Accept(c) }

// Close tells every peer the host is shutting down, stops accepting and makes
// Run return ErrClosed. It waits for the step under way to end; the world
// stays as it is. A second Close returns what the first did. Safe from any
// goroutine, except from inside a View or Do callback or a hook.
func (h *Host[I]) Close() error {
	h.closing.Do(func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.closeErr = h.session.Close()
		h.closed = true
	})
	return h.closeErr
}

// Run steps the world at its fixed rate on the calling goroutine until ctx is
// done (it returns nil) or the host is closed (ErrClosed).
func (h *Host[I]) Run(ctx context.Context) error {
	h.done = func() error {
		if h.closed {
			return ErrClosed
		}
		return nil
	}
	return h.run(ctx)
}

// Stats returns the peer counts. Safe from any goroutine.
func (h *Host[I]) Stats() HostStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.stats
	s.Peers = len(h.names)
	s.Away = len(h.session.Away())
	return s
}

// PeerStats are the figures of one peer on the host's net graph.
type PeerStats struct {
	Peer ecs.PeerID
	Name string
	// RTT is the smoothed round trip to the peer; Loss the recent fraction of
	// datagrams lost (0..1).
	RTT  time.Duration
	Loss float64
	// KbitIn and KbitOut are the traffic of the last second, kbit/s.
	KbitIn, KbitOut float64
	// Buffered is how many frames of the peer's input wait ahead of the
	// host's frame (negative: they arrive late); Late counts the inputs that
	// came after their frame.
	Buffered int
	Late     uint64
	// Inputs counts the peer's inputs since it joined or last resumed.
	Inputs predict.InputStats
	// Replication counts what the host's replicator sent the peer: items,
	// spawns and removals, entities that entered and left its scope.
	Replication replicate.PeerStats
	// Resumes counts the times the peer's connection broke and it came
	// back on a new one.
	Resumes int
}

// AppendPeerStats appends the figures of every admitted peer to dst, in peer
// order, and returns the extended slice. Call it on the simulation goroutine
// (inside View or Do).
func (h *Host[I]) AppendPeerStats(dst []PeerStats) []PeerStats {
	for _, peer := range h.session.Peers() {
		cs, rs, ok := h.session.PeerStats(peer)
		if !ok {
			continue
		}
		s := PeerStats{
			Peer:        peer,
			Name:        h.names[peer],
			RTT:         cs.RTT,
			Loss:        cs.LossRate,
			KbitIn:      cs.BytesInPerSec * 8 / 1000,
			KbitOut:     cs.BytesOutPerSec * 8 / 1000,
			Replication: rs,
			Resumes:     h.resumed[peer],
		}
		if in := h.inputs.Peer(peer); in != nil {
			s.Buffered = in.Buffered()
			s.Inputs = in.Stats()
			s.Late = s.Inputs.Late
		}
		dst = append(dst, s)
	}
	return dst
}

// KnownPeers appends to dst the identity of every peer the host knows,
// connected or away within its grace window (peer id, name, the SHA-256 of
// its session token), and returns the extended slice: what a save keeps so
// that those players can resume into the world restored from it. Call it on
// the simulation goroutine (inside Do, a system or a hook).
func (h *Host[I]) KnownPeers(dst []session.KnownPeer) []session.KnownPeer {
	return h.session.KnownPeers(dst)
}

// RestorePeers reserves the known peers of a restored world: each may
// resume with the token its client kept, within window (HostConfig.Grace if
// 0) from now, as the peer that owns its entities in the world; one that does
// not leaves then, its entities removed, Game.Leave called. Their entities
// are the restored world's. Call it on the simulation goroutine, before
// serving; see session.Host.RestorePeers.
func (h *Host[I]) RestorePeers(peers []session.KnownPeer, window time.Duration) error {
	if err := h.session.RestorePeers(peers, window); err != nil {
		return err
	}
	for _, p := range peers {
		h.names[p.Peer] = p.Name
	}
	return nil
}

// String describes the host for logs.
func (h *Host[I]) String() string {
	s := h.Stats()
	return fmt.Sprintf("host: %d peers (%d away; %d joined, %d left, %d refused, %d resumes)", s.Peers, s.Away, s.Joined, s.Left, s.Refused, s.Resumed)
}
