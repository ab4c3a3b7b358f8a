package quicnet

import (
	"context"
	"errors"
	"net"
	"sync"

	"github.com/tandem-go/tandem/net/transport"
)

// ListenerStats counts a listener's QUIC handshakes.
type ListenerStats struct {
	// Handshaking is the number of QUIC handshakes in progress now (begun,
	// neither failed nor accepted).
	Handshaking int
	// Retries counts connection attempts asked to prove their source address
	// (QUIC Retry) because of Config.RetryAbove or MaxHandshakesPerAddress.
	Retries uint64
	// Refused counts proven attempts refused because their address had
	// MaxHandshakesPerAddress handshakes in progress.
	Refused uint64
}

// errAddressBusy refuses a handshake from an address that has its share of
// handshakes in progress.
var errAddressBusy = errors.New("quicnet: too many handshakes in progress from this address")

// handshakes tracks a listener's QUIC handshakes in progress, in all and per
// IP address, and decides which attempts must prove their address first
// (Retry) and which are refused. quic-go asks it through
// quic.Transport.VerifySourceAddress and ConnContext; it learns of the end of
// a handshake from the connection's context (failed) or from Accept
// (completed).
//
// Concurrency: safe for concurrent use (quic-go calls it from its own
// goroutines).
type handshakes struct {
	retryAbove int // <0: always Retry
	perAddr    int

	mu     sync.Mutex
	total  int
	byAddr map[string]*addrHandshakes
	stats  ListenerStats
}

// addrHandshakes counts one address's handshakes in progress: all of them,
// and those whose address was proven.
type addrHandshakes struct {
	all, proven int
}

func newHandshakes(cfg *Config) *handshakes {
	return &handshakes{retryAbove: cfg.RetryAbove, perAddr: cfg.MaxHandshakesPerAddress, byAddr: make(map[string]*addrHandshakes)}
}

// verifySource reports whether an attempt from addr (not yet proven) must
// first prove it with a Retry: when the listener is under pressure, or the
// address has its share of handshakes in progress.
func (h *handshakes) verifySource(addr net.Addr) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	retry := h.retryAbove < 0 || h.total >= h.retryAbove
	if n := h.byAddr[transport.AddressKey(addr)]; n != nil && n.all >= h.perAddr {
		retry = true
	}
	if retry {
		h.stats.Retries++
	}
	return retry
}

// handshakeKey finds a connection's handshake in its context.
type handshakeKey struct{}

// handshake is one handshake in progress; done ends it, once.
type handshake struct {
	h      *handshakes
	key    string
	proven bool
	once   sync.Once
}

// begin counts a new handshake, or refuses a proven one from an address
// that has its share in progress. The handshake ends when its connection's
// context ends (it failed, or the connection closed) or Accept takes it.
func (h *handshakes) begin(ctx context.Context, addr net.Addr, proven bool) (context.Context, error) {
	key := transport.AddressKey(addr)
	h.mu.Lock()
	n := h.byAddr[key]
	if n == nil {
		n = &addrHandshakes{}
		h.byAddr[key] = n
	}
	if proven && n.proven >= h.perAddr {
		h.stats.Refused++
		if n.all == 0 {
			delete(h.byAddr, key)
		}
		h.mu.Unlock()
		return nil, errAddressBusy
	}
	n.all++
	if proven {
		n.proven++
	}
	h.total++
	h.mu.Unlock()
	hs := &handshake{h: h, key: key, proven: proven}
	ctx = context.WithValue(ctx, handshakeKey{}, hs)
	context.AfterFunc(ctx, hs.done)
	return ctx, nil
}

// done ends the handshake (first call only).
func (hs *handshake) done() {
	hs.once.Do(func() {
		h := hs.h
		h.mu.Lock()
		defer h.mu.Unlock()
		h.total--
		n := h.byAddr[hs.key]
		n.all--
		if hs.proven {
			n.proven--
		}
		if n.all == 0 {
			delete(h.byAddr, hs.key)
		}
	})
}

// accepted ends the handshake of a connection Accept took.
func accepted(ctx context.Context) {
	if hs, ok := ctx.Value(handshakeKey{}).(*handshake); ok {
		hs.done()
	}
}

func (h *handshakes) snapshot() ListenerStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.stats
	st.Handshaking = h.total
	return st
}
