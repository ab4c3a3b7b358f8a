// Package mem is an in-memory transport for tests and tools: connections
// between a host and clients in one process, with datagrams that go through
// the link conditioner and reliable ordered lanes, all driven by a clock.Clock.
//
// It stands in for net/transport/quicnet under net/conn and the layers above
// it. Nothing moves on a goroutine: each direction of a connection holds its
// packets and messages with a delivery time, and RecvDatagram and RecvMessage
// return only what is due at the clock's Now. With a clock.Fake the same
// calls give the same results on every run, and an hour of traffic takes as
// long as the code needs to run.
package mem

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// Config sets the conditions and limits of every connection of a Network.
type Config struct {
	// ToHost and ToClient condition datagrams in each direction. Each
	// connection gets its own random sequence, derived from the direction's
	// condition.Config.Seed and the connection's dial order. Lane messages take Latency only (they are
	// reliable: never lost, duplicated or reordered, and not capped by
	// Bandwidth).
	ToHost, ToClient condition.Config
	// LaneDelay adds, per lane, a delay to the Latency of that lane's
	// messages (both ways), so lanes deliver in another order than they were
	// sent in, as separate QUIC streams may: a delayed control lane lets join
	// pages overtake the Welcome. Order within a lane is kept.
	LaneDelay [transport.NumLanes]time.Duration
	// MaxMessageSize is the largest lane message, in bytes. Zero means 1 MiB.
	MaxMessageSize int
	// LaneQueueBytes bounds, per lane and direction, the memory held by the
	// messages sent and not yet taken by the peer's RecvMessage, each counted
	// at transport.MessageCost; past it SendMessage returns
	// transport.ErrLaneQueueFull (a message into an empty lane is always
	// taken). Zero means 4 MiB.
	LaneQueueBytes int
	// LaneQueueMessages bounds, per lane and direction, the messages sent and
	// not yet taken; past it SendMessage returns transport.ErrLaneQueueFull.
	// Zero means 1,024.
	LaneQueueMessages int
	// Backlog bounds the connections dialed and not yet accepted per listener.
	// Zero means 64.
	Backlog int
	// IdleTimeout is how long after a Cut each end of the connection
	// closes on its own (CloseTimeout), as a QUIC connection whose
	// keepalives go unanswered does past its idle timeout: an end with
	// nothing in flight (a client that only watches a still world) learns
	// of the break so. A link that is not cut never idles out: it stands
	// for a transport whose keepalives are answered. Zero means 10 s
	// (quicnet's default); negative: never.
	IdleTimeout time.Duration
}

const (
	defaultIdleTimeout    = 10 * time.Second
	defaultMaxMessageSize = 1 << 20
	defaultLaneQueueBytes = 4 << 20
	defaultLaneQueueMsgs  = 1024
	defaultBacklog        = 64
)

// Network is a namespace of in-memory listeners. It implements
// transport.Transport; addresses are free-form names.
//
// Concurrency: safe for concurrent use.
type Network struct {
	clk clock.Clock
	cfg Config

	mu        sync.Mutex
	listeners map[string]*Listener
	dials     uint64
}

var _ transport.Transport = (*Network)(nil)

