// Package tandemtest runs a game's host and its clients in one test
// process, over the in-memory transport (package mem) and on one fake
// clock, stepped together frame by frame: a test of a game's networking —
// who sees what, after how many frames, what a broken link or a restarted
// host does — is then as exact and repeatable as a test of its rules.
//
// In the pipeline it stands where a game's main would: it makes the Host
// (tandem.NewHost) and the Clients (tandem.NewClient), hands the host each
// connection as it arrives (Host.Accept), and turns every loop by hand
// (Advance) instead of running them on goroutines of their own (Run).
//
//	r := tandemtest.New(t, game, tandem.HostConfig{}, tandemtest.Config{})
//	ann := r.Join("ann", tandem.ClientConfig[Keys]{})
//	ann.SetInput(Keys{Right: true})
//	r.Step(30)
//	// ... look at r.Host and ann through Do, and at what they draw
//	// through View at the rig's time: ann.View(r.Clock.Now(), ...).
//
// View's time is the rig's clock (r.Clock.Now()), which Step advances: a
// drawing at time.Now() in a bubble, whose time does not move with the
// steps, draws what is interpolated at a standstill, and one at a time
// before the last drawing's goes back.
//
// Clients reconnect by themselves on a goroutine of their own (a broken
// connection: Cut, kept broken with Unreachable; a host that restarts:
// Restart, or is killed: Kill; a link that drops everything for a while and carries again,
// Blackout, breaks nothing shorter than 5 s), and a host that saves
// commits on one of its own. Outside a synctest bubble the steps do not
// wait for those goroutines, and how many steps a reconnect or a receipt
// takes changes from run to run (a hundredfold): Cut, Restart and Kill
// need the rig in a bubble — the test runs inside bubble.Test (package
// clock/bubble) and sets Config.Bubble, so that every step waits for them.
// In a bubble a cut connection is back after about 5 s of steps (303 at
// 60 Hz: the client's silence timeout, then its redial), a receipt two
// steps after its command runs. Outside one, Save makes a host's receipts
// go out at the next Step.
//
// The rig's host checks at every step that each write of a replicated
// component, and of a saved one when it saves, was reported
// (ecs.MutateComponent): one that was not fails the test at that Step,
// naming the component and the system (Config.Unchecked turns the check
// off). A command
// handler that panics on the host fails the test at that Step too, with
// the panic and its stack (a host in a game recovers and refuses the
// command: tandem.CommandPanic); a test of that refusal sets
// HostConfig.OnCommandPanic, which the rig then leaves to it. So does a
// save that fails during play (a component nothing saves, met by the save:
// a host in a game goes on and tries again), unless the test set
// HostConfig.OnSaveError.
//
// At the test's end the rig closes the clients and the host: a host whose
// Close fails there (its final save: a component nothing saves, a store
// that fails) fails the test, unless the host had closed already (Done:
// the test closed it) or stopped on its own (Host.Err).
//
// Step turns only what Advance does: what a Run does between steps (a
// handshake answered at once, a large join's pages topped up as its lane
// drains) waits for the next Step, so a large join takes more steps here
// than frames in a game. The join's slices (tandem.ClientConfig.JoinSlice)
// are timed on the rig's fake clock, which does not move while a client
// works: each Step applies every page waiting, and a join's frame lengths
// are not measured here (over real QUIC, Loopback runs on the real clock).
//
// What a test compares: every machine's world is at its own frame. A
// client runs its own entities ahead of the host (predicted by the one-way
// delay, an input buffer of a few frames and a margin for jitter:
// tandem.NetStats.Lead), so a moving one is compared with the host's once
// both are at rest, or at the same frame; what it does not own it holds as
// of tandem.NetStats.HostFrame or a little before (a small change waits its
// turn: a test waits for the change, not a frame), and draws RenderDelay
// later. An entity the host removed stays in a client's world until the
// client has drawn it to its removal (View); a client that never drew lets
// it go at once, one that stopped drawing within the render delay and two
// send intervals. A command's
// receipt and the state that shows what it did travel apart, either first
// (StepUntilReceipt). Agree compares a client's whole world with what the
// host sends it (its scope, the owners, every replicated value as its codec
// sends it), for a world at rest: a test steps until they agree.
//
// Loopback is the other way to test: the host and its clients over QUIC on
// this machine's loopback, each running at its real rate on a goroutine of
// its own, as in a game. It exercises what the in-memory rig leaves out
// (the transport and real time), and its tests wait for states, not frames.
// Its Cut and Restart do over real QUIC what the Rig's do: a client's
// network that stops carrying anything, a host restarted on its save (at
// the same address, with the same certificate), which the clients resume.
package tandemtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/save"
)

