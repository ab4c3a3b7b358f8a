// Package quicnet is the real network under Tandem: transport.Transport,
// Listener and Conn over QUIC (quic-go), with TLS 1.3, congestion control and
// path MTU discovery from QUIC.
//
// In the pipeline it sits under net/conn, beside the in-memory transport
// (net/transport/mem). A connection is one QUIC connection with ALPN
// "tandem/1" and datagrams enabled (RFC 9221). Datagrams carry state and
// inputs; lanes are reliable ordered message streams, one unidirectional QUIC
// stream per lane and direction (framing: see frame.go and PROTOCOL.md).
//
// The host presents a certificate (a self-signed one is generated when none is
// given) and prints its Fingerprint; a client pins that fingerprint. Each
// Conn moves bytes on its own goroutines: a datagram reader into a bounded
// queue, a datagram sender fed from a bounded queue (quic-go's SendDatagram
// blocks when its own queue is full; the simulation never calls it), a writer
// and a reader per lane. The simulation polls the Conn once a tick and never
// blocks. A peer that breaks the framing is disconnected with a typed error;
// nothing a peer sends makes this package panic or allocate past a limit.
//
// What a peer can make a host hold is bounded by what it costs: received
// lane messages are charged at transport.MessageCost against per-lane limits
// of bytes and messages, and until the session admits the peer (Conn.Admit)
// at the small bounds of transport.UnadmittedMaxMessageSize and its
// neighbours; a listener's connections start with small QUIC receive
// windows. A listener asks connection attempts to prove their source address
// (QUIC Retry) when many handshakes are in progress, in all or from one
// address, and answers packets of connections it does not know with a
// stateless reset when it has a Config.StatelessResetKey. LoadIdentity keeps
// a host's certificate and reset key beside its saves (a store's meta
// records), so a restarted host is the same host: its clients' pins hold;
// LoadResetKey keeps a reset key in a file for a host without a store.
//
// Package joincode (net/transport/quicnet/joincode) turns a host's address
// (ReachableAddr) and Fingerprint into the join line a player passes on,
// and a join line back into the pin a client sets on its Config.
//
// Package name: quic-go's package is named quic; quicnet avoids the clash in
// files that import both.
package quicnet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tandem-go/tandem/net/transport"
)

// Transport listens and dials QUIC connections. It implements
// transport.Transport.
//
// Concurrency: safe for concurrent use; it holds only configuration.
type Transport struct {
	cfg         Config
	cert        tls.Certificate
	fingerprint string
	pin         []byte // decoded Config.Fingerprint, nil when not pinning
}

var _ transport.Transport = (*Transport)(nil)

// New checks cfg and returns a Transport. When cfg.Certificate is nil it
// generates a self-signed certificate for the host side.
func New(cfg Config) (*Transport, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	t := &Transport{cfg: cfg}
	if cfg.Fingerprint != "" {
		if t.pin, err = ParseFingerprint(cfg.Fingerprint); err != nil {
			return nil, err
		}
	}
	if cfg.Certificate != nil {
		if len(cfg.Certificate.Certificate) == 0 {
			return nil, errors.New("quicnet: Config.Certificate holds no certificate; load one with tls.LoadX509KeyPair or leave it nil")
		}
		t.cert = *cfg.Certificate
	} else if t.cert, err = NewCertificate(); err != nil {
		return nil, err
	}
	t.fingerprint = Fingerprint(t.cert.Certificate[0])
	return t, nil
}

// Fingerprint returns the SHA-256 fingerprint of the host's certificate (64
// lower-case hex digits), for the join line that clients pin
// (joincode.Lines).
func (t *Transport) Fingerprint() string { return t.fingerprint }

// Listen opens a UDP socket at addr ("host:port"; port 0 picks one), wraps it
// with Config.WrapPacketConn if set, and accepts QUIC connections on it. The
// socket closes when the listener and every connection it accepted are closed.
func (t *Transport) Listen(addr string) (transport.Listener, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("quicnet: listen address %q: %w", addr, err)
	}
	udp, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, fmt.Errorf("quicnet: listen on %s: %w", addr, err)
	}
	pc, err := t.wrap(udp)
	if err != nil {
		return nil, err
	}
	return t.listen(&endpoint{qt: &quic.Transport{Conn: pc}, pc: pc, ownPC: true})
}

// ListenPacket accepts QUIC connections on pc, any net.PacketConn (a
// conditioned socket, a simulated network). Config.WrapPacketConn is not
// applied. The caller keeps pc and closes it after the listener and its
// connections are closed.
func (t *Transport) ListenPacket(pc net.PacketConn) (*Listener, error) {
	return t.listen(&endpoint{qt: &quic.Transport{Conn: pc}, pc: pc})
}

