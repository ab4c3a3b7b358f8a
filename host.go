package tandem

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/interp"
	"github.com/tandem-go/tandem/net/command"
	"github.com/tandem-go/tandem/net/predict"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/store"
)

// Event is something that happened to a peer or a session, as observers added
// with OnEvent hear it, on the simulation goroutine (or on the goroutine
// calling Host.Close, for the players it lets go).
type Event = session.Event

// HostConfig tunes a Host. The zero value hosts up to 8 players, sending
// state at half the step rate, on the real clock, with the world in memory
// only.
type HostConfig struct {
	// Clock is the time source. Default clock.Real.
	Clock clock.Clock
	// MaxPeers is the number of player slots: player MaxPeers+1 is refused
	// as the game being full, with a Reject before anything is given to it
	// (its client's Err wraps a *session.RejectError: errors.As). A known
	// player holds its slot and gets back into it at capacity: one whose
	// connection broke, within Grace, and one a restored save lists, not
	// yet back. The host's own player (Name) takes none. Default 8.
	MaxPeers int
	// Spectators is how many peers may watch (ClientConfig.Spectator)
	// beside the players: they take no player slot, own nothing, and their
	// inputs and commands are refused. Past it a spectator gets a Reject.
	// Default 0: none (a spectator is refused, with a reason that says so).
	Spectators int
	// AcceptBacklog bounds the connections that arrived and wait for the
	// host's next step to start their handshakes: past it the oldest is
	// closed (transport.CloseLimit, "host busy: too many connections at
	// once; try again"). Default MaxPeers and Spectators, at least 16: a
	// whole match may connect between two steps. As many handshakes may be
	// under way at once (at least 32); past that the oldest silent one is
	// closed as busy (the oldest welcomed one when none is silent), and its
	// client, given ClientConfig.Dial, says Hello again on a new connection
	// after a pause.
	AcceptBacklog int
	// MaxPeersPerAddress bounds the players and spectators admitted from
	// one IP address (a household behind one router shares one address; an
	// IPv6 one, its /64), those away within their grace window (Grace)
	// counted by their last connection's: past it a peer is refused, its
	// client told the host is full for its address. Past it (or 4) the joins under way
	// from an address are bounded too: the oldest is closed, its client
	// told to try again. Default 4. Raise it where many come from one address by
	// design: bots or a test on this machine's loopback
	// (tandemtest.NewLoopback does), players behind one proxy; a QUIC
	// listener bounds the handshakes in progress from an address as well
	// (quicnet.Config.MaxHandshakesPerAddress, 4): an attempt past it must
	// prove its address, and one past it again is refused, its dial
	// failing with transport.ErrBusy, which a client given
	// ClientConfig.Dial dials again after a pause.
	MaxPeersPerAddress int
	// MaxJoinsPerAddress bounds the joins (players and spectators let in;
	// resumes are bounded apart) from one IP address a minute, so that a
	// client that joins and leaves over and over cannot keep the host
	// drawing scopes and building join pages: past it a join is refused,
	// its client told to try again in a few seconds. Default 8 for each of
	// MaxPeersPerAddress (32 with its default 4); negative: no bound.
	MaxJoinsPerAddress int
	// AdmitPerStep bounds the players (and spectators) let in per step: each begins its
	// join in the step after, drawing its scope of the world and its first
	// pages, which with a large world costs the host a millisecond or more,
	// so a crowd that answers at once comes in a few a step, in the order
	// they answered (16 at the default: 4 steps; with 100,000 entities the
	// longest step 9 ms instead of 26). Resumes count toward it and wait
	// their turn alike: the crowd of a restart comes back a few a step, each
	// at its first try.
	// Default 4; negative: no bound.
	AdmitPerStep int
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
	// Logger hears what the host has to say that no call returns: a
	// command that panicked, when OnCommandPanic is nil (an error, with the
	// panic and its stack), and Run, View, Do, Step or Advance waiting for
	// the world while one call of the game's code has held it for seconds
	// (a warning), and a player whose state budget
	// (Replication.BitsPerSecond) held changes back for 5 s on end (a
	// warning, at most once a minute a player). The transport logs through
	// its own (quicnet.Config's Logger). Nil: slog.Default().
	Logger *slog.Logger

	// SaveTo is where the world is saved: the path of a bbolt file
	// (created when missing; its directory must exist) or a postgres:// URL
	// (see store.Open). The host opens it, takes the lease of the world
	// called World, restores the newest save (refusing to start on one
	// that does not read: see NewHost), saves as the world changes, and
	// closes it at Close. Close lets the players go (Leave, their entities
	// removed) before its final save, so a host started on that save has
	// none of them; CloseForRestart keeps them in it, to resume. Players
	// come back over QUIC only to the same host: one whose certificate
	// matches the pin they hold. SaveTo keeps the world, not the
	// certificate: a host restarted on a new one is refused by them (its
	// fingerprint is not the pinned one). For restarts, open the save with
	// OpenSave, give its World to Store and its Identity to the transport
	// (Identity.Apply). Empty, with Store nil: the world lives in memory
	// only, and receipts go out at once.
	SaveTo string
	// Store, instead of SaveTo, is a world already opened (its lease taken)
	// to save to; the host restores from it and never closes it.
	Store store.World
	// World is the world's name in the store SaveTo opens. Default "world".
	World string
	// SaveEvery is how often the host saves what changed when no command
	// asks for a save sooner (commands are saved at the end of the frame
	// they ran in, and a player's joining or leaving at the end of its
	// step: a host restarted after a crash knows who played, and holds no
	// place for a player who had left and joined again). Default 5 s.
	SaveEvery time.Duration
	// SaveTimeout bounds one commit; a commit that takes longer fails and is
	// retried. Default 10 s, of the machine's time (a context deadline), not
	// Clock's: a test on a fake clock whose store hangs sees no timeout.
	SaveTimeout time.Duration
	// OnRestore, if set, hears of each restore (at NewHost, and whenever a
	// released world is loaded again), on the goroutine that restores; a
	// store with no save yet is heard of too, as a new world (Seq 0).
	OnRestore func(RestoreReport)
	// OnSaveError, if set, hears of each failed save, on the simulation
	// goroutine. The host keeps its world, withholds the receipts the save
	// held, and tries again (see SaveStats). It hears too of each failure to
	// read the store when a released world (IdleUnload) loads again, tried
	// again as well (SaveStats.ReloadFailures).
	OnSaveError func(error)
	// OnSave, if set, hears of each save that landed (durable), on the
	// simulation goroutine, before the receipts it frees go out.
	OnSave func(SavedReport)
	// IdleUnload, if positive, releases the world once nobody has played,
	// watched or held a place in it for this long (no connection, no known
	// player, no View or Do): it is saved and dropped from memory, and
	// loaded again from the save when the next connection arrives (or a
	// View or Do wants it); World returns nil meanwhile. A store that cannot
	// be read just then is tried again after a growing pause while the
	// connections wait (View and Do skip their callback meanwhile); a save
	// that no longer loads stops the host (Err). Released, the host holds
	// its world's lease but checks it only as it loads the world again: a
	// world another host took meanwhile stops this one then (Err, a
	// store.ErrFenced), not before. It needs a store. Default 0: the world
	// stays.
	IdleUnload time.Duration
	// Grace is how long a peer whose connection broke is kept for it to
	// come back on a new one (its client reconnects by itself): its peer id
	// and slot stay reserved, its entities stay in the world and the other
	// peers keep seeing them, its Input is the zero input meanwhile. Then it
	// leaves (Game.Leave). It counts from when the host notices the break:
	// at once when the connection closes, else once a datagram the host sent
	// has gone unanswered for 10 s (or the transport's idle timeout ends the
	// connection, 10 s over QUIC by default), so a player whose link went
	// dark stays in the world some 10 s and Grace (its client gives up on
	// the link after 5 s and dials again). The players a restored save lists are kept so
	// for Grace from the restore, their clients resuming into the restored
	// world (see NewHost): a world that moves to another host of a fleet
	// needs Grace to outlast the old host's noticing it lost the world (a
	// second or so), its players' redial and their way to the new host, or
	// they come back as new players. Default 30 s; negative: a broken connection ends
	// the peer at once (a restore still holds the save's players for 30 s:
	// the restart was the host's, not their connections breaking).
	Grace time.Duration
	// MaxInputRepeat is for how many frames after its stamp a player's
	// last input is repeated while its next inputs are missing (late, or
	// lost with their copies); then its Input is the zero input, not Live,
	// until its inputs come again, so a client that stalls or vanishes
	// without closing stands still rather than running on until its
	// connection times out. Default 15 (a quarter of a second at 60 Hz);
	// negative: repeated without end (predict.HostInputConfig.MaxRepeat).
	MaxInputRepeat int
	// MaxRewind is how far back the host keeps the poses of the entities
	// marked LagCompensated, and the furthest behind a player's view
	// (Input.View) goes, whatever its client says it drew: a hit test
	// (World.Seen) never looks further back. A player whose round trip and
	// render delay together pass it aims ahead of what she sees (a client
	// draws the world it does not predict its round trip, its input buffer
	// and its render delay behind its frame: 430 ms at 100 ms each way, 550
	// at 120 ms with jitter and loss). A longer bound lets a cheating client
	// choose among more of the past. Default 1 s (Source's sv_maxunlag);
	// rounded up to whole steps, at most predict.RewindLimit (256) of them;
	// negative: no rewind, every view is the present.
	MaxRewind time.Duration
	// Admit, if set, decides on a connection that asks to be let in (a new
	// player's Hello, or a Resume) before anything is given to it: nil lets
	// it on (Game.Join then runs for a new player), an error refuses it with
	// a Reject whose reason is the error's text. See session.Arrival.
	Admit func(a session.Arrival) error

	// Receipts is how many receipts the host keeps per player, those of
	// the highest operation ids that ran: a command sent again within that
	// many newer ones gets its first answer, an older one is refused as
	// expired. Default and least: 64 (command.DefaultPending), the span of
	// the ids a client holds without a receipt (it sends none 64 past the
	// oldest it holds), any of which it may send again after a restart: a
	// smaller book would answer one that ran "expired", which says it did
	// not.
	Receipts int
	// CommandRate is how many commands a second the host runs of one
	// player (a burst of as many); more wait their turn, and run in the
	// order sent, up to a second's worth (at least the 64 a client holds
	// without a receipt, at most 256); past that they are dropped without a
	// receipt, to be sent again. Default 30.
	CommandRate float64
	// MaxWithheld is how many receipts of one player may wait for a save,
	// counting its commands taken this frame and not run yet; commands past
	// it wait their turn as those past CommandRate do (the store is slow).
	// Default 64.
	MaxWithheld int
	// OnCommandPanic, if set, hears of each command whose handler, or whose
	// codec's Read, panicked, on the simulation goroutine with the world
	// held. The host recovers from such a panic and refuses the command
	// (see CommandPanic), so that one faulty command, which its client
	// sends again until answered, cannot stop the host, nor every host
	// restarted after it. Nil: the host writes the panic and its stack to
	// Logger (an error), as net/http logs its handlers' panics. A panic
	// that leaves the world locked by a query the handler had not closed
	// (inside its loop) is not recovered: nothing can undo the lock, and
	// the host stops, as on any other panic of the game's; the command,
	// unanswered, is sent again to the next host. Collect in the loop, act
	// after it.
	OnCommandPanic func(*CommandPanic)
}

