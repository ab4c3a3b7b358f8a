package quicnet

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"log/slog"
	"net"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tandem-go/tandem/net/transport"
)

// ALPN is the TLS application protocol both sides must offer.
// Wire-affecting: a new incompatible transport framing gets a new ALPN.
const ALPN = "tandem/1"

// Config configures a Transport. The zero Config is a working client that
// verifies the host's certificate against the system roots, and a working
// host with a generated self-signed certificate.
type Config struct {
	// Certificate is the host's certificate. Nil: New generates a self-signed
	// ECDSA P-256 certificate; give its Fingerprint to clients to pin.
	Certificate *tls.Certificate

	// Fingerprint pins the host's certificate on the client: the hex SHA-256
	// of the host's leaf certificate (64 hex digits; colons and spaces are
	// ignored), as Transport.Fingerprint prints it. Any other certificate is
	// refused with a *FingerprintError, whatever signed it.
	Fingerprint string
	// CheckFingerprint, if set and no Fingerprint is given, decides on the
	// client whether the host's leaf certificate, by its SHA-256, is the
	// expected one: a game's own pin, such as a short code a person reads
	// out that holds only the first bits of the fingerprint. A non-nil error
	// refuses the host and is what Dial returns (wrapped; it matches
	// transport.ErrUntrusted too, as a Fingerprint mismatch does). The check is as
	// strong as what it compares: see package joincode on its short code,
	// whose Code.Apply sets this field.
	CheckFingerprint func(sha256 [32]byte) error
	// InsecureSkipVerify accepts any host certificate when no Fingerprint is
	// given. Anyone on the path can then impersonate the host; each Dial logs
	// a warning. For local tests only.
	InsecureSkipVerify bool
	// RootCAs verifies a host with a CA-signed certificate when no Fingerprint
	// is given. Nil means the system roots.
	RootCAs *x509.CertPool

	// IdleTimeout closes a connection that received nothing for this long
	// (the smaller of both sides' values applies). Zero means 10 s.
	IdleTimeout time.Duration
	// KeepAlivePeriod is how often an otherwise idle connection sends a ping so
	// it stays open. Zero means 3 s; negative turns keep-alives off.
	KeepAlivePeriod time.Duration
	// HandshakeTimeout bounds how long Dial waits for an answering host. Zero
	// means 5 s.
	HandshakeTimeout time.Duration

	// MaxMessageSize is the largest lane message, in bytes, both sent and
	// received; a peer announcing a larger one is disconnected with
	// transport.CloseLimit. Both sides should use the same value. Zero means
	// 1 MiB; at most 1 GiB.
	MaxMessageSize int
	// LaneSendBytes bounds, per lane, the bytes queued by SendMessage and not
	// yet written to the stream (framing included); past it SendMessage
	// returns transport.ErrLaneQueueFull. A message into an empty queue is
	// always taken. Zero means 4 MiB.
	LaneSendBytes int
	// LaneReceiveBytes bounds, per lane, the memory held by received messages
	// waiting for RecvMessage, each counted at transport.MessageCost (its
	// buffer as allocated and its queue slot, so a flood of tiny messages
	// holds no more than a few large ones); when it is reached the lane stops
	// reading and QUIC flow control holds the sender back. A message into an
	// empty lane is always taken. Zero means 4 MiB.
	LaneReceiveBytes int
	// LaneReceiveMessages bounds, per lane, the received messages waiting for
	// RecvMessage; past it the lane stops reading as above. Zero means 1,024.
	LaneReceiveMessages int
	// RetryAbove is the number of QUIC handshakes in progress on a listener
	// from which every new connection attempt must first prove it owns its
	// source address (a QUIC Retry: one more round trip), so that a flood of
	// attempts from spoofed addresses holds no state on the host. Zero means
	// 8; negative: every attempt.
	RetryAbove int
	// MaxHandshakesPerAddress bounds the QUIC handshakes in progress on a
	// listener from one IP address (an IPv6 one by its /64:
	// transport.AddressKey): past it the address's new attempts must
	// prove the address (Retry), and proven attempts past it again are
	// refused (QUIC CONNECTION_REFUSED). Zero means 4.
	MaxHandshakesPerAddress int
	// StatelessResetKey lets a listener answer packets of connections it does
	// not know with a QUIC stateless reset (RFC 9000 §10.3), so that the
	// clients of a host that restarted on the same address learn at once that
	// their connection is gone instead of waiting for the idle timeout. Keep
	// the same key across restarts (a file the host creates once, say); it is
	// a secret. Nil: no resets.
	StatelessResetKey *[32]byte

	// DatagramQueue bounds the datagrams waiting in each direction: sent and
	// not yet handed to QUIC, received and not yet taken by RecvDatagram. Past
	// it datagrams are dropped and counted. Zero means 256.
	DatagramQueue int

	// WrapPacketConn, if set, wraps the UDP socket that Listen and Dial open,
	// before QUIC uses it: pass a link conditioner here
	// (condition.NewPacketConn). The wrapper owns the socket and must close it
	// on Close. Give the wrapper SetReadBuffer and SetWriteBuffer methods that
	// pass through to the socket, as condition.PacketConn does: quic-go sizes
	// the socket's buffers through them, and logs a warning for a connection
	// without them.
	WrapPacketConn func(net.PacketConn) (net.PacketConn, error)
	// Logger receives warnings (skipped verification, peers disconnected for
	// breaking the protocol). Nil means slog.Default().
	Logger *slog.Logger
}

