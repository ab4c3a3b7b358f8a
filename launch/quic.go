package launch

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/net/transport/quicnet/joincode"
)

// DialTimeout bounds how long a client's dial waits for the host to answer
// (a host that does not answer at all is given up sooner, by the
// transport's handshake timeout).
const DialTimeout = 10 * time.Second

// Conditions returns what -lag, -jitter and -loss do to each direction of
// this machine's socket: half the lag and half the jitter each way, so a
// round trip takes Lag more, varied by up to ± Jitter; the loss applies to
// each direction on its own. Conditioning one side of a session is enough:
// give the flags to the host (every peer) or to one client (that client).
func (f *Flags) Conditions() condition.Config {
	return condition.Config{Latency: f.Lag / 2, Jitter: f.Jitter / 2, Loss: float64(f.Loss)}
}

// QUIC returns the QUIC transport's configuration the flags give: the link
// conditioner under the socket when asked for, the idle timeout, the
// handshakes allowed from one address (as many as may play from it), and
// for a client the host's certificate pinned by its join line or -pin (with
// neither, the host is not authenticated), and a Logger writing the
// transport's notices to standard error as the launch's lines (Log; Open's
// Options.Stderr under Open).
func (f *Flags) QUIC() quicnet.Config {
	cfg := quicnet.Config{Logger: f.logger()}
	if f.Conditioned() {
		c := f.Conditions()
		cfg.WrapPacketConn = condition.Wrap(c, c)
	}
	switch {
	case f.Code != nil:
		f.Code.Apply(&cfg)
	case f.Join != "":
		cfg.Fingerprint = f.Pin
		cfg.InsecureSkipVerify = f.Pin == ""
	}
	if f.IdleTimeout > 0 {
		cfg.IdleTimeout = f.IdleTimeout
		cfg.KeepAlivePeriod = f.IdleTimeout / 3
	}
	cfg.MaxHandshakesPerAddress = f.PerAddress
	return cfg
}

// logger returns the logger of the engine's notices: Open's (to its
// Options.Stderr), else Log(App, os.Stderr).
func (f *Flags) logger() *slog.Logger {
	if f.log != nil {
		return f.log
	}
	return Log(f.App, os.Stderr)
}

// Hosting is a host's open listener and the lines a friend joins with.
type Hosting struct {
	// Listener takes the players' connections: give it to Host.Serve,
	// which closes it with the host.
	Listener transport.Listener
	// Line is the join line (HOST:PORT/CODE with the whole fingerprint),
	// Short the short code a player reads out; both for -join.
	Line, Short string
	// Fingerprint is the host's certificate's SHA-256, hex (-pin).
	Fingerprint string
}

// Listen opens the host's QUIC listener on -addr and prints to w the lines a
// player joins with: the first with entities (the host's networked entities
// at the start), the command line, the join line and the short code. The
// host presents id when it has one (kept in its save, Save.Identity), else
// a new certificate, with the stateless-reset key of -reset-key's file
// (ResetKeyFile).
func (f *Flags) Listen(w io.Writer, id *quicnet.Identity, entities int) (*Hosting, error) {
	cfg := f.QUIC()
	if id != nil {
		id.Apply(&cfg)
	}
	if id == nil || f.ResetKey != "" {
		path, err := f.ResetKeyFile()
		if err != nil {
			return nil, err
		}
		if cfg.StatelessResetKey, err = quicnet.LoadResetKey(path); err != nil {
			return nil, err
		}
	}
	t, err := quicnet.New(cfg)
	if err != nil {
		return nil, err
	}
	l, err := t.Listen(f.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w; pick another address with -addr", f.Addr, err)
	}
	addr := quicnet.ReachableAddr(l.Addr())
	full, short, err := joincode.Lines(addr, t.Fingerprint())
	if err != nil {
		l.Close()
		return nil, err
	}
	fmt.Fprintf(w, "%s: hosting on %s, entities=%d, certificate %s\n", f.App, l.Addr(), entities, t.Fingerprint())
	fmt.Fprintf(w, "join with: %s -join %s -pin %s\n", Command(), addr, t.Fingerprint())
	fmt.Fprintf(w, "%s: join line %s\n", f.App, full)
	fmt.Fprintf(w, "%s: short code %s (read it out; it checks the first 55 bits of the certificate)\n", f.App, short)
	return &Hosting{Listener: l, Line: full, Short: short, Fingerprint: t.Fingerprint()}, nil
}

// Dialer returns what connects a client to the host at -join, the first
// time and again (a new connection, from a new socket) whenever the
// connection breaks: give it to tandem.ClientConfig.Dial. Its errors name
// the join.
func (f *Flags) Dialer() (func(ctx context.Context) (transport.Conn, error), error) {
	t, err := quicnet.New(f.QUIC())
	if err != nil {
		return nil, err
	}
	join := f.Join
	dial := t.Dialer(join, DialTimeout)
	return func(ctx context.Context) (transport.Conn, error) {
		c, err := dial(ctx)
		if err != nil {
			return nil, fmt.Errorf("join %s: %w", join, err)
		}
		return c, nil
	}, nil
}

// ResetKeyFile is the file of the host's stateless-reset key
// (quicnet.LoadResetKey): -reset-key's, by default App/reset-key in the
// user's config directory.
func (f *Flags) ResetKeyFile() (string, error) {
	if f.ResetKey != "" {
		return f.ResetKey, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config directory for the reset key (%v); give a file with -reset-key", err)
	}
	return filepath.Join(dir, f.App, "reset-key"), nil
}