func (c *HostConfig) defaults() {
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.MaxPeers <= 0 {
		c.MaxPeers = 8
	}
	if c.AcceptBacklog <= 0 {
		c.AcceptBacklog = max(16, c.MaxPeers+c.Spectators)
	}
	if c.World == "" {
		c.World = "world"
	}
	if c.SaveEvery <= 0 {
		c.SaveEvery = 5 * time.Second
	}
	if c.SaveTimeout <= 0 {
		c.SaveTimeout = 10 * time.Second
	}
	if c.Grace == 0 {
		c.Grace = 30 * time.Second
	}
	if c.MaxRewind == 0 {
		c.MaxRewind = time.Second
	}
	c.Receipts = max(c.Receipts, command.DefaultPending)
	if c.CommandRate <= 0 {
		c.CommandRate = 30
	}
	if c.MaxWithheld <= 0 {
		c.MaxWithheld = 64
	}
}

// Host runs a game that peers join over the network: it simulates the world,
// takes each peer's inputs for each frame, routes them to the entities the
// peer owns (Input), runs the players' commands, saves the world when it has
// a store, and replicates the world to every peer. It is a Local with a
// session around it, and has the Local's methods it does not define itself
// (go doc lists them under Local): World, Do and View to look at the world,
// Advance and Step to step it, SetInput for a player at the host's machine,
// LockStats and Ticks. Create it with NewHost, give it connections with Serve or
// Accept, and Close it at the end: Close fences the world, saves it and
// returns.
type Host[I comparable] struct {
	*Local[I]
	cfg     HostConfig
	session *session.Host
	reg     *replicate.Registry // the replicated components
	inputs  *predict.HostInputs[I]
	names   map[ecs.PeerID]string
	roster  *roster            // nil without Game.Roster
	driven  *drivenFilters     // marks the entities a player drives (driven.go)
	resumed map[ecs.PeerID]int // resumes of each peer
	budgets budgetWatch        // peers whose state budget was full lately (host_budget.go)
	stats   HostStats
	status  hostStatus
	away    []ecs.PeerID // publishStatus's buffer
	events  observers[Event]

	people  people
	cmds    hostCommands
	joining joiningFocus // the peer whose Join hook runs
	// follows are the entities peers' squares of Focus follow (Follow).
	follows map[ecs.PeerID]arche.Entity
	// refocused lists the players whose square of Focus moved since their
	// record was put (player.refocus), for the next save.
	refocused []ecs.PeerID
	// tokened are the players whose record keeps an old token beside the
	// new one a kept ticket's resume gave, saved again once it is over
	// (putTokens).
	tokened []ecs.PeerID
	own     ownCommands
	saves   *hostSaves // nil: the world lives in memory only
	accept  acceptor
	life    lifecycle
}

