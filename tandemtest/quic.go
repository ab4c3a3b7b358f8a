package tandemtest

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/net/transport/quicnet/joincode"
)

// Loopback is a game's host and its clients over QUIC on this machine's
// loopback, each running on a goroutine of its own at its real rate, as a
// game runs them: for a test of what the Rig's in-memory network and fake
// clock leave out (the transport, its packets, real time). Its runs are not
// repeatable frame by frame: a test waits for states (Join waits until a
// client plays; Host.Do and Client.View look), not for a count of frames.
// The Rig's report check is not on here, and may not be (a failed check
// would end the test binary from the host's goroutine): test the game's
// rules on a Rig.
//
// Cut breaks a client's network, and Restart restarts the host on its save,
// for a test of reconnection over real QUIC. A Loopback belongs to the
// test's goroutine; the host and the clients are safe to use from it as
// everywhere (package tandem).
type Loopback[I comparable] struct {
	// Host is the host, running; its listener is on Addr. Restart
	// replaces it.
	Host *tandem.Host[I]
	// Addr is where the host listens (127.0.0.1 and a free port), and Line
	// the join line a player would be given for it (package joincode:
	// the address and the certificate's fingerprint).
	Addr, Line string
	// Clients are the clients Join made, in that order, each running
	// until it is closed.
	Clients []*tandem.Client[I]

	t        testing.TB
	game     *tandem.Game[I]
	hostCfg  tandem.HostConfig  // as NewLoopback completed it, for Restart's host too
	serve    quicnet.Config     // the host's transport's: its certificate and reset key, kept across Restart
	listener transport.Listener // the running host's
	socket   net.PacketConn     // its UDP socket
	dial     quicnet.Config     // a client's transport's, pinned by the join line
	ctx      context.Context
	stop     context.CancelFunc
	running  sync.WaitGroup
	mu       sync.Mutex
	sockets  map[*tandem.Client[I]]*sockets // what each client dialed, for Cut
	runs     map[*tandem.Client[I]]*runEnd  // how each client's Run ended, for Ended
	logs     *testWriter                    // the host's and the clients' loggers write here
}

// runEnd is a client's name, and what its Run returned, once done is
// closed.
type runEnd struct {
	name      string
	spectator bool // joined to watch (ClientConfig.Spectator)
	done      chan struct{}
	err       error
}