// Config tunes a Rig. The zero value gives perfect links, a clock that
// starts at 2030-01-01 UTC and steps of the game's Step.
type Config struct {
	// Link is the in-memory network's configuration: each direction's
	// latency, jitter, loss and bandwidth (ToHost, ToClient), every
	// client's but those given one of their own (Rig.Link). Zero:
	// messages arrive at once, none lost (a round trip still measures a
	// step or so, as each side reads what arrived, and answers, at its own
	// steps). A message is read at the first step at or after its arrival,
	// and a step of 1/60 s is 16,666,666 ns: a latency of a whole number
	// of steps (50 ms is three) arrives a nanosecond after that step and
	// is read at the next, so a 50 ms link's round trip measures about 134
	// ms; 49 ms measures about 102.
	Link mem.Config
	// Start is the fake clock's time at first. Zero: 2030-01-01 UTC.
	Start time.Time
	// Tick is how far the clock moves at each Step. Zero: the game's Step.
	// Less runs a step every few turns; more runs several steps a turn, as
	// a slow frame does (up to the schedule's catch-up limit).
	Tick time.Duration
	// Bubble says that the rig runs inside a synctest bubble
	// (bubble.Test): every Step then ends with synctest.Wait, so that the
	// clients' redials and the host's commits (and any goroutine of the
	// test's) have run before the next. Cut, Restart and Kill need it; New fails
	// the test when it is set outside a bubble.
	Bubble bool
	// Unchecked turns off the host's check that every write (addition,
	// removal) of a replicated component, or of a saved one (with a store),
	// was reported (replicate.HostConfig's CheckReports, on by default in a
	// rig: a write the game did not report with ecs.MutateComponent fails the test
	// at the Step that finds it, naming the component and the system that
	// made it; no peer would ever be sent it, no save would keep it). The
	// check looks at every networked entity after each system that may
	// run the game's code (the game's own, and the engine's that run its
	// hooks and commands, at the steps they run one), so it costs in proportion to the world times
	// those systems, and with the replicated components each entity holds:
	// a Step of 20,000 static props and one walker takes about 1.7 ms with
	// it against 7 µs without, of 1,000 props about 0.1 ms
	// (BenchmarkReportCheck); a town of 30,000 props, 50 wanderers and two
	// walking players (five replicated components, two systems of its own)
	// took 9 ms a Step against 32 µs. Turn it off for a world of thousands of
	// entities (the host's audit, a few entities a step, then looks instead:
	// HostConfig.Replication.Audit: a kind of entity whose reports a
	// system forgets within seconds, one entity's forgotten report within
	// a round of the world, about two minutes of play at 30,000), and
	// check a small world of the same systems in a test of its own. A rig with the check on whose host
	// world reaches 1,000 networked entities says so once in the test's
	// log (shown with go test -v, and beside a failure).
	Unchecked bool
	// JoinSteps bounds how many Steps Join waits for a client to play.
	// Zero: ten seconds of steps.
	JoinSteps int
}