// HostStats counts a host's peers, commands and networked entities.
type HostStats struct {
	// Peers is the number admitted now (players and spectators), Away among
	// them the players whose connection broke, or that a restored save
	// lists, and that may still resume, each holding its slot; Joined counts
	// every peer admitted since the start, Left those that left, Refused
	// those the Join hook refused, Resumed the times a peer came back on a
	// new connection.
	Peers, Away, Joined, Left, Refused, Resumed int
	// Players and Spectators are those connected now (Away not among
	// them).
	Players, Spectators int
	// Entities is the number of networked entities in the host's world (0
	// while it is released: HostConfig.IdleUnload): a server's status
	// line, the world size a test's rig judges its report check by.
	Entities int
	// Malformed counts the peers' messages left to the game that were
	// refused as malformed: inputs and commands that did not decode (a
	// command its kind's Read refused is answered, refused, and counted
	// here too), a spectator's, and messages of kinds no Game takes (a game
	// datagram or lane kind, a command off its lane); past the connection's
	// limit the peer is dropped.
	Malformed int
	// Commands counts the commands run, Again the copies known from the
	// book (answered with their kept receipt, or by the first answer, which
	// still waited for its save) or sent again while the first waited its
	// turn, Conflicts and Expired those answered
	// without running, Waited those that could not run at the frame they
	// were due, past the player's CommandRate or MaxWithheld or behind
	// others that could not (run then, in the order sent,
	// unless the player left or the host closed first: then sent again),
	// Dropped those taken without an answer (more waiting than a second's
	// worth of CommandRate and at least the 64 a client holds without a
	// receipt, which only a client past its limit sends; a closing host),
	// to be sent again. Ahead counts those that came before the frame
	// their client gave them at and waited for it (Send): a client's
	// frame runs ahead of the host's, so most of an honest client's do.
	// A saving host holds each receipt until the save that holds it lands:
	// one stepped faster than its store writes (a test on a fake clock)
	// holds more, makes more wait past MaxWithheld and answers more Again;
	// Save before reading the counts settles them.
	Commands, Again, Conflicts, Expired, Waited, Dropped, Ahead int
	// CommandPanics counts the commands whose handler (or codec's Read)
	// panicked on the host: each was refused, and counted in Commands too
	// (HostConfig.OnCommandPanic).
	CommandPanics int
	// Unsent counts the receipts that could not be sent when their save
	// landed (the peer away, its connection broken, or its commands lane
	// full): the receipt stays kept, and the client, which sends a command
	// again while it has no receipt for it (on a new admission, and after a
	// growing wait), gets it then.
	Unsent int
	// Unreported counts the writes and additions of replicated components
	// made without a report (ecs.MutateComponent) that the host's audit
	// found and sent (Replication.Audit): anything but zero is a bug in a
	// system of the game, which Replication.OnUnreported names.
	Unreported int
	// Lossy counts the times the host's audit found a value of a
	// replicated component that does not survive its codec (beyond its
	// range, a value arrives clamped): clients hold another value than the
	// host's. A value that stays so is counted at each pass of the audit
	// over the world. Replication.OnLossy names them; a restore counts
	// those of the world it restored (RestoreReport.Lossy).
	Lossy int
	// Steps and Views are the longest time the simulation held the world
	// for a batch of steps (or Run's work between them: handshakes, joins'
	// first pages), and drawing for a View, in the last one to two seconds:
	// the host's step time on its net graph, a join's or a crowd's spike
	// gone from it two seconds after. The longest since the start:
	// LockStats. Both are timed on the machine's clock (time.Now), not
	// HostConfig.Clock: inside a testing/synctest bubble, where time stands
	// still while code runs, they read 0.
	Steps, Views time.Duration
}

