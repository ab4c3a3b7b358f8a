package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/quicnet"
)

// dialTimeout bounds how long joining waits for the host to answer.
const dialTimeout = 10 * time.Second

// linkConditions returns what -lag, -jitter and -loss do to each direction of
// this machine's socket: half the lag and half the jitter each way, so a
// round trip takes lag more, varied by up to ± jitter; the loss applies to
// each direction on its own. Conditioning one side of a session is enough:
// give the flags to the host (every peer) or to one client (that client).
func linkConditions(o options) condition.Config {
	return condition.Config{Latency: o.lag / 2, Jitter: o.jitter / 2, Loss: float64(o.loss)}
}

// quicConfig returns the QUIC transport's configuration for o: the link
// conditioner under the socket when asked for, and for a client the host's
// pinned certificate (or, without -pin, no authentication of the host).
func quicConfig(o options) quicnet.Config {
	var cfg quicnet.Config
	if o.conditioned() {
		c := linkConditions(o)
		cfg.WrapPacketConn = condition.Wrap(c, c)
	}
	switch {
	case o.code != nil && o.code.full():
		cfg.Fingerprint = o.code.pin()
	case o.code != nil:
		cfg.CheckFingerprint = o.code.check
	case o.join != "":
		cfg.Fingerprint = o.pin
		cfg.InsecureSkipVerify = o.pin == ""
	}
	if o.idle > 0 {
		cfg.IdleTimeout = o.idle
		cfg.KeepAlivePeriod = o.idle / 3
	}
	return cfg
}

// listen opens the host's QUIC listener on o.addr and prints the lines a
// player joins with to w: the first with the host's networked entities, the
// command line, the join line and the short code, which it returns. The host
// presents id when it has one (kept in its save), else a new certificate and
// the reset key of -reset-key's file.
func listen(o options, w io.Writer, id *quicnet.Identity, entities int) (l transport.Listener, full, short string, err error) {
	cfg := quicConfig(o)
	if id != nil {
		id.Apply(&cfg)
	}
	if id == nil || o.resetKey != "" {
		key, err := loadResetKey(o.resetKey)
		if err != nil {
			return nil, "", "", err
		}
		cfg.StatelessResetKey = key
	}
	t, err := quicnet.New(cfg)
	if err != nil {
		return nil, "", "", err
	}
	l, err = t.Listen(o.addr)
	if err != nil {
		return nil, "", "", fmt.Errorf("listen on %s: %w; pick another address with -addr", o.addr, err)
	}
	addr := joinAddress(l.Addr())
	full, short = joinLines(addr, t.Fingerprint())
	fmt.Fprintf(w, "tandem-demo: hosting on %s, entities=%d, certificate %s\n", l.Addr(), entities, t.Fingerprint())
	fmt.Fprintf(w, "join with: %s -join %s -pin %s\n", joinCommand(), addr, t.Fingerprint())
	fmt.Fprintf(w, "tandem-demo: join line %s\n", full)
	fmt.Fprintf(w, "tandem-demo: short code %s (read it out; it checks the first 55 bits of the certificate)\n", short)
	return l, full, short, nil
}

// dialer returns the function that connects to the host at o.join: the
// first time, and again (a new connection, from a new socket) whenever the
// connection breaks.
func dialer(o options) (func(ctx context.Context) (transport.Conn, error), error) {
	t, err := quicnet.New(quicConfig(o))
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (transport.Conn, error) {
		ctx, cancel := context.WithTimeout(ctx, dialTimeout)
		defer cancel()
		c, err := t.Dial(ctx, o.join)
		if err != nil {
			return nil, fmt.Errorf("join %s: %w", o.join, err)
		}
		return c, nil
	}, nil
}

// joinAddress is the address others reach a listener at: its own when it
// listens on one IP, else this machine's first non-loopback IPv4 address
// (127.0.0.1 when there is none).
func joinAddress(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip != nil && !ip.IsUnspecified() {
		return a.String()
	}
	host = "127.0.0.1"
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, ad := range addrs {
			if n, ok := ad.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
				host = n.IP.String()
				break
			}
		}
	}
	p, _ := strconv.Atoi(port)
	return net.JoinHostPort(host, strconv.Itoa(p))
}

// loadResetKey returns the host's stateless-reset key from path (by default
// appName/reset-key in the user's config directory), making the file
// with a new random key, readable by its owner only, on first use. Keeping
// the key across restarts lets the clients of a host restarted on the same
// address learn at once that their connection is gone.
func loadResetKey(path string) (*[32]byte, error) {
	if path == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return nil, fmt.Errorf("no config directory for the reset key (%v); give a file with -reset-key", err)
		}
		path = filepath.Join(dir, appName, "reset-key")
	}
	var key [32]byte
	b, err := os.ReadFile(path)
	switch {
	case err == nil && len(b) == len(key):
		copy(key[:], b)
		return &key, nil
	case err == nil:
		return nil, fmt.Errorf("reset key %s holds %d bytes, not %d; delete it to make a new one", path, len(b), len(key))
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("reset key: %w", err)
	}
	rand.Read(key[:])
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("reset key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("reset key: %w", err)
	}
	_, err = f.Write(key[:])
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("reset key: %w", err)
	}
	return &key, nil
}

// joinCommand is how to start this program from the directory it was started
// in: "go run" with the package's directory when it was built by go run,
// else the program as it was invoked.
func joinCommand() string {
	wd, _ := os.Getwd()
	return commandFrom(os.Args[0], wd, os.TempDir())
}

// commandFrom is joinCommand for a program invoked as arg0 from directory
// wd, with go run's builds under tmp.
func commandFrom(arg0, wd, tmp string) string {
	exe, err := filepath.Abs(arg0)
	if err != nil || !strings.HasPrefix(exe, filepath.Join(tmp, "go-build")) {
		return arg0
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Path == "" {
		return "go run " + bi.Path
	}
	return "go run " + packageDir(bi.Path, bi.Main.Path, wd)
}

// packageDir returns the directory of package pkg of module mod relative to
// wd, as go run takes it ("./demo", "."); the import path when wd is not in
// the module.
func packageDir(pkg, mod, wd string) string {
	for dir := wd; ; dir = filepath.Dir(dir) {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			if modfile := string(b); strings.Contains(modfile, "module "+mod+"\n") || strings.HasPrefix(modfile, "module "+mod) {
				rel, err := filepath.Rel(wd, filepath.Join(dir, strings.TrimPrefix(strings.TrimPrefix(pkg, mod), "/")))
				if err == nil {
					if rel == "." || strings.HasPrefix(rel, "..") {
						return filepath.ToSlash(rel)
					}
					return "./" + filepath.ToSlash(rel)
				}
			}
			return pkg
		}
		if filepath.Dir(dir) == dir {
			return pkg
		}
	}
}