// Rig is a host and its clients on one in-memory network and one fake
// clock. Its fields are the test's to read; New, Connect, Join, Restart and Kill
// set them. A Rig belongs to the test's goroutine.
type Rig[I comparable] struct {
	// Clock is the clock the host, the clients and the network run on;
	// Step advances it.
	Clock *clock.Fake
	// Network carries the connections.
	Network *mem.Network
	// Host is the host; Restart and Kill replace it.
	Host *tandem.Host[I]
	// Clients are the clients Connect and Join made, in that order.
	Clients []*tandem.Client[I]

	t         testing.TB
	game      *tandem.Game[I]
	hostCfg   tandem.HostConfig
	cfg       Config
	listener  transport.Listener
	logs      *testWriter // the host's and the clients' loggers write here
	links     map[*tandem.Client[I]]*link
	panics    []*tandem.CommandPanic // heard by the host's OnCommandPanic, unless the test set its own
	saveErrs  []error                // heard by the host's OnSaveError, unless the test set its own
	killed    []*tandem.Host[I]      // hosts Kill gave up, closed at the test's end
	kills     int                    // Kill's copies of the save, numbered
	saveBase  string                 // SaveTo before the first Kill: the copies' names begin with it
	hostTime  []time.Duration        // each host Advance's time (HostTimes)
	checkTold bool                   // the log said what the report check costs a world this large
}

// checkLogEntities is how many networked entities a host world has when the
// rig's log says what its report check costs (Config.Unchecked): a thousand,
// where it costs tens of times what steps of a game of few systems do.
const checkLogEntities = 1000

// tellCheckCost says in the test's log, once the host's world has
// checkLogEntities networked entities, that the report check costs a pass
// over them after each system that may run the game's code, and how to turn
// it off: a large world's test otherwise runs tens of times slower with no
// word why.
func (r *Rig[I]) tellCheckCost() {
	n := r.Host.Stats().Entities
	if n < checkLogEntities {
		return
	}
	r.checkTold = true
	r.t.Logf("tandemtest: the host's world has %d networked entities: the report check (on by default) looks at every one after each system that may run the game's code, at every step: tens of times what the steps of a game of few systems cost at a thousand, hundreds of times at tens of thousands; set Config.Unchecked for a test of a world this large, and check the same systems in a small world in a test of its own", n)
}

// link is one client's name, its connections (the first and each
// redial's: the last is the one in use; a redial adds to it on the client's
// goroutine) and the receipts it heard, by operation id.
type link struct {
	name        string
	mu          sync.Mutex
	conns       []*mem.Conn
	receipts    map[uint64]tandem.Receipt // by operation id
	unreachable bool                      // dials fail (Rig.Unreachable)
	// conditions is the client's own link (Rig.Link), applied to each
	// connection it dials; nil: the rig's Config.Link.
	conditions *[2]condition.Config // to the host, to the client
}

// apply gives connection tc (the client's end) the client's own link, if
// it has one. l is locked.
func (l *link) apply(tc *mem.Conn) error {
	if l.conditions == nil {
		return nil
	}
	if err := tc.SetConditions(l.conditions[0]); err != nil {
		return err
	}
	return tc.SetReceiveConditions(l.conditions[1])
}

// HostAddr is the host's name on the rig's network: a test dials it
// (Rig.Network.Dial) for a connection of its own, which the host takes at
// the next Step.
const HostAddr = "host"

