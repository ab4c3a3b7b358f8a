package launch

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Log writes one line a record, in the launch's own form: the app, the
// message, the attributes (those of With and WithGroup first), values
// quoted when they would not stay one token, a message's or key's control
// characters escaped; an error's line says so; a debug record is dropped.
func TestLogLines(t *testing.T) {
	var b syncBuffer
	l := Log("mygame", &b)
	l.Debug("not shown")
	l.Info("plain", "n", 3, "d", 1500*time.Millisecond)
	l.Warn("quoted", "peer", "1.2.3.4:5", "why", `a "b" c`, "empty", "", "eq", "k=v")
	l.With("world", "arena").WithGroup("save").Error("failed", "err", errors.New("disk full"), slog.Group("at", "seq", 7))
	l.Info("group", slog.Group("", "flat", true), slog.Attr{})
	l.Info("two\nlines", "a\tkey", "v")
	want := `mygame: plain n=3 d=1.5s
mygame: quoted peer=1.2.3.4:5 why="a \"b\" c" empty="" eq="k=v"
mygame: error: failed world=arena save.err="disk full" save.at.seq=7
mygame: group flat=true
mygame: two\nlines a\tkey=v
`
	if got := b.String(); got != want {
		t.Errorf("Log wrote\n%s\nwant\n%s", got, want)
	}
}

// Open gives the engine's own notices to Options.Stderr as the launch's
// lines: a client joining by a bare address is told, in its log, that the
// host is not authenticated, without slog's default time and level.
func TestOpenLogsTheEnginesNotices(t *testing.T) {
	dir := t.TempDir()
	host := open(t, []string{"-host", "-addr", "127.0.0.1:0", "-save", "", "-reset-key", filepath.Join(dir, "reset-key"), "-max-players", "1"}, Options[Still]{Stdout: &syncBuffer{}, Stderr: &syncBuffer{}})
	ctx, cancel := context.WithTimeout(context.Background(), matchTimeout)
	defer cancel()
	background(t, host, func() error { return host.Play(ctx, 0) })
	addr, _, _ := strings.Cut(host.Hosting().Line, "/")
	var clientLog syncBuffer
	client := open(t, []string{"-join", addr}, Options[Still]{Stderr: &clientLog})
	defer client.Close()
	if err := client.Play(ctx, 0); err == nil {
		t.Fatalf("a client of a full host played")
	}
	const want = "mygame: quicnet: dialing without verifying the host's certificate;"
	log := clientLog.String()
	if !strings.Contains(log, want) || strings.Contains(log, "WARN") {
		t.Errorf("the client's log:\n%s\nwant a line beginning %q, no level", log, want)
	}
}