func (t *Transport) listen(ep *endpoint) (*Listener, error) {
	hs := newHandshakes(&t.cfg)
	ep.qt.VerifySourceAddress = hs.verifySource
	ep.qt.ConnContext = func(ctx context.Context, info *quic.ClientInfo) (context.Context, error) {
		return hs.begin(ctx, info.RemoteAddr, info.AddrVerified)
	}
	if t.cfg.StatelessResetKey != nil {
		key := quic.StatelessResetKey(*t.cfg.StatelessResetKey)
		ep.qt.StatelessResetKey = &key
	}
	ql, err := ep.qt.Listen(t.serverTLS(), t.cfg.listenConfig())
	if err != nil {
		ep.refs = 1
		ep.release()
		return nil, fmt.Errorf("quicnet: listen: %w", err)
	}
	ep.refs = 1 // the listener's
	return &Listener{t: t, ql: ql, ep: ep, hs: hs}, nil
}

// Dial opens a UDP socket of its own, wraps it with Config.WrapPacketConn if
// set, and connects to the host at addr ("host:port"), blocking until the
// handshake completes, ctx ends or the attempt fails. A host whose certificate
// does not match Config.Fingerprint is refused with an error wrapping a
// *FingerprintError.
func (t *Transport) Dial(ctx context.Context, addr string) (transport.Conn, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("quicnet: dial address %q: %w", addr, err)
	}
	udp, err := net.ListenUDP("udp", nil)
	if err != nil {
		return nil, fmt.Errorf("quicnet: opening a UDP socket: %w", err)
	}
	pc, err := t.wrap(udp)
	if err != nil {
		return nil, err
	}
	host, _, _ := net.SplitHostPort(addr)
	c, err := t.dial(ctx, &endpoint{qt: &quic.Transport{Conn: pc}, pc: pc, ownPC: true}, ua, host)
	if err != nil {
		return nil, err // not a nil *Conn in the interface: callers compare with nil
	}
	return c, nil
}

// Dialer returns a function that connects to the host at addr with Dial,
// each call on a new socket of its own, bounded by timeout besides its ctx
// (zero or less: by ctx only). Either way a host that sends nothing is given
// up after Config.HandshakeTimeout (5 s), which bounds the silence during a
// handshake, not its length. It is what tandem.ClientConfig.Dial takes: the
// client dials with it whenever its connection breaks, and the first time
// too when NewClient is given no connection.
func (t *Transport) Dialer(addr string, timeout time.Duration) func(ctx context.Context) (transport.Conn, error) {
	return func(ctx context.Context) (transport.Conn, error) {
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		return t.Dial(ctx, addr)
	}
}

// ReachableAddr returns the address others reach a listener bound to a at,
// to show players (in a join line): a itself when it names a specific IP;
// else (an unspecified IP, [::] or 0.0.0.0: every interface) an IPv4
// address of this machine's interfaces that are up, with a's port: a public
// one first, then a private one (a LAN's), then one of a VPN (tailscale…,
// wg…, tun…) or of carrier-grade NAT space; never a loopback or link-local
// one nor one of a container or virtual machine bridge (docker0, br-…,
// virbr…, veth…); 127.0.0.1 when there is none. From outside a NAT the host
// is reached at another address, which only the network can tell: give
// players that one.
func ReachableAddr(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip != nil && !ip.IsUnspecified() {
		return a.String()
	}
	var found []ifaceAddr
	if ifs, err := net.Interfaces(); err == nil {
		for _, in := range ifs {
			addrs, err := in.Addrs()
			if err != nil {
				continue
			}
			for _, ad := range addrs {
				if n, ok := ad.(*net.IPNet); ok {
					found = append(found, ifaceAddr{name: in.Name, flags: in.Flags, ip: n.IP})
				}
			}
		}
	}
	return net.JoinHostPort(reachableIP(found), port)
}

// ifaceAddr is one address of an interface, as ReachableAddr weighs it.
type ifaceAddr struct {
	name  string
	flags net.Flags
	ip    net.IP
}

// bridgePrefixes name the interfaces of container and virtual machine
// bridges, whose addresses no other machine reaches.
var bridgePrefixes = []string{"docker", "br-", "virbr", "veth", "cni", "flannel", "lxc", "vmnet", "vboxnet"}

// vpnPrefixes name the interfaces of virtual private networks, whose
// addresses only the network's members reach.
var vpnPrefixes = []string{"tailscale", "tun", "utun", "wg", "zt"}

// sharedSpace is 100.64.0.0/10 (carrier-grade NAT, and tailnets) and
// 198.18.0.0/15 (VPNs' stand-in addresses): not private, not reached from
// the internet either.
var sharedSpace = []*net.IPNet{
	{IP: net.IPv4(100, 64, 0, 0), Mask: net.CIDRMask(10, 32)},
	{IP: net.IPv4(198, 18, 0, 0), Mask: net.CIDRMask(15, 32)},
}