// New makes the rig and its host for game g with host's configuration
// (leave its Clock unset: the rig's clock is given). The test fails if the
// host cannot be made. The host and every client are closed when the test
// ends (Close: a host with a store saves then). What the host and the
// clients log (a HostConfig or ClientConfig without a Logger) goes to the
// test's log, named, without the fake clock's time.
func New[I comparable](t testing.TB, g *tandem.Game[I], host tandem.HostConfig, cfg Config) *Rig[I] {
	t.Helper()
	if host.Clock != nil {
		t.Fatal("tandemtest: leave HostConfig.Clock unset: the rig's host runs on the rig's clock")
	}
	if cfg.Start.IsZero() {
		cfg.Start = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	step := g.Step
	if step <= 0 {
		step = ecs.DefaultStep
	}
	if cfg.Tick <= 0 {
		cfg.Tick = step
	}
	if cfg.JoinSteps <= 0 {
		cfg.JoinSteps = int(10 * time.Second / cfg.Tick)
	}
	r := &Rig[I]{Clock: clock.NewFake(cfg.Start), t: t, game: g, cfg: cfg, links: map[*tandem.Client[I]]*link{}}
	var err error
	if r.Network, err = mem.NewNetwork(r.Clock, cfg.Link); err != nil {
		t.Fatalf("tandemtest: %v", err)
	}
	if r.listener, err = r.Network.Listen(HostAddr); err != nil {
		t.Fatalf("tandemtest: %v", err)
	}
	host.Clock = r.Clock
	r.logs = newTestWriter(t) // before the rig's close: it stops after it
	if host.Logger == nil {
		host.Logger = r.logs.logger("host")
	}
	if !cfg.Unchecked {
		host.Replication.CheckReports = true
	}
	if host.OnCommandPanic == nil {
		host.OnCommandPanic = func(p *tandem.CommandPanic) { r.panics = append(r.panics, p) }
	}
	if host.OnSaveError == nil {
		host.OnSaveError = func(err error) { r.saveErrs = append(r.saveErrs, err) }
	}
	r.hostCfg = host
	if r.Host, err = tandem.NewHost(g, host); err != nil {
		t.Fatalf("tandemtest: the host: %v", err)
	}
	t.Cleanup(r.close)
	if cfg.Bubble {
		r.wait()
	}
	return r
}

// wait waits for every other goroutine of the rig's bubble to block, and
// fails the test if the rig is not in one.
func (r *Rig[I]) wait() {
	r.t.Helper()
	if p := waitBubble(); p != nil {
		r.t.Fatalf("tandemtest: Config.Bubble is set, but the test is not in a synctest bubble (%v): run it inside bubble.Test (package clock/bubble)", p)
	}
}

// notInBubble is what synctest.Wait panics with outside a bubble.
const notInBubble = "goroutine is not in a bubble"

// waitBubble is synctest.Wait, returning its panic outside a bubble instead
// of raising it (any other panic goes on).
func waitBubble() (p any) {
	defer func() {
		if p = recover(); p != nil && p != notInBubble {
			panic(p)
		}
	}()
	synctest.Wait()
	return nil
}

// needBubble fails the test unless the rig runs in a bubble: what steps
// take depends then on goroutines the steps do not wait for.
func (r *Rig[I]) needBubble(what string) {
	r.t.Helper()
	if !r.cfg.Bubble {
		r.t.Fatalf("tandemtest: %s needs the rig in a synctest bubble (outside one, how many steps a reconnect takes changes from run to run): run the test inside bubble.Test (package clock/bubble) and set Config.Bubble", what)
	}
}

// Save saves the host's world now and waits until it is durable
// (Host.Save): the receipts it held go out at the next Step. The test fails
// if the save does.
func (r *Rig[I]) Save() {
	r.t.Helper()
	if err := r.Host.Save(context.Background()); err != nil {
		r.t.Fatalf("tandemtest: save: %v", err)
	}
}

// close closes every client, then the host. A host the test did not
// close or stop, whose Close fails (its final save), fails the test.
func (r *Rig[I]) close() {
	for _, c := range r.Clients {
		_ = c.Close()
	}
	for _, h := range r.killed {
		_ = h.Close() // its final save goes to the file it was killed on, which nothing reads
	}
	closeHost(r.t, r.Host)
	_ = r.listener.Close()
}

// closeHost closes h at the test's end. A Close that fails (its final
// save) fails the test, unless the test closed the host already or it
// stopped on its own: then it is logged.
func closeHost[I comparable](t testing.TB, h *tandem.Host[I]) {
	t.Helper()
	var seen bool // the test closed the host, or it stopped on its own
	select {
	case <-h.Done():
		seen = true
	default:
		seen = h.Err() != nil
	}
	if err := h.Close(); err != nil {
		if seen {
			t.Logf("tandemtest: closing the host at the test's end: %v", err)
		} else {
			t.Errorf("tandemtest: closing the host at the test's end: %v", err)
		}
		_ = h.Abandon() // the store's goroutines end with the test
	}
}

// Connect dials the host for a new client with cfg (its Name is name; its
// Clock and Dial are the rig's: leave them unset) and returns it at once,
// before the host answered: for a test of a refusal, or of a join's
// progress. Step moves it on.
func (r *Rig[I]) Connect(name string, cfg tandem.ClientConfig[I]) *tandem.Client[I] {
	r.t.Helper()
	if cfg.Clock != nil || cfg.Dial != nil {
		r.t.Fatal("tandemtest: leave ClientConfig.Clock and Dial unset: the rig's client runs on the rig's clock and dials the rig's host")
	}
	cfg.Name, cfg.Clock = name, r.Clock
	if cfg.Logger == nil {
		cfg.Logger = r.logs.logger(name)
	}
	l := &link{name: name}
	cfg.Dial = func(ctx context.Context) (transport.Conn, error) {
		l.mu.Lock()
		away := l.unreachable
		l.mu.Unlock()
		if away {
			return nil, errUnreachable
		}
		tc, err := r.Network.Dial(ctx, HostAddr)
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.conns = append(l.conns, tc.(*mem.Conn))
		if err := l.apply(tc.(*mem.Conn)); err != nil {
			tc.Close(transport.CloseNormal, "tandemtest: the client's link is refused")
			return nil, err
		}
		return tc, nil
	}
	c, err := tandem.NewClient(r.game, nil, cfg)
	if err != nil {
		r.t.Fatalf("tandemtest: client %s: %v", name, err)
	}
	c.OnReceipt(func(rc tandem.Receipt) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.receipts == nil {
			l.receipts = map[uint64]tandem.Receipt{}
		}
		l.receipts[rc.Op] = rc
	})
	r.links[c] = l
	r.Clients = append(r.Clients, c)
	return c
}

