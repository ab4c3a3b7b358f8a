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
	// LaneReceiveBytes bounds, per lane, the received message bytes waiting for
	// RecvMessage; when it is reached the lane stops reading and QUIC flow
	// control holds the sender back. Zero means 4 MiB.
	LaneReceiveBytes int
	// DatagramQueue bounds the datagrams waiting in each direction: sent and
	// not yet handed to QUIC, received and not yet taken by RecvDatagram. Past
	// it datagrams are dropped and counted. Zero means 256.
	DatagramQueue int

	// WrapPacketConn, if set, wraps the UDP socket that Listen and Dial open,
	// before QUIC uses it: pass a link conditioner here
	// (condition.NewPacketConn). The wrapper owns the socket and must close it
	// on Close.
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
	defaultDatagramQueue    = 256
)

// withDefaults checks c and fills in its zero fields.
func (c Config) withDefaults() (Config, error) {
	if c.IdleTimeout < 0 || c.HandshakeTimeout < 0 || c.MaxMessageSize < 0 ||
		c.LaneSendBytes < 0 || c.LaneReceiveBytes < 0 || c.DatagramQueue < 0 {
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
	if c.DatagramQueue == 0 {
		c.DatagramQueue = defaultDatagramQueue
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
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