// NewHost builds g's world as the host's and the session around it. With a
// store (HostConfig.SaveTo or Store) it restores the newest save first: the
// world's networked entities, their owners and components, the game's saved
// state, the frame and network-id counter, and the known players with their
// receipts. A save that does not read is an error, and no host: a record
// that fails its checksum matches store.ErrCorrupt, a save of another layout
// store.ErrFormat, one that does not fit g save.ErrMismatch; the host never
// starts on an empty world in its place. Nothing is accepted until Serve or
// Accept.
func NewHost[I comparable](g *Game[I], cfg HostConfig) (*Host[I], error) {
	if err := g.check(Hosting); err != nil {
		return nil, err
	}
	cfg.defaults()
	h := &Host[I]{Local: &Local[I]{g: g}, cfg: cfg, names: map[ecs.PeerID]string{}, resumed: map[ecs.PeerID]int{}}
	h.clk = cfg.Clock
	h.period = g.step()
	h.mu.ch = make(chan struct{}, 1)
	h.mu.log = cfg.Logger
	h.people.init()
	h.initOwn()
	h.life.init()
	h.accept.init()
	if cfg.SaveTo != "" || cfg.Store != nil {
		if err := g.checkSaved(); err != nil {
			return nil, err
		}
		s, err := openSaves(cfg)
		if err != nil {
			return nil, err
		}
		h.saves = s
	}
	if err := h.open(); err != nil {
		if h.saves != nil {
			h.saves.close()
		}
		return nil, err
	}
	h.ready = h.readyWorld
	h.after = h.afterSteps
	h.between = h.handshake
	h.wake = h.accept.arrived
	h.done = h.stopped
	h.publish = h.publishStatus
	h.publishStatus()
	h.accept.open(h.session.Accept)
	return h, nil
}