// Each runs f with each machine's world, held as Do holds it: the host's
// (named "host"), then each client's in the order Connect made them (named
// as they were), to compare what every machine holds. A client that is
// closed (refused, or closed by the test) is passed over, as is a machine
// whose Do does not run (a host that failed).
func (r *Rig[I]) Each(f func(name string, w *tandem.World)) {
	r.Host.Do(func(w *tandem.World) { f("host", w) })
	for _, c := range r.Clients {
		if c.State() == tandem.Closed {
			continue
		}
		name := r.links[c].name
		c.Do(func(w *tandem.World) { f(name, w) })
	}
}

// StepUntilReceipt steps until client c heard the receipt of its command op
// (the id tandem.Send returned), at most limit times, and returns it; ok is
// false if it did not come. A receipt heard before the call counts, without
// a step. What the command did may reach c's world steps before or after
// its receipt (they travel apart): a test steps until it sees the change.
// A host that saves sends a receipt once the save holding it is durable,
// which its commit goroutine decides: in a bubble (Config.Bubble) that is
// two steps after the command runs; outside one, on the disk's time,
// which steps do not wait for: call Save on the host first.
func (r *Rig[I]) StepUntilReceipt(c *tandem.Client[I], op uint64, limit int) (rc tandem.Receipt, ok bool) {
	r.t.Helper()
	l := r.links[c]
	if l == nil {
		r.t.Fatal("tandemtest: StepUntilReceipt of a client this rig did not make (Connect, Join)")
	}
	r.StepUntil(limit, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		rc, ok = l.receipts[op]
		return ok
	})
	return rc, ok
}

// Join connects a new client as Connect does and steps until it plays, then
// (unless it is a spectator) until its clock is aligned with the host's, for
// at most a second of steps: from then on it runs ahead of the host by
// tandem.NetStats.Lead, and a held input moves its player about a frame a
// Step (a frame more or less now and then, as the client keeps its lead: a
// test reads where the player went, from the host, rather than counting
// Steps). A client aligns on the states the host sends it; one that owns
// nothing in a world where nothing moves has none, and is returned
// unaligned (its frame jumps ahead once when states come). The test fails
// if the client is refused, or does not play within Config.JoinSteps. It
// steps as many times as that takes: a test that measures what happens
// meanwhile reads the host's frame (Host.Do) before and after, or joins
// with Connect and steps itself.
func (r *Rig[I]) Join(name string, cfg tandem.ClientConfig[I]) *tandem.Client[I] {
	r.t.Helper()
	c := r.Connect(name, cfg)
	r.joined(c, name, cfg.Spectator)
	return c
}

// JoinOver joins a new client as Join does, over a link of its own from
// its first datagram (Link): its clock aligns on that link, as a player's
// on a bad line does. (Join, then Link, aligns it on Config.Link first: a
// player on a slower link then starts with its inputs late.) As with Link,
// the Seeds of toHost and toClient are not used.
func (r *Rig[I]) JoinOver(name string, cfg tandem.ClientConfig[I], toHost, toClient condition.Config) *tandem.Client[I] {
	r.t.Helper()
	c := r.Connect(name, cfg)
	r.Link(c, toHost, toClient)
	r.joined(c, name, cfg.Spectator)
	return c
}