// NewLoopback starts game g's host with host's configuration on a QUIC
// listener on loopback, with a certificate of its own (kept for Restart),
// and runs it (leave
// its Clock unset, and its Replication.CheckReports off). Every client
// comes from 127.0.0.1: unless set, the host's MaxPeersPerAddress takes
// them all (its MaxPeers, 8 unless set, and its Spectators). The QUIC
// listener still sets up quicnet.Config.MaxHandshakesPerAddress (4)
// connections at once from one address before it asks more to prove the
// address, and refuses those past the limit again (transport.ErrBusy,
// which a client with ClientConfig.Dial dials again after): Join joins one
// after another (it waits until each plays). A command
// handler that panics on the host fails the test (unless
// HostConfig.OnCommandPanic is set). The test fails if it cannot start. When the test ends the clients close,
// then the host (Close: a host with a store saves then); a host whose Close
// fails there fails the test, as on a Rig. What the host and the clients
// log (a HostConfig or ClientConfig without a Logger) goes to the test's
// log, named, as on a Rig.
func NewLoopback[I comparable](t testing.TB, g *tandem.Game[I], host tandem.HostConfig) *Loopback[I] {
	t.Helper()
	switch {
	case host.Clock != nil:
		t.Fatal("tandemtest: leave HostConfig.Clock unset: a Loopback's host runs at the real rate (a fake clock is a Rig's)")
	case host.Replication.CheckReports:
		t.Fatal("tandemtest: leave HostConfig.Replication.CheckReports off on a Loopback (a failed check would end the test binary from the host's goroutine): a Rig checks the reports")
	}
	if host.MaxPeersPerAddress == 0 {
		// Every client comes from 127.0.0.1.
		host.MaxPeersPerAddress = max(host.MaxPeers, 8) + host.Spectators
	}
	if host.OnCommandPanic == nil {
		host.OnCommandPanic = func(p *tandem.CommandPanic) { t.Errorf("tandemtest: %v", p) }
	}
	logs := newTestWriter(t) // before the Loopback's close: it stops after it
	if host.Logger == nil {
		host.Logger = logs.logger("host")
	}
	// The host's identity, kept for Restart as a game keeps its own
	// (tandem.OpenSave): the certificate its clients pin, and the key of
	// its stateless resets.
	cert, err := quicnet.NewCertificate()
	if err != nil {
		t.Fatalf("tandemtest: the host's certificate: %v", err)
	}
	var resetKey [32]byte
	if _, err := rand.Read(resetKey[:]); err != nil {
		t.Fatalf("tandemtest: the host's reset key: %v", err)
	}
	lb := &Loopback[I]{t: t, game: g, hostCfg: host, logs: logs, serve: quicnet.Config{Certificate: &cert, StatelessResetKey: &resetKey}}
	fingerprint, err := lb.listen("127.0.0.1:0")
	if err != nil {
		t.Fatalf("tandemtest: listen on loopback: %v", err)
	}
	h, err := tandem.NewHost(g, host)
	if err != nil {
		lb.listener.Close()
		t.Fatalf("tandemtest: the host: %v", err)
	}
	lb.Host, lb.Addr = h, quicnet.ReachableAddr(lb.listener.Addr())
	if lb.Line, _, err = joincode.Lines(lb.Addr, fingerprint); err != nil {
		lb.listener.Close()
		t.Fatalf("tandemtest: the join line: %v", err)
	}
	code, err := joincode.Parse(lb.Line)
	if err != nil {
		lb.listener.Close()
		t.Fatalf("tandemtest: the join line: %v", err)
	}
	code.Apply(&lb.dial)
	lb.sockets = map[*tandem.Client[I]]*sockets{}
	lb.runs = map[*tandem.Client[I]]*runEnd{}
	lb.ctx, lb.stop = context.WithCancel(context.Background())
	t.Cleanup(lb.close)
	lb.start(h)
	return lb
}

// listen opens the host's listener at addr with the loopback's identity,
// keeping it and its UDP socket, and returns the certificate's
// fingerprint.
func (lb *Loopback[I]) listen(addr string) (fingerprint string, err error) {
	cfg := lb.serve
	var socket net.PacketConn
	cfg.WrapPacketConn = func(pc net.PacketConn) (net.PacketConn, error) {
		socket = pc // Listen calls it before it returns
		return pc, nil
	}
	ht, err := quicnet.New(cfg)
	if err != nil {
		return "", err
	}
	l, err := ht.Listen(addr)
	if err != nil {
		return "", err
	}
	lb.listener, lb.socket = l, socket
	return ht.Fingerprint(), nil
}

// start serves the listener with h and runs h until the test ends.
func (lb *Loopback[I]) start(h *tandem.Host[I]) {
	h.Serve(lb.listener)
	lb.run(func(ctx context.Context) error { return h.Run(ctx) })
}

// Ended waits up to within for the Run of c, a client Join made, to
// return, and returns what it returned, with ended false if it still runs:
// tandem.ErrHostClosed after the host shut down (Host.Close),
// tandem.ErrHostRestarting after a CloseForRestart it could not follow,
// tandem.ErrClosed after c's own Close, else what c.Err says. (Err is nil
// after the first three: Ended tells them apart.)
func (lb *Loopback[I]) Ended(c *tandem.Client[I], within time.Duration) (ended bool, err error) {
	lb.mu.Lock()
	end := lb.runs[c]
	lb.mu.Unlock()
	if end == nil {
		lb.t.Fatal("tandemtest: Ended: a client this loopback's Join did not make")
	}
	select {
	case <-end.done:
		return true, end.err
	default:
	}
	t := time.NewTimer(within)
	defer t.Stop()
	select {
	case <-end.done:
		return true, end.err
	case <-t.C:
		return false, nil
	}
}

// run runs fn on a goroutine of its own until the test ends.
func (lb *Loopback[I]) run(fn func(ctx context.Context) error) {
	lb.running.Add(1)
	go func() {
		defer lb.running.Done()
		_ = fn(lb.ctx)
	}()
}

