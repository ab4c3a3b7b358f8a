package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/net/transport/quicnet/joincode"
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
// certificate pinned by its join line or -pin (or, with neither, no
// authentication of the host).
func quicConfig(o options) quicnet.Config {
	var cfg quicnet.Config
	if o.conditioned() {
		c := linkConditions(o)
		cfg.WrapPacketConn = condition.Wrap(c, c)
	}
	switch {
	case o.code != nil:
		o.code.Apply(&cfg)
	case o.join != "":
		cfg.Fingerprint = o.pin
		cfg.InsecureSkipVerify = o.pin == ""
	}
	if o.idle > 0 {
		cfg.IdleTimeout = o.idle
		cfg.KeepAlivePeriod = o.idle / 3
	}
	// The handshakes under way from one address, as many as may play from
	// it (0: the transport's 4).
	cfg.MaxHandshakesPerAddress = o.perAddress
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
		path, err := resetKeyFile(o)
		if err != nil {
			return nil, "", "", err
		}
		if cfg.StatelessResetKey, err = quicnet.LoadResetKey(path); err != nil {
			return nil, "", "", err
		}
	}
	t, err := quicnet.New(cfg)
	if err != nil {
		return nil, "", "", err
	}
	l, err = t.Listen(o.addr)
	if err != nil {
		return nil, "", "", fmt.Errorf("listen on %s: %w; pick another address with -addr", o.addr, err)
	}
	addr := quicnet.ReachableAddr(l.Addr())
	full, short, err = joincode.Lines(addr, t.Fingerprint())
	if err != nil {
		l.Close()
		return nil, "", "", err
	}
	fmt.Fprintf(w, appName+": hosting on %s, entities=%d, certificate %s\n", l.Addr(), entities, t.Fingerprint())
	fmt.Fprintf(w, "join with: %s -join %s -pin %s\n", joinCommand(), addr, t.Fingerprint())
	fmt.Fprintf(w, appName+": join line %s\n", full)
	fmt.Fprintf(w, appName+": short code %s (read it out; it checks the first 55 bits of the certificate)\n", short)
	return l, full, short, nil
}

// dialer returns the function that connects to the host at o.join, the
// first time and again (a new connection, from a new socket) whenever the
// connection breaks: the transport's Dialer, its errors naming the join.
func dialer(o options) (func(ctx context.Context) (transport.Conn, error), error) {
	t, err := quicnet.New(quicConfig(o))
	if err != nil {
		return nil, err
	}
	dial := t.Dialer(o.join, dialTimeout)
	return func(ctx context.Context) (transport.Conn, error) {
		c, err := dial(ctx)
		if err != nil {
			return nil, fmt.Errorf("join %s: %w", o.join, err)
		}
		return c, nil
	}, nil
}

// resetKeyFile is the file of the host's stateless-reset key
// (quicnet.LoadResetKey): -reset-key's, by default appName/reset-key in the
// user's config directory.
func resetKeyFile(o options) (string, error) {
	if o.resetKey != "" {
		return o.resetKey, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config directory for the reset key (%v); give a file with -reset-key", err)
	}
	return filepath.Join(dir, appName, "reset-key"), nil
}

// parseJoin reads what a player gave -join or typed on the start screen: a
// join line or short code (ADDRESS/CODE, joincode.Parse), or the host's
// whole printed "join with" line (... -join ADDRESS -pin HEX), pasted.
func parseJoin(s string) (joincode.Code, error) {
	if f := strings.Fields(s); len(f) > 1 {
		// The host's printed command line, pasted whole.
		var addr, pin string
		for i := 0; i+1 < len(f); i++ {
			switch f[i] {
			case "-join", "--join":
				addr = f[i+1]
			case "-pin", "--pin":
				pin = f[i+1]
			}
		}
		if addr != "" && pin != "" {
			if fp, err := hex.DecodeString(pin); err != nil || len(fp) != 32 {
				return joincode.Code{}, errors.New("the pin in that line is damaged: it should be 64 hex digits")
			}
			return joincode.New(addr, pin)
		}
	}
	return joincode.Parse(s)
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