// joined steps until client c plays and, unless it is a spectator, its
// clock is aligned (see Join).
func (r *Rig[I]) joined(c *tandem.Client[I], name string, spectator bool) {
	r.t.Helper()
	if !r.StepUntil(r.cfg.JoinSteps, func() bool { return c.State() == tandem.Playing || c.State() == tandem.Closed }) ||
		c.State() != tandem.Playing {
		r.t.Fatalf("tandemtest: %s did not join: %v (%v)", name, c.State(), c.Err())
	}
	if !spectator {
		// LeadTarget is 0 until the first alignment.
		r.StepUntil(int(time.Second/r.cfg.Tick), func() bool { return c.State() != tandem.Playing || c.NetStats().LeadTarget > 0 })
	}
}

// Step turns the rig n times: the clock moves one Tick, the host takes the
// connections that arrived, then the host and each client Advance (running
// the steps the time holds), in that order.
func (r *Rig[I]) Step(n int) {
	r.t.Helper()
	for range n {
		r.Clock.Advance(r.cfg.Tick)
		r.acceptAll()
		r.advanceHost()
		for _, c := range r.Clients {
			c.Advance()
		}
		if r.cfg.Bubble {
			r.wait()
		}
	}
}

// advanceHost runs the host's steps that are due; a write the game did not
// report (replicate.UnreportedError, or save.UnreportedError for a saved
// component), a codec that loses what it is given
// (replicate.LossyCodecError), and a command handler that panicked (unless
// the test set HostConfig.OnCommandPanic), fail the test at its line.
func (r *Rig[I]) advanceHost() {
	r.t.Helper()
	start := time.Now()
	if err := r.advanceChecked(); err != nil {
		// Failed here, not in the deferred call that recovered it: the
		// test's line is the failure's, not the engine's that found it.
		r.t.Fatalf("tandemtest: %v", err)
		return
	}
	r.hostTime = append(r.hostTime, time.Since(start))
	if !r.cfg.Unchecked && !r.checkTold {
		r.tellCheckCost()
	}
	if len(r.panics) > 0 {
		r.t.Fatalf("tandemtest: %v", r.panics[0])
	}
	if len(r.saveErrs) > 0 {
		r.t.Fatalf("tandemtest: a save failed: %v (a test of failing saves sets HostConfig.OnSaveError, which the rig then leaves to it)", r.saveErrs[0])
	}
}

// advanceChecked runs the host's Advance and returns the failed check that
// stopped it (an unreported write, a lossy codec), if one did.
func (r *Rig[I]) advanceChecked() (err error) {
	defer func() {
		if p := recover(); p != nil {
			switch e := p.(type) {
			case *replicate.UnreportedError:
				err = e
			case *save.UnreportedError:
				err = e
			case *replicate.LossyCodecError:
				err = e
			default:
				panic(p)
			}
		}
	}()
	r.Host.Advance()
	return nil
}

// HostTimes returns how long the host took in each of the rig's turns so
// far (Step, StepUntil), oldest first: its Advance, the steps the turn
// held, on the machine's clock (time.Now). Inside a testing/synctest bubble (Config.Bubble),
// where time stands still while code runs, each reads 0. A load test takes
// the median and the longest of a stretch of play from it (HostStats.Steps
// keeps only the longest of the last one to two seconds of the machine's
// clock, a join's spike with it).
func (r *Rig[I]) HostTimes() []time.Duration { return slices.Clone(r.hostTime) }

// StepUntil steps until done reports true, at most limit times, and
// reports whether it did. done is asked before the first step too.
func (r *Rig[I]) StepUntil(limit int, done func() bool) bool {
	r.t.Helper()
	for range limit {
		if done() {
			return true
		}
		r.Step(1)
	}
	return done()
}

// acceptAll hands the host every connection waiting at its listener.
func (r *Rig[I]) acceptAll() {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 0)
		tc, err := r.listener.Accept(ctx)
		cancel()
		if err != nil {
			return
		}
		r.Host.Accept(tc)
	}
}