// build makes the world and everything around it: the world (Setup, told
// whether a save will fill it), the session, the input buffers, the routing,
// the commands, and the save's schema and tracker. The world is empty of
// networked entities when restoring.
func (h *Host[I]) build(restoring bool) error {
	g := h.g
	w := g.newWorld(Hosting, h.clk, restoring)
	if n := w.ECS.Networked(); restoring && n > 0 {
		return fmt.Errorf("tandem: Game.Setup spawned %d networked entities while the world is restored from a save; spawn them only when World.Restoring is false, the save brings them back", n)
	}
	if h.saves != nil {
		for _, sv := range g.Saved {
			if sv.present != nil && !sv.present(w.ECS) {
				return fmt.Errorf("tandem: Game.Saved holds state %s (SaveState), but Game.Setup added no such resource: add it there (ecs.AddResource), or the host's saves would hold nothing of it", sv.name)
			}
		}
	}
	h.w = w
	w.focus = h
	w.giver = h.give
	if h.saves != nil {
		w.saveSoon = &h.saves.soon
	}
	h.tracks = nil
	ic := h.cfg.Interp
	ic.Step = g.step()
	h.ip = interp.New(w.ECS, h.clk, ic)
	h.ip.SetLocal(ecs.HostPeer)
	reg := g.registry(w.ECS)
	h.reg = reg
	w.reg = reg
	rc := h.cfg.Replication
	rc.SendEvery = h.cfg.SendEvery
	// (StepRate: the session's, the whole steps a second its Welcome tells
	// clients; both sides predict poses from velocities by it.)
	// The driven marks are kept after the game's systems, before
	// replication (which the session adds next): an avatar a system made
	// this step goes out marked, and its client drives it from its arrival
	// (marked a step later, it went unmarked on a send tick and stood still
	// on its client for the frames to the next state).
	h.driven = newDrivenFilters[I](w.ECS)
	w.Schedule.AddTo(ecs.StageOutput, "tandem.driven", ecs.Reporting(ecs.SystemFunc(h.driven.drivenMarks)))
	// The followed entities' squares move before replication too: a
	// step's move is in its send tick.
	w.Schedule.AddTo(ecs.StageOutput, "tandem.follow", ecs.Reporting(ecs.SystemFunc(h.follow)))
	h.session = session.NewHost(w.Schedule, reg, session.HostConfig{
		Clock:              h.clk,
		MaxPeers:           h.cfg.MaxPeers,
		MaxSpectators:      h.cfg.Spectators,
		AcceptBacklog:      h.cfg.AcceptBacklog,
		MaxPeersPerAddress: h.cfg.MaxPeersPerAddress,
		MaxJoinsPerAddress: h.cfg.MaxJoinsPerAddress,
		AdmitPerStep:       h.cfg.AdmitPerStep,
		// As many may be joining at once from an address as may play from
		// it (0: the session's 4), and in all as may play (32 at least): a
		// match that connects at once is not pushed out.
		MaxPendingPerAddress: max(h.cfg.MaxPeersPerAddress, 4),
		MaxPending:           max(h.cfg.MaxPeers+h.cfg.Spectators, 32),
		Replication:          rc,
		Grace:                h.cfg.Grace,
		Admit:                h.admitFunc(),
		Schema:               g.schemaOf(reg),
		OnJoin:               h.join,
		OnLeave:              h.leave,
		Keep:                 h.keepFunc(),
		OnMessage:            h.message,
		OnLaneMessage:        h.laneMessage,
		OnEvent:              h.event,
	})
	rewind := -1 // none
	if h.cfg.MaxRewind > 0 {
		rewind = int(min(math.Ceil(h.cfg.MaxRewind.Seconds()/g.step().Seconds()), predict.RewindLimit))
	}
	h.inputs = predict.NewHostInputs(w.ECS, g.inputCodec(), predict.HostInputConfig[I]{Replicator: h.session.Replicator(), MaxRepeat: h.cfg.MaxInputRepeat, MaxRewind: rewind})
	w.Schedule.AddTo(ecs.StageInput, "predict.inputs", ecs.Reporting(h.inputs))
	if rewind > 0 {
		rw := newRewinder(w, rewind, h.session.Replicator().SentFrame)
		w.Schedule.AddTo(ecs.StageOutput, "tandem.rewind", ecs.Reporting(rw))
		w.seen = rw.seenAt
	}
	h.routeLocal(h.input)
	h.roster = nil
	if g.Roster {
		h.roster = newRoster(w, func(p ecs.PeerID) (time.Duration, bool) {
			cs, _, ok := h.session.PeerStats(p)
			return cs.RTT, ok
		})
	}
	w.Schedule.AddTo(ecs.StageInput, "tandem.commands", ecs.SystemFunc(func(*ecs.World) { h.runCommands() }))
	// Both run the game's code (hooks, observers, command handlers) at
	// some steps only, each call counted by the world's lock: a report
	// check watches them at those steps alone.
	for _, name := range []string{"net.receive", "tandem.commands"} {
		w.Schedule.WatchCounted(name, h.mu.calls.Load)
	}
	if h.saves != nil {
		h.saves.build(g.saveSchema(w))
		if h.cfg.Replication.CheckReports {
			h.saves.tracker.CheckReports() // the saved components too
		}
		w.Schedule.AddTo(ecs.StageInput, "tandem.saved", ecs.SystemFunc(func(*ecs.World) { h.pollSave() }))
		w.Schedule.AddTo(ecs.StageOutput, "save.track", h.saves.tracker)
		w.Schedule.AddTo(ecs.StageOutput, "tandem.save", ecs.SystemFunc(func(*ecs.World) { h.saveStep() }))
	}
	return nil
}