// NewNetwork returns an empty network whose connections read time from clk.
// It refuses conditions that condition.Config.Validate refuses.
func NewNetwork(clk clock.Clock, cfg Config) (*Network, error) {
	if clk == nil {
		return nil, errors.New("mem: NewNetwork needs a clock; pass clock.Real{} or a *clock.Fake")
	}
	if err := cfg.ToHost.Validate(); err != nil {
		return nil, fmt.Errorf("mem: ToHost: %w", err)
	}
	if err := cfg.ToClient.Validate(); err != nil {
		return nil, fmt.Errorf("mem: ToClient: %w", err)
	}
	for _, d := range cfg.LaneDelay {
		if d < 0 {
			return nil, errors.New("mem: LaneDelay must not be negative")
		}
	}
	if cfg.MaxMessageSize < 0 || cfg.LaneQueueBytes < 0 || cfg.LaneQueueMessages < 0 || cfg.Backlog < 0 {
		return nil, errors.New("mem: MaxMessageSize, LaneQueueBytes, LaneQueueMessages and Backlog must not be negative; use 0 for the default")
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = defaultIdleTimeout
	}
	if cfg.MaxMessageSize == 0 {
		cfg.MaxMessageSize = defaultMaxMessageSize
	}
	if cfg.LaneQueueBytes == 0 {
		cfg.LaneQueueBytes = defaultLaneQueueBytes
	}
	if cfg.LaneQueueMessages == 0 {
		cfg.LaneQueueMessages = defaultLaneQueueMsgs
	}
	if cfg.Backlog == 0 {
		cfg.Backlog = defaultBacklog
	}
	return &Network{clk: clk, cfg: cfg, listeners: make(map[string]*Listener)}, nil
}

// Listen starts accepting connections dialed to name.
func (n *Network) Listen(name string) (transport.Listener, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, taken := n.listeners[name]; taken {
		return nil, fmt.Errorf("mem: %q already has a listener; close it first or pick another name", name)
	}
	l := &Listener{
		net:     n,
		addr:    Addr(name),
		pending: make(chan *Conn, n.cfg.Backlog),
		done:    make(chan struct{}),
	}
	n.listeners[name] = l
	return l, nil
}

// Dial connects to the listener at name and returns the client side at once;
// the host side waits in the listener's Accept.
func (n *Network) Dial(ctx context.Context, name string) (transport.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.listeners[name]
	if l == nil {
		return nil, fmt.Errorf("mem: nothing listens at %q; call Listen first", name)
	}
	n.dials++
	k := n.dials
	toHost, toClient := n.cfg.ToHost, n.cfg.ToClient
	toHost.Seed = mix(toHost.Seed, 2*k)
	toClient.Seed = mix(toClient.Seed, 2*k+1)
	client, host := newPair(n.clk, n.cfg, toHost, toClient, Addr(fmt.Sprintf("client-%d", k)), l.addr)
	select {
	case l.pending <- host:
		return client, nil
	default:
		return nil, fmt.Errorf("mem: the listener at %q has %d connections waiting to be accepted; call Accept", name, cap(l.pending))
	}
}

// mix derives a per-connection seed (splitmix64 of seed and k).
func mix(seed, k uint64) uint64 {
	z := seed + k*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Addr is the address of an in-memory endpoint: the listener's name, or
// "client-N" for the N-th dialed connection.
type Addr string

// Network returns "mem".
func (Addr) Network() string { return "mem" }

// String returns the name.
func (a Addr) String() string { return string(a) }

// Listener accepts the connections dialed to its name.
type Listener struct {
	net     *Network
	addr    Addr
	pending chan *Conn

	closeOnce sync.Once
	done      chan struct{}
}

var _ transport.Listener = (*Listener)(nil)

// Accept returns the next dialed connection's host side, waiting for one
// until ctx ends or the listener closes.
func (l *Listener) Accept(ctx context.Context) (transport.Conn, error) {
	select {
	case c := <-l.pending:
		return c, nil
	default:
	}
	select {
	case c := <-l.pending:
		return c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.done:
		return nil, transport.ErrListenerClosed
	}
}

// Addr returns the listener's name, an Addr.
func (l *Listener) Addr() net.Addr { return l.addr }

// Close frees the name. Connections dialed and not yet accepted are closed
// with transport.CloseNormal, as a socket that stops listening tells its
// dialers nothing of the host's fate (a client dialing again goes on);
// accepted ones stay open.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() {
		l.net.mu.Lock()
		delete(l.net.listeners, string(l.addr))
		close(l.done)
		l.net.mu.Unlock()
		for {
			select {
			case c := <-l.pending:
				_ = c.Close(transport.CloseNormal, "the host stopped listening")
			default:
				return
			}
		}
	})
	return nil
}