// Conn returns the connection client c dialed last (its first, or its
// latest redial's, which the client may not have taken up yet), nil before
// it dialed: a test closes it (Close, with a code of its choice) or cuts it.
func (r *Rig[I]) Conn(c *tandem.Client[I]) *mem.Conn {
	l := r.links[c]
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.conns) == 0 {
		return nil
	}
	return l.conns[len(l.conns)-1]
}

// Cut breaks client c's connection as a network that drops it without a
// word would (mem.Conn.Cut): each side learns of it by its own timeouts;
// the client then dials again and resumes its peer within the host's grace
// window (HostConfig.Grace). A client with datagrams in flight notices in
// about 5 s (its ack timeout); one with nothing to send (a spectator of a
// still world) by the transport's idle timeout, 10 s (mem.Config's
// IdleTimeout, as quicnet's). It needs Config.Bubble (see the package
// documentation).
func (r *Rig[I]) Cut(c *tandem.Client[I]) {
	r.t.Helper()
	r.needBubble("Cut")
	conn := r.Conn(c)
	if conn == nil {
		r.t.Fatal("tandemtest: Cut of a client that never dialed")
	}
	conn.Cut()
}

// Blackout makes client c's link carry nothing for d from now
// (mem.Conn.Blackout of its end), then carry again: what it sends and what
// would reach it meanwhile is lost (lane messages wait), as over a network
// that drops everything for a while without breaking (a Wi-Fi hand-over, a
// burst of loss). Neither side is told; a blackout that outlasts the
// client's ack timeout (5 s) breaks the connection as Cut does (the client
// then dials again, which needs Config.Bubble), a shorter one does not.
func (r *Rig[I]) Blackout(c *tandem.Client[I], d time.Duration) {
	r.t.Helper()
	conn := r.Conn(c)
	if conn == nil {
		r.t.Fatal("tandemtest: Blackout of a client that never dialed")
	}
	conn.Blackout(d)
}

// Mute makes what client c sends lost for d from now (mem.Conn.Mute of its
// end), while what the host sends still reaches it: a link dark from the
// client to the host only. The host hears nothing of the player (it
// repeats her last input for a while, then stops her); a mute that
// outlasts the client's ack timeout (5 s) breaks the connection as Cut
// does (the client then dials again, which needs Config.Bubble), a
// shorter one does not.
func (r *Rig[I]) Mute(c *tandem.Client[I], d time.Duration) {
	r.t.Helper()
	conn := r.Conn(c)
	if conn == nil {
		r.t.Fatal("tandemtest: Mute of a client that never dialed")
	}
	conn.Mute(d)
}

// Unreachable makes every dial of client c fail (on) as a host it cannot
// reach would, or succeed again (off): with Cut, a player kept away for as
// long as a test needs, past the host's grace window, say, or while the
// host restarts. Dials under way are not stopped. The client tries for the
// host's grace window and 5 s more from when it noticed the break, and a
// Cut's host notices only by its idle timeout (10 s): to have a player come
// back after its window ran out on the host (refused, it joins afresh as a
// new player), close its connection as timed out instead
// (Conn(c).Close(transport.CloseTimeout, ...)), which both sides learn of
// at once, and turn Unreachable off once the host let it go.
func (r *Rig[I]) Unreachable(c *tandem.Client[I], on bool) {
	r.t.Helper()
	l := r.links[c]
	if l == nil {
		r.t.Fatal("tandemtest: Unreachable of a client the rig did not make")
	}
	l.mu.Lock()
	l.unreachable = on
	l.mu.Unlock()
}

