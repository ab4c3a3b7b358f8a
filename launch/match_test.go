package launch

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
)

// wave and refused are a game's commands: one done, one refused.
var (
	wave    = tandem.NewCommand("wave", tandem.CommandCodec[struct{}]{}, func(*tandem.World, tandem.Peer, struct{}) error { return nil })
	refused = tandem.NewCommand("refused", tandem.CommandCodec[struct{}]{}, func(*tandem.World, tandem.Peer, struct{}) error {
		return errors.New("not now")
	})
)

// wavers are standers with commands.
var wavers = &tandem.Game[Still]{
	Components: standers.Components,
	Input:      standers.Input,
	Setup:      standers.Setup,
	Join:       standers.Join,
	Commands:   []tandem.Command{wave, refused},
}

// matchTimeout bounds each wait of these tests for a match over loopback.
const matchTimeout = 30 * time.Second

// background runs run (a loop of m's) on a goroutine of its own and returns
// its end; the test's cleanup closes m and waits for it.
func background(t *testing.T, m *Match[Still], run func() error) <-chan error {
	done := make(chan error, 1)
	ended := make(chan struct{})
	go func() {
		done <- run()
		close(ended)
	}()
	t.Cleanup(func() {
		m.Close()
		<-ended
	})
	return done
}

// open opens the match of args (a checked command line) with o.
func open(t *testing.T, args []string, o Options[Still]) *Match[Still] {
	t.Helper()
	f, err := parse(args, false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Open(*f, wavers, o)
	if err != nil {
		t.Fatalf("Open %q: %v", args, err)
	}
	return m
}

// A game alone plays to the exact frame headless and in real time, its
// commands' receipts kept for a HUD; it has no host, client or join lines,
// never ends by itself, and closes twice the same.
func TestMatchAlone(t *testing.T) {
	var out, log bytes.Buffer
	local := false
	m := open(t, []string{"-name", "ann"}, Options[Still]{Stdout: &out, Stderr: &log, Local: func(cfg *tandem.LocalConfig) {
		local = cfg.Name == "ann"
	}})
	if !local || m.Host() != nil || m.Client() != nil || m.Hosting() != nil {
		t.Fatalf("alone: the game's hook saw the flags' name %v, host %v, client %v, hosting %v", local, m.Host(), m.Client(), m.Hosting())
	}
	ctx, cancel := context.WithTimeout(context.Background(), matchTimeout)
	defer cancel()
	if err := m.RunHeadless(ctx, 30); err != nil || m.Played() != 30 {
		t.Fatalf("RunHeadless(30): %v, played %d; want 30 exactly", err, m.Played())
	}
	// Real time: the exact frame again, counted from the match's start.
	if err := m.Play(ctx, 36); err != nil || m.Played() != 36 {
		t.Fatalf("Play(36): %v, played %d; want 36 exactly", err, m.Played())
	}
	op, err := tandem.Give(m, wave, struct{}{})
	if err != nil || !m.Receipts().Answered(op) {
		t.Fatalf("a command alone: %v, answered at once %v; want answered as it is given", err, m.Receipts().Answered(op))
	}
	no, err := tandem.Give(m, refused, struct{}{})
	if err != nil || m.Receipts().Answered(op) || !m.Receipts().Answered(no) {
		t.Fatalf("a second command: %v; Answered tells the newest receipt's operation", err)
	}
	got := m.Receipts().Take(nil)
	if len(got) != 2 || got[0].Op != op || got[0].Status != tandem.ReceiptDone || got[1].Op != no || got[1].Status != tandem.ReceiptRefused || got[1].Reason != "not now" {
		t.Fatalf("the receipts taken: %+v; want wave done, then refused with its reason", got)
	}
	if again := m.Receipts().Take(got[:0]); len(again) != 0 {
		t.Fatalf("taken twice: %+v", again)
	}
	if m.Ended() || m.Err() != nil {
		t.Fatalf("a game alone ended by itself: %v", m.Err())
	}
	if err := m.Close(); err != nil || m.Close() != nil {
		t.Fatalf("Close: %v", err)
	}
	if out.Len() != 0 || log.Len() != 0 {
		t.Errorf("a game alone said %q and logged %q", out.String(), log.String())
	}
}

// A host opens its save, listens and prints its join lines; a client
// opened with the join line joins it and plays; the host's Close ends
// the client's session in order; a host opened again on the save is the
// same host (its certificate) and counts its frames from the save's.
func TestMatchHostAndJoin(t *testing.T) {
	dir := t.TempDir()
	save := filepath.Join(dir, "world.db")
	hostArgs := []string{"-host", "-addr", "127.0.0.1:0", "-save", save, "-reset-key", filepath.Join(dir, "reset-key"), "-max-players", "4"}
	var hostOut, hostLog syncBuffer
	var hc tandem.HostConfig
	hostOpts := Options[Still]{World: "arena", Headless: true, Stdout: &hostOut, Stderr: &hostLog, Host: func(c *tandem.HostConfig) {
		c.Spectators = 2
		hc = *c
	}}
	host := open(t, hostArgs, hostOpts)
	if h := host.Hosting(); host.Host() == nil || host.Client() != nil || h == nil || h.Line == "" {
		t.Fatalf("a host: %v, client %v, hosting %+v", host.Host(), host.Client(), h)
	}
	if hc.MaxPeers != 4 || hc.Name != "" || hc.Spectators != 2 {
		t.Errorf("the game's hook saw %+v; want 4 places for peers (headless: the host takes none) and its spectators", hc)
	}
	for _, want := range []string{"mygame: join line " + host.Hosting().Line + "\n", "mygame: hosting on 127.0.0.1:"} {
		if !strings.Contains(hostOut.String(), want) {
			t.Errorf("the host's lines lack %q:\n%s", want, hostOut.String())
		}
	}
	if want := "mygame: saving the world to " + save; !strings.Contains(hostLog.String(), want) {
		t.Errorf("the host's log lacks %q:\n%s", want, hostLog.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), matchTimeout)
	defer cancel()
	hostDone := background(t, host, func() error { return host.Play(ctx, 0) })

	var clientLog syncBuffer
	named := ""
	client := open(t, []string{"-join", host.Hosting().Line, "-name", "bob"}, Options[Still]{Stderr: &clientLog, Client: func(cfg *tandem.ClientConfig[Still]) {
		named = cfg.Name
	}})
	defer client.Close()
	if client.Client() == nil || client.Host() != nil || client.Hosting() != nil || named != "bob" {
		t.Fatalf("a client: %v, host %v, hosting %v; its hook saw the name %q", client.Client(), client.Host(), client.Hosting(), named)
	}
	if err := client.Play(ctx, 30); err != nil || client.Played() < 30 {
		t.Fatalf("the client's Play(30): %v, played %d (%s)", err, client.Played(), clientLog.String())
	}
	if client.Ended() || client.Err() != nil {
		t.Fatalf("a client playing ended: %v", client.Err())
	}
	if !regexp.MustCompile(`mygame: joined 127\.0\.0\.1:\d+ as peer \d+ \(bob\)`).MatchString(clientLog.String()) {
		t.Errorf("the client's log lacks its join:\n%s", clientLog.String())
	}
	first := host.Hosting().Fingerprint
	if err := host.Close(); err != nil {
		t.Fatalf("the host's Close: %v", err)
	}
	if err := <-hostDone; err != nil {
		t.Fatalf("the host's Play after its Close: %v", err)
	}
	// The client hears the host shut down: its session ends, in order.
	if err := client.Play(ctx, 0); err != nil || !client.Ended() || client.Err() != nil {
		t.Fatalf("the client after the host closed: Play %v, Ended %v, Err %v; want an orderly end", err, client.Ended(), client.Err())
	}

	hostLog = syncBuffer{}
	again := open(t, hostArgs, hostOpts)
	defer again.Close()
	if again.Hosting().Fingerprint != first {
		t.Errorf("the host on its save presents certificate %s, want %s (kept in the save)", again.Hosting().Fingerprint, first)
	}
	var frame int
	again.Do(func(w *tandem.World) { frame = int(w.ECS.Frame()) })
	if frame < 30 || again.Played() != 0 || !strings.Contains(hostLog.String(), "mygame: restored save") {
		t.Fatalf("the host on its save: frame %d, played %d; want the save's frame and nothing played yet (log: %s)", frame, again.Played(), hostLog.String())
	}
}

// A client the host refuses ends by itself, and Err says it could not
// join, with the host's reason.
func TestMatchRefusedJoin(t *testing.T) {
	dir := t.TempDir()
	// -max-players 1 with the host's own player: every player refused.
	host := open(t, []string{"-host", "-addr", "127.0.0.1:0", "-save", "", "-reset-key", filepath.Join(dir, "reset-key"), "-max-players", "1"}, Options[Still]{Stdout: &syncBuffer{}, Stderr: &syncBuffer{}})
	ctx, cancel := context.WithTimeout(context.Background(), matchTimeout)
	defer cancel()
	background(t, host, func() error { return host.Play(ctx, 0) })
	client := open(t, []string{"-join", host.Hosting().Line}, Options[Still]{Stderr: &syncBuffer{}})
	defer client.Close()
	err := client.Play(ctx, 0)
	if err == nil || !strings.HasPrefix(err.Error(), "could not join: ") || !strings.Contains(err.Error(), "host full") || !errors.Is(err, tandem.ErrRefused) {
		t.Fatalf("a refused client's Play: %v; want could not join, the host's reason", err)
	}
	if !client.Ended() || client.Err() == nil || client.Err().Error() != err.Error() {
		t.Fatalf("a refused client: Ended %v, Err %v", client.Ended(), client.Err())
	}
}

// A headless host's RunHeadless ends at RestartSignal, and its Close then
// closes it for a restart: its player's client is told to come back (it
// reconnects) rather than that the game ended.
func TestMatchRestartSignal(t *testing.T) {
	dir := t.TempDir()
	var out syncBuffer
	host := open(t, []string{"-host", "-addr", "127.0.0.1:0", "-save", filepath.Join(dir, "world.db"), "-reset-key", filepath.Join(dir, "reset-key"), "-grace", "10s"}, Options[Still]{Headless: true, Stdout: &out, Stderr: &syncBuffer{}})
	ctx, cancel := context.WithTimeout(context.Background(), matchTimeout)
	defer cancel()
	hostDone := background(t, host, func() error { return host.RunHeadless(ctx, 0) })

	client := open(t, []string{"-join", host.Hosting().Line}, Options[Still]{Stderr: &syncBuffer{}})
	defer client.Close()
	// Played: the host's Run answers the join, and RunHeadless watches
	// the signal before it runs the host.
	if err := client.Play(ctx, 10); err != nil {
		t.Fatalf("the client's Play(10): %v", err)
	}
	events := make(chan tandem.Event, 16)
	client.Client().OnEvent(func(e tandem.Event) {
		select {
		case events <- e:
		default:
		}
	})
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-hostDone:
		if err != nil || !strings.Contains(out.String(), "mygame: closing for a restart") {
			t.Fatalf("RunHeadless at SIGHUP: %v, said %q; want nil and a restart", err, out.String())
		}
	case <-ctx.Done():
		t.Fatal("RunHeadless went on after SIGHUP")
	}
	if err := host.Close(); err != nil {
		t.Fatalf("the host's Close for a restart: %v", err)
	}
	playing, stop := context.WithCancel(ctx)
	defer stop()
	clientDone := background(t, client, func() error { return client.Play(playing, 0) })
	for {
		select {
		case e := <-events:
			if e.Kind == tandem.PeerLeft {
				t.Fatalf("the client was let go (%v); want told to come back", e)
			}
			if e.Kind != tandem.PeerDisconnected {
				continue
			}
			stop()
			if err := <-clientDone; err != nil || client.Ended() {
				t.Fatalf("the client coming back: Play %v, Ended %v", err, client.Ended())
			}
			return
		case err := <-clientDone:
			t.Fatalf("the client's Play ended: %v; want it reconnecting", err)
		case <-ctx.Done():
			t.Fatal("the client never heard the host close for a restart")
		}
	}
}