// open loads the world (build, restore) and gives the player at the host's
// machine its roster entry.
func (h *Host[I]) open() error {
	if err := h.load(); err != nil {
		return err
	}
	if h.roster != nil && h.cfg.Name != "" {
		h.roster.add(ecs.HostPeer, h.cfg.Name)
	}
	return nil
}

// input is the input of peer p for the frame: the host's own for HostPeer,
// else what p sent (live once its client's frame is in step with the
// host's); the zero input, not live, before its first one, while its
// connection is broken (its last input is not repeated), after it resumes
// until its next one, and once its inputs have been missing for
// HostConfig.MaxInputRepeat frames.
func (h *Host[I]) input(p ecs.PeerID) (in routed[I], ok bool) {
	in.view = float64(h.w.ECS.Frame())
	if p == ecs.HostPeer {
		in.value, in.live = h.keys.get(), true
		return in, true
	}
	pi := h.inputs.Peer(p)
	if pi == nil {
		return in, true
	}
	sent, has := pi.Input()
	if !has {
		return in, true
	}
	in.value, in.live, in.view = *sent, pi.Live(), pi.View()
	return in, true
}

// message takes a peer's input messages; malformed ones, a spectator's, and
// messages of the game datagram kinds (a Game has none), count against the
// peer's connection, which drops a peer that keeps sending them.
func (h *Host[I]) message(peer ecs.PeerID, kind wire.Kind, payload []byte) {
	if kind != wire.KindInput {
		h.stats.Malformed++
		h.session.ReportMalformed(peer, errNotTaken)
		return
	}
	if h.people.spectating(peer) {
		h.stats.Malformed++
		h.session.ReportMalformed(peer, errSpectatorInput)
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
	case session.PeerJoined:
		h.focusJoined(e.Peer)
	case session.PeerResumed:
		h.refocusResumed(e.Peer)
		h.inputs.Resume(e.Peer, e.Frame)
		h.stats.Resumed++
		h.resumed[e.Peer]++
		h.keepToken(e.Peer)
	}
	h.mu.enter()
	defer h.mu.exit()
	for _, fn := range h.events.list() {
		fn(e)
	}
}

// OnEvent adds fn to the observers of the host's events (a peer joined, is
// ready, left, was refused); they run in the order added, on the simulation
// goroutine, with the world locked (the PeerLeft of players Close lets go:
// on the goroutine that called Close, the world locked too): an observer
// reads and changes the world directly (Host.World, Host.AppendPlayers), never
// through Do or View, which would wait for itself. Safe from any
// goroutine, inside callbacks, hooks and observers too (one added by an
// observer hears the events that come after). It returns the function that
// removes fn: from the next event on, it is not called (one under way on
// the simulation goroutine as another goroutine removes it may still call
// it).
func (h *Host[I]) OnEvent(fn func(Event)) (remove func()) { return h.events.add(fn) }