const (
	defaultIdleTimeout      = 10 * time.Second
	defaultKeepAlivePeriod  = 3 * time.Second
	defaultHandshakeTimeout = 5 * time.Second
	defaultMaxMessageSize   = 1 << 20
	maxMaxMessageSize       = 1 << 30
	defaultLaneSendBytes    = 4 << 20
	defaultLaneReceiveBytes = 4 << 20
	defaultLaneReceiveMsgs  = 1024
	defaultDatagramQueue    = 256
	defaultRetryAbove       = 8
	defaultHandshakesPerIP  = 4
)

// withDefaults checks c and fills in its zero fields.
func (c Config) withDefaults() (Config, error) {
	if c.IdleTimeout < 0 || c.HandshakeTimeout < 0 || c.MaxMessageSize < 0 ||
		c.LaneSendBytes < 0 || c.LaneReceiveBytes < 0 || c.LaneReceiveMessages < 0 ||
		c.DatagramQueue < 0 || c.MaxHandshakesPerAddress < 0 {
		return c, errors.New("quicnet: timeouts, sizes and queue lengths must not be negative; use 0 for the default")
	}
	if c.MaxMessageSize > maxMaxMessageSize {
		return c, errors.New("quicnet: MaxMessageSize is above 1 GiB; split large transfers into messages")
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = defaultIdleTimeout
	}
	if c.KeepAlivePeriod == 0 {
		c.KeepAlivePeriod = defaultKeepAlivePeriod
	}
	if c.HandshakeTimeout == 0 {
		c.HandshakeTimeout = defaultHandshakeTimeout
	}
	if c.MaxMessageSize == 0 {
		c.MaxMessageSize = defaultMaxMessageSize
	}
	if c.LaneSendBytes == 0 {
		c.LaneSendBytes = defaultLaneSendBytes
	}
	if c.LaneReceiveBytes == 0 {
		c.LaneReceiveBytes = defaultLaneReceiveBytes
	}
	if c.LaneReceiveMessages == 0 {
		c.LaneReceiveMessages = defaultLaneReceiveMsgs
	}
	if c.RetryAbove == 0 {
		c.RetryAbove = defaultRetryAbove
	}
	if c.MaxHandshakesPerAddress == 0 {
		c.MaxHandshakesPerAddress = defaultHandshakesPerIP
	}
	if c.DatagramQueue == 0 {
		c.DatagramQueue = defaultDatagramQueue
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
}

// Receive windows of a listener's connections. QUIC holds what a peer sent
// and the lanes have not read yet up to these windows: they start small, so
// an unadmitted peer (whose lanes read at most a few KiB) holds little, and
// grow (quic-go's auto-tuning) as an admitted peer's lanes take its data.
// Clients keep quic-go's defaults: a join comes their way.
const (
	hostStreamWindow        = 16 << 10
	hostConnectionWindow    = 32 << 10
	hostMaxStreamWindow     = 1 << 20
	hostMaxConnectionWindow = 2 << 20
)

// listenConfig is the quic-go configuration of a listener.
func (c *Config) listenConfig() *quic.Config {
	qc := c.quicConfig()
	qc.InitialStreamReceiveWindow = hostStreamWindow
	qc.InitialConnectionReceiveWindow = hostConnectionWindow
	qc.MaxStreamReceiveWindow = hostMaxStreamWindow
	qc.MaxConnectionReceiveWindow = hostMaxConnectionWindow
	return qc
}

// quicConfig is the quic-go configuration both sides use.
func (c *Config) quicConfig() *quic.Config {
	keepAlive := c.KeepAlivePeriod
	if keepAlive < 0 {
		keepAlive = 0
	}
	return &quic.Config{
		HandshakeIdleTimeout: c.HandshakeTimeout,
		MaxIdleTimeout:       c.IdleTimeout,
		KeepAlivePeriod:      keepAlive,
		EnableDatagrams:      true,
		// Lanes are unidirectional streams, one per lane and direction.
		MaxIncomingStreams:    -1,
		MaxIncomingUniStreams: transport.NumLanes,
	}
}