// Open refuses what is not a match, saying what to do.
func TestOpenRefuses(t *testing.T) {
	f, err := parse([]string{"-host", "-agones"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(*f, wavers, Options[Still]{}); err == nil || !strings.Contains(err.Error(), "ServeFleet") {
		t.Errorf("Open with -agones: %v; want pointed at ServeFleet", err)
	}
	if _, err := Open(Flags{}, wavers, Options[Still]{}); err == nil || !strings.Contains(err.Error(), "Flags.App") {
		t.Errorf("Open without App: %v; want told to set it", err)
	}
}

// A closed client's Err says whether it got in.
func TestClientErr(t *testing.T) {
	why := errors.New("kicked")
	for _, c := range []struct {
		joined bool
		err    error
		want   string
	}{
		{false, why, "could not join: kicked"},
		{false, nil, "could not join: the connection closed"},
		{true, why, "the session ended: kicked"},
		{true, nil, ""},
	} {
		got := clientErr(c.joined, c.err)
		if (got == nil) != (c.want == "") || got != nil && (got.Error() != c.want || c.err != nil && !errors.Is(got, c.err)) {
			t.Errorf("joined %v, %v: %v; want %q", c.joined, c.err, got, c.want)
		}
	}
}

// Receipts keeps the newest ones not yet taken, oldest first, from any
// goroutine.
func TestReceipts(t *testing.T) {
	var r Receipts
	if r.Answered(0) || len(r.Take(nil)) != 0 {
		t.Fatal("an empty Receipts answered or held something")
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				r.Add(tandem.Receipt{Op: uint64(g*1000 + i)})
				r.Answered(uint64(i))
			}
		}()
	}
	wg.Wait()
	if got := r.Take(nil); len(got) != receiptsKept {
		t.Fatalf("after 400: %d kept, want %d", len(got), receiptsKept)
	}
	for i := range receiptsKept + 3 {
		r.Add(tandem.Receipt{Op: uint64(i + 1), Command: fmt.Sprint("c", i)})
	}
	got := r.Take(make([]tandem.Receipt, 0, 1))
	if len(got) != receiptsKept || got[0].Op != 4 || got[len(got)-1].Op != receiptsKept+3 {
		t.Fatalf("taken: %+v; want the newest %d, oldest first", got, receiptsKept)
	}
	if !r.Answered(receiptsKept+3) || r.Answered(receiptsKept+2) {
		t.Fatal("Answered does not tell the newest operation")
	}
}