// reachableIP picks ReachableAddr's address among addrs, the first of the
// best tier in their order: a public IPv4 of an interface that is up, then
// a private one (a LAN's), then one of shared space or of a VPN interface;
// else 127.0.0.1.
func reachableIP(addrs []ifaceAddr) string {
	var best [3]string
	for _, a := range addrs {
		ip := a.ip.To4()
		if ip == nil || a.flags&net.FlagUp == 0 || a.flags&net.FlagLoopback != 0 ||
			ip.IsLoopback() || ip.IsLinkLocalUnicast() || !ip.IsGlobalUnicast() || hasPrefix(a.name, bridgePrefixes) {
			continue
		}
		tier := 0
		switch {
		case hasPrefix(a.name, vpnPrefixes) || sharedSpace[0].Contains(ip) || sharedSpace[1].Contains(ip):
			tier = 2
		case ip.IsPrivate():
			tier = 1
		}
		if best[tier] == "" {
			best[tier] = ip.String()
		}
	}
	for _, ip := range best {
		if ip != "" {
			return ip
		}
	}
	return "127.0.0.1"
}

// hasPrefix reports whether name begins with one of prefixes.
func hasPrefix(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// DialPacket connects to the host at addr over pc, any net.PacketConn.
// Config.WrapPacketConn is not applied. The caller keeps pc and closes it
// after the connection is closed.
func (t *Transport) DialPacket(ctx context.Context, pc net.PacketConn, addr net.Addr) (*Conn, error) {
	host, _, _ := net.SplitHostPort(addr.String())
	return t.dial(ctx, &endpoint{qt: &quic.Transport{Conn: pc}, pc: pc}, addr, host)
}

func (t *Transport) dial(ctx context.Context, ep *endpoint, addr net.Addr, serverName string) (*Conn, error) {
	ep.refs = 1 // the connection's
	var pins pinCheck
	qc, err := ep.qt.Dial(ctx, addr, t.clientTLS(serverName, &pins), t.cfg.quicConfig())
	if err != nil {
		ep.release()
		if mismatch := pins.failure(); mismatch != nil {
			return nil, fmt.Errorf("quicnet: dial %s: %w", addr, mismatch)
		}
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			return nil, fmt.Errorf("quicnet: dial %s: no answer from the host; check that it runs at that address and that its UDP port is reachable from here: %w", addr, err)
		}
		if te, ok := errors.AsType[*quic.TransportError](err); ok && te.Remote && te.ErrorCode == quic.ConnectionRefused {
			// The listener's MaxHandshakesPerAddress (handshakes.go).
			return nil, fmt.Errorf("quicnet: dial %s: %w: %w", addr, transport.ErrBusy, err)
		}
		return nil, fmt.Errorf("quicnet: dial %s: %w", addr, err)
	}
	return newConn(qc, ep, &t.cfg, true)
}

// wrap applies Config.WrapPacketConn to a fresh socket.
func (t *Transport) wrap(udp *net.UDPConn) (net.PacketConn, error) {
	if t.cfg.WrapPacketConn == nil {
		return udp, nil
	}
	pc, err := t.cfg.WrapPacketConn(udp)
	if err != nil {
		_ = udp.Close()
		return nil, fmt.Errorf("quicnet: WrapPacketConn: %w", err)
	}
	return pc, nil
}

// endpoint is a quic.Transport on one packet conn, shared by a listener and
// the connections it accepted (or owned by one dialed connection). It closes
// when the last of them releases it.
type endpoint struct {
	qt    *quic.Transport
	pc    net.PacketConn
	ownPC bool // close pc too

	mu   sync.Mutex
	refs int
}

func (e *endpoint) retain() {
	e.mu.Lock()
	e.refs++
	e.mu.Unlock()
}

func (e *endpoint) release() {
	e.mu.Lock()
	e.refs--
	last := e.refs == 0
	e.mu.Unlock()
	if !last {
		return
	}
	_ = e.qt.Close()
	if e.ownPC {
		_ = e.pc.Close()
	}
}

// Listener accepts QUIC connections. It implements transport.Listener.
type Listener struct {
	t  *Transport
	ql *quic.Listener
	ep *endpoint
	hs *handshakes

	closeOnce sync.Once
}

var _ transport.Listener = (*Listener)(nil)

// Accept waits for the next connection whose handshake completed. A client
// without datagram support is closed with transport.CloseProtocol and
// skipped. The connection starts unadmitted: its lanes take only the small
// bounds of transport.UnadmittedMaxMessageSize and the constants beside it
// until Admit.
func (l *Listener) Accept(ctx context.Context) (transport.Conn, error) {
	for {
		qc, err := l.ql.Accept(ctx)
		if err != nil {
			if errors.Is(err, quic.ErrServerClosed) || errors.Is(err, quic.ErrTransportClosed) {
				return nil, transport.ErrListenerClosed
			}
			return nil, err
		}
		accepted(qc.Context())
		l.ep.retain()
		c, err := newConn(qc, l.ep, &l.t.cfg, false)
		if err != nil {
			l.t.cfg.Logger.Warn("quicnet: refused a client", "peer", qc.RemoteAddr(), "err", err)
			continue
		}
		return c, nil
	}
}

// Addr returns the address the listener is bound to.
func (l *Listener) Addr() net.Addr { return l.ql.Addr() }

// Stats returns the listener's handshake counters.
func (l *Listener) Stats() ListenerStats { return l.hs.snapshot() }

// Close stops accepting. Connections already accepted stay open.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() {
		_ = l.ql.Close()
		l.ep.release()
	})
	return nil
}