// Join dials the host for a new client with cfg (its Name is name; its Dial
// is the loopback's, pinned by the host's join line, and its Clock the real
// one: leave both unset), runs it, and waits until it plays. The test fails
// if it is refused, or does not play within JoinWait of the call, its first
// dial included.
func (lb *Loopback[I]) Join(name string, cfg tandem.ClientConfig[I]) *tandem.Client[I] {
	lb.t.Helper()
	return lb.JoinOver(name, cfg, condition.Config{}, condition.Config{})
}

// JoinOver is Join for a client behind a link, as Rig.JoinOver: every
// packet its UDP sockets send to the host goes through toHost, every one
// they receive through toClient (a condition.PacketConn), so QUIC itself
// (its handshake, its congestion control, what it sends again) and the
// game meet that network: a Latency of 40 ms each way makes a round trip
// of 80. Zero links are Join's. Cut still cuts it. An invalid link fails
// the test.
func (lb *Loopback[I]) JoinOver(name string, cfg tandem.ClientConfig[I], toHost, toClient condition.Config) *tandem.Client[I] {
	lb.t.Helper()
	if cfg.Dial != nil || cfg.Clock != nil {
		lb.t.Fatal("tandemtest: leave ClientConfig.Dial and Clock unset: a Loopback's client dials its host and runs at the real rate")
	}
	for _, link := range []condition.Config{toHost, toClient} {
		if err := link.Validate(); err != nil {
			lb.t.Fatalf("tandemtest: %s's link: %v", name, err)
		}
	}
	deadline := time.Now().Add(JoinWait)
	socks := &sockets{toHost: toHost, toClient: toClient}
	qc := lb.dial
	qc.WrapPacketConn = socks.wrap
	tr, err := quicnet.New(qc)
	if err != nil {
		lb.t.Fatalf("tandemtest: %s's transport: %v", name, err)
	}
	cfg.Name, cfg.Dial = name, tr.Dialer(lb.Addr, JoinWait)
	if cfg.Logger == nil {
		cfg.Logger = lb.logs.logger(name)
	}
	if cfg.JoinTimeout <= 0 || cfg.JoinTimeout > JoinWait {
		cfg.JoinTimeout = JoinWait
	}
	ready := make(chan struct{}, 1)
	c, err := tandem.NewClient(lb.game, nil, cfg)
	if err != nil {
		lb.t.Fatalf("tandemtest: %s did not join: %v", name, err)
	}
	c.OnEvent(func(e tandem.Event) {
		if e.Kind == tandem.PeerReady {
			select { // an observer never waits: it holds the world
			case ready <- struct{}{}:
			default:
			}
		}
	})
	lb.Clients = append(lb.Clients, c)
	end := &runEnd{name: name, spectator: cfg.Spectator, done: make(chan struct{})}
	lb.mu.Lock()
	lb.sockets[c] = socks
	lb.runs[c] = end
	lb.mu.Unlock()
	ended := make(chan error, 1)
	lb.run(func(ctx context.Context) error {
		err := c.Run(ctx)
		end.err = err
		close(end.done)
		ended <- err
		return err
	})
	wait := time.NewTimer(time.Until(deadline))
	defer wait.Stop()
	select {
	case <-ready:
	case err := <-ended:
		switch why := c.Err(); {
		case err == nil:
			err = why
		case why != nil && why.Error() != err.Error():
			err = fmt.Errorf("%w (%v)", err, why)
		}
		lb.t.Fatalf("tandemtest: %s did not join: %v", name, err)
	case <-wait.C:
		lb.t.Fatalf("tandemtest: %s did not join within %v: %v (its error: %v; the host's: %v)", name, JoinWait, c.State(), c.Err(), lb.Host.Err())
	}
	return c
}

// JoinWait bounds how long Loopback.Join waits for a client to play, and
// Loopback.Restart for the clients to play again on the new host.
const JoinWait = 10 * time.Second

// close closes every client, then the host, and waits for their Runs. A
// host the test did not close or stop, whose Close fails (its final save),
// fails the test.
func (lb *Loopback[I]) close() {
	for _, c := range lb.Clients {
		_ = c.Close()
	}
	closeHost(lb.t, lb.Host)
	lb.stop()
	lb.running.Wait()
	if lb.listener != nil {
		_ = lb.listener.Close()
	}
}