// Serve accepts connections from l until the host closes. Safe from any
// goroutine.
func (h *Host[I]) Serve(l transport.Listener) { h.accept.serve(l, h.Accept) }

// Accept hands the host one connection (tests, custom listeners). While the
// world is released (HostConfig.IdleUnload) the connection waits for it to
// load. Safe from any goroutine.
func (h *Host[I]) Accept(c transport.Conn) { h.accept.take(c) }

// Run steps the world at its fixed rate on the calling goroutine until ctx is
// done (it returns nil), the host is closed (ErrClosed), or it stopped on an
// error (Err: a fenced store, a save that no longer loads). Between
// steps it answers a connection as it arrives, and the handshakes under way
// every millisecond (an idle host is not woken for them), so a joining
// player waits for no step before its Welcome and its admission (its join's
// pages start at the next step, which takes in what Game.Join spawned; a game
// that drives its own loop with Advance answers them at its steps).
func (h *Host[I]) Run(ctx context.Context) error { return h.run(ctx) }

// Stats returns the host's counts as it last published them:
// at the end of its last Advance or Step (however many steps it ran), View,
// Do, Save or Close, and after the handshakes Run answers between steps.
// Safe from any goroutine, inside callbacks, hooks and observers too (there,
// the counts as they were before the Advance or call under way).
func (h *Host[I]) Stats() HostStats {
	h.status.mu.Lock()
	defer h.status.mu.Unlock()
	return h.status.stats
}

// statsNow counts the peers now. It runs with the world locked.
func (h *Host[I]) statsNow() HostStats {
	s := h.stats
	s.Peers = len(h.names)
	s.Steps, s.Views = h.steps.lately(), h.views.lately()
	s.Players, s.Spectators = h.people.counts()
	if h.w != nil && h.w.ECS != nil {
		s.Entities = h.w.ECS.Networked()
	}
	if h.session != nil {
		s.Unreported += int(h.session.Replicator().Unreported())
		s.Lossy += int(h.session.Replicator().Lossy())
		h.away = h.session.AppendAway(h.away[:0])
		for _, id := range h.away {
			s.Away++
			if h.people.players[id] != nil {
				s.Players--
			} else if h.people.spectating(id) {
				s.Spectators--
			}
		}
	}
	return s
}

// PeerStats are the figures of one peer on the host's net graph.
type PeerStats struct {
	Peer ecs.PeerID
	Name string
	// RTT is the smoothed round trip to the peer; Loss the recent fraction of
	// datagrams lost (0..1); RTTSamples the round-trip measurements RTT is
	// made of (0: RTT is the connection's guess, conn.Config.InitialRTT).
	RTT        time.Duration
	Loss       float64
	RTTSamples uint64
	// KbitIn and KbitOut are the traffic of the last second, kbit/s: in
	// from the peer, out to it.
	KbitIn, KbitOut float64
	// Buffered is how many frames of the peer's input wait ahead of the
	// host's frame (negative: they arrive late); Late counts the inputs that
	// came after their frame.
	Buffered int
	Late     uint64
	// Inputs counts the peer's inputs since it joined or last resumed.
	Inputs predict.InputStats
	// Replication counts what the host's replicator sent the peer: items,
	// spawns and removals, entities that entered and left its scope, the
	// rounds of its join.
	Replication replicate.PeerStats
	// Memory is the bytes of host memory the peer's replication holds now
	// (replicate.HostPeer.Memory): its record of each entity and of what is
	// in flight, beyond the world's own state and the connection's buffers,
	// which the connection bounds.
	Memory int
	// Resumes counts the times the peer's connection broke and it came
	// back on a new one.
	Resumes int
}