// A host that restores its world from the save says which of the game's
// flags for a new world it did not apply, and how to start a new one; a
// host that starts a new world, or is given none of them, says nothing.
func TestAHostOnItsSaveSaysWhatItDidNotApply(t *testing.T) {
	save := filepath.Join(t.TempDir(), "world.db")
	host := func(args ...string) string {
		f := &Flags{App: "mygame"}
		fs := flag.NewFlagSet("mygame", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.Register(fs)
		fs.Int("props", 0, "a new world's decor")
		if err := fs.Parse(append([]string{"-host", "-addr", "127.0.0.1:0", "-save", save}, args...)); err != nil {
			t.Fatal(err)
		}
		if err := f.Check(fs); err != nil {
			t.Fatal(err)
		}
		var log syncBuffer
		m, err := Open(*f, wavers, Options[Still]{Headless: true, NewWorld: []string{"props", "crates"}, Stdout: io.Discard, Stderr: &log})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		return log.String()
	}
	const told = "-props not applied: the world was restored from the save"
	if log := host("-props", "10"); strings.Contains(log, "not applied") {
		t.Fatalf("a host making a new world said:\n%s", log)
	}
	if log := host("-props", "10"); !strings.Contains(log, told) || !strings.Contains(log, "-save ''") {
		t.Fatalf("a host restoring its world, given -props, said:\n%s\nwant %q and how to start a new world", log, told)
	}
	if log := host(); strings.Contains(log, "not applied") {
		t.Fatalf("a host restoring its world, given none of the new world's flags, said:\n%s", log)
	}
}