// Link gives client c a link of its own, from now on and on every
// connection it dials again: toHost conditions what it sends, toClient what
// the host sends it (each direction's latency, jitter, loss, bandwidth), in
// place of Config.Link, which the other clients keep: one player on a bad
// link among good ones. Their Seed is not used: the link's loss and jitter
// go on drawing from the numbers the Seeds of Config.Link's ToHost and
// ToClient began (condition.Config.Seed; set those for another draw). The test fails on a configuration the conditioner
// refuses.
func (r *Rig[I]) Link(c *tandem.Client[I], toHost, toClient condition.Config) {
	r.t.Helper()
	l := r.links[c]
	if l == nil {
		r.t.Fatal("tandemtest: Link of a client the rig did not make")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.conditions = &[2]condition.Config{toHost, toClient}
	if n := len(l.conns); n > 0 {
		if err := l.apply(l.conns[n-1]); err != nil {
			r.t.Fatalf("tandemtest: Link: %v", err)
		}
	}
}

// errUnreachable is the error of a dial of a client made Unreachable.
var errUnreachable = errors.New("tandemtest: no route to the host (Rig.Unreachable)")

// Restart closes the host for a restart (Host.CloseForRestart: its world
// saved, its clients told to come back) and starts a new one with the same
// game and configuration, which restores that save; the clients reconnect
// to it as Step turns (until each has the old host's close, a step or so,
// its State still says Playing: wait for NetStats.Resumes to rise; a
// spectator, which no save keeps, joins the new host afresh). It
// needs Config.Bubble (see the package
// documentation). The host must be able to restart (Host.Restartable:
// it saves, with SaveTo or Store, and keeps a grace window); the test fails
// if it cannot, or if either host fails.
func (r *Rig[I]) Restart() {
	r.t.Helper()
	r.needBubble("Restart")
	if !r.Host.Restartable() {
		r.t.Fatal("tandemtest: Restart of a host that cannot restart: give HostConfig a SaveTo (or Store), and leave Grace at its default or positive (a negative Grace keeps no one)")
	}
	if err := r.Host.CloseForRestart(); err != nil {
		r.t.Fatalf("tandemtest: the host's close for a restart: %v", err)
	}
	h, err := tandem.NewHost(r.game, r.hostCfg)
	if err != nil {
		r.t.Fatalf("tandemtest: the restarted host: %v", err)
	}
	r.Host = h
}

// Kill ends the host as a killed process ends, and starts it again: no
// final save, not a word to its clients (every connection of theirs goes
// silent, as after Cut), and a new host with the same game and
// configuration on the save as the disk held it at the kill: what the
// host had made durable, no more. A receipt a client heard was saved
// before it went (a command's change is in the new host's world), and
// what changed since the last save is lost. The clients find the silence
// out by their own timeouts (about 5 s), dial again and resume into the
// new host, which restored their places, as the same players. It needs
// Config.Bubble and HostConfig.SaveTo (a bbolt file: a Store of the test's
// own cannot be copied as it stands); the test fails without them, or if
// the new host fails to start. The new host saves to a copy of the file
// (SaveTo's path with ".killed" and a number added); the old one is closed
// at the test's end.
func (r *Rig[I]) Kill() {
	r.t.Helper()
	r.needBubble("Kill")
	if r.hostCfg.SaveTo == "" {
		r.t.Fatal("tandemtest: Kill of a host without HostConfig.SaveTo: a killed host comes back from its save file (a Store cannot be copied as it stands)")
	}
	for _, c := range r.Clients {
		if conn := r.Conn(c); conn != nil {
			conn.Cut()
		}
	}
	// Every goroutine of the host waits (the Step ended in synctest.Wait,
	// which cannot return while the store's goroutine is in a write): no
	// commit is under way, and the file holds the last one whole, as a
	// crash between two commits leaves it.
	saved, err := os.ReadFile(r.hostCfg.SaveTo)
	if err != nil {
		r.t.Fatalf("tandemtest: Kill: reading the save: %v", err)
	}
	if r.kills == 0 {
		r.saveBase = r.hostCfg.SaveTo
	}
	r.kills++
	cfg := r.hostCfg
	cfg.SaveTo = fmt.Sprintf("%s.killed%d", r.saveBase, r.kills)
	if err := os.WriteFile(cfg.SaveTo, saved, 0o600); err != nil {
		r.t.Fatalf("tandemtest: Kill: copying the save: %v", err)
	}
	h, err := tandem.NewHost(r.game, cfg)
	if err != nil {
		r.t.Fatalf("tandemtest: the host started again after Kill: %v", err)
	}
	r.killed = append(r.killed, r.Host)
	r.Host, r.hostCfg = h, cfg
}