// AppendPeerStats appends the figures of every admitted peer to dst, in peer
// order, and returns the extended slice. Call it on the simulation goroutine
// (inside View or Do).
func (h *Host[I]) AppendPeerStats(dst []PeerStats) []PeerStats {
	if h.session == nil {
		return dst
	}
	for _, peer := range h.session.Peers() {
		cs, rs, ok := h.session.PeerStats(peer)
		if !ok {
			continue
		}
		s := PeerStats{
			Peer:        peer,
			Name:        h.names[peer],
			RTT:         cs.RTT,
			RTTSamples:  cs.RTTSamples,
			Loss:        cs.LossRate,
			KbitIn:      cs.BytesInPerSec * 8 / 1000,
			KbitOut:     cs.BytesOutPerSec * 8 / 1000,
			Replication: rs,
			Resumes:     h.resumed[peer],
		}
		if rp := h.session.Replicator().Peer(peer); rp != nil {
			s.Memory = rp.Memory()
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
// not leaves then, its entities removed (but those Game.Keep keeps),
// Game.Leave called. Their entities are the restored world's. Call it on
// the simulation goroutine, before serving; see session.Host.RestorePeers.
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

// acceptor takes connections for the host: from its listeners' accept loops
// and from Accept, into the session, or held while the world is released.
type acceptor struct {
	mu        sync.Mutex
	ctx       context.Context
	cancel    context.CancelFunc
	listeners []transport.Listener
	wg        sync.WaitGroup
	closed    bool
	// deciding: closed, and whether the host restarts is not known yet
	// (CloseForRestart's final save runs): connections arriving are held.
	deciding bool
	// restarting: closed to come back to the next host (CloseForRestart, a
	// fenced host), as its players are told; connections arriving after
	// are refused the same way, so a client dialing again keeps dialing.
	restarting bool
	to         func(transport.Conn) // the session's Accept; nil while released
	waiting    []transport.Conn
	// arrived receives (one value, coalesced) when a connection was handed
	// to the session: the host's loop wakes on it to answer the handshake.
	arrived chan struct{}
}

// maxWaiting bounds the connections held while the world loads.
const maxWaiting = 16

func (a *acceptor) init() {
	a.ctx, a.cancel = context.WithCancel(context.Background())
	a.arrived = make(chan struct{}, 1)
}

func (a *acceptor) serve(l transport.Listener, take func(transport.Conn)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		l.Close()
		return
	}
	a.listeners = append(a.listeners, l)
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		for {
			tc, err := l.Accept(a.ctx)
			if err != nil {
				return
			}
			take(tc)
		}
	}()
}

func (a *acceptor) take(tc transport.Conn) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.closed && !a.deciding:
		a.refuse(tc)
	case a.to != nil:
		a.to(tc)
		select {
		case a.arrived <- struct{}{}: // the loop answers its handshake now
		default:
		}
	default:
		if len(a.waiting) == maxWaiting {
			a.waiting[0].Close(transport.CloseLimit, "host busy: too many connections while the world loads; try again")
			a.waiting = append(a.waiting[:0], a.waiting[1:]...)
		}
		a.waiting = append(a.waiting, tc)
	}
}

// refuse closes tc, a connection that came to a closed host, as the
// host's players were told it closed. Under a.mu.
func (a *acceptor) refuse(tc transport.Conn) {
	if a.restarting {
		tc.Close(transport.CloseHostRestarting, "host restarting: dial again")
		return
	}
	tc.Close(transport.CloseHostShutdown, "host shutting down")
}

// open points new connections at to and hands it those waiting.
func (a *acceptor) open(to func(transport.Conn)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return // the host closes: what waits is refused by close or decide
	}
	a.to = to
	for _, tc := range a.waiting {
		to(tc)
	}
	if len(a.waiting) > 0 {
		select {
		case a.arrived <- struct{}{}: // their handshakes go on at once
		default:
		}
	}
	a.waiting = nil
}

// hold makes new connections wait, if idle says the session holds none; it
// reports whether it did.
func (a *acceptor) hold(idle func() bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.waiting) > 0 || !idle() {
		return false
	}
	a.to = nil
	return true
}

// pending reports whether connections wait for the world.
func (a *acceptor) pending() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.waiting) > 0
}

// close stops taking connections. Those waiting, and those that arrive
// after, are refused as the host's players are told it closed: with
// CloseHostShutdown, or, once decide says the host restarts,
// CloseHostRestarting; when restart may follow (CloseForRestart, whose
// final save decides), they are held until decide. A second close changes
// nothing.
func (a *acceptor) close(restart bool) {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return
	}
	a.closed = true
	a.deciding = restart
	a.cancel()
	for _, l := range a.listeners {
		l.Close()
	}
	if !restart {
		a.refuseWaiting()
	}
	a.to = nil
	a.mu.Unlock()
	a.wg.Wait()
}

// decide ends a close that a restart may follow: the host restarts or not,
// and the connections held are refused as its players are told. It does
// nothing after a close that decided already.
func (a *acceptor) decide(restarting bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.deciding {
		return
	}
	a.deciding, a.restarting = false, restarting
	a.refuseWaiting()
}

// refuseWaiting refuses the connections held. Under a.mu.
func (a *acceptor) refuseWaiting() {
	for _, tc := range a.waiting {
		a.refuse(tc)
	}
	a.waiting = nil
}
