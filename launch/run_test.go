package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/save"
	"github.com/tandem-go/tandem/tandemtest"
)

// Still is the input of standers: nothing.
type Still struct{ On bool }

// standers is a small game: each player gets a figure that stands still.
var standers = &tandem.Game[Still]{
	Components: []tandem.Component{tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose)},
	Input: tandem.InputCodec[Still]{
		Append: func(dst []byte, in *Still) []byte {
			if in.On {
				return append(dst, 1)
			}
			return append(dst, 0)
		},
		Read:    func(r *wire.Reader, in *Still) { in.On = r.U8() == 1 },
		MaxSize: 1,
	},
	Setup: func(*tandem.World) {},
	Join: func(w *tandem.World, p tandem.Peer) error {
		m := generic.NewMap3[ecs.Transform, ecs.NetworkIdentity, tandem.Input[Still]](w.ECS.Arche())
		m.NewWith(&ecs.Transform{}, &ecs.NetworkIdentity{Owner: p.ID}, &tandem.Input[Still]{})
		return nil
	},
}

// The host's listener prints the lines a friend joins with, and a client
// given the join line dials it with the host pinned; one that pins another
// certificate is refused, and its error names the join.
func TestListenAndDial(t *testing.T) {
	dir := t.TempDir()
	host := &Flags{App: "mygame", Host: true, Addr: "127.0.0.1:0", ResetKey: filepath.Join(dir, "reset-key")}
	var out bytes.Buffer
	h, err := host.Listen(&out, nil, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Listener.Close()
	for _, want := range []string{
		`^mygame: hosting on 127\.0\.0\.1:\d+, entities=7, certificate ` + h.Fingerprint + `$`,
		`^join with: .* -join 127\.0\.0\.1:\d+ -pin ` + h.Fingerprint + `$`,
		`^mygame: join line ` + regexp.QuoteMeta(h.Line) + `$`,
		`^mygame: short code ` + regexp.QuoteMeta(h.Short) + ` `,
	} {
		if !regexp.MustCompile(`(?m)` + want).MatchString(out.String()) {
			t.Errorf("the host's lines do not match %s:\n%s", want, out.String())
		}
	}
	accepted := make(chan error, 2)
	go func() {
		for {
			c, err := h.Listener.Accept(context.Background())
			if err != nil {
				return
			}
			accepted <- nil
			defer c.Close(transport.CloseNormal, "")
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, line := range []string{h.Line, h.Short} {
		c, err := parse([]string{"-join", line}, false)
		if err != nil {
			t.Fatal(err)
		}
		dial, err := c.Dialer()
		if err != nil {
			t.Fatal(err)
		}
		conn, err := dial(ctx)
		if err != nil {
			t.Fatalf("dialing with %q: %v", line, err)
		}
		// The host takes the connection before the client lets it go (one
		// closed first might never be handed to Accept).
		select {
		case err := <-accepted:
			if err != nil {
				t.Fatal(err)
			}
		case <-ctx.Done():
			t.Fatalf("the host did not accept the connection dialed with %q", line)
		}
		conn.Close(transport.CloseNormal, "")
	}
	other := strings.Repeat("ab", 32)
	c, err := parse([]string{"-join", h.Listener.Addr().String(), "-pin", other}, false)
	if err != nil {
		t.Fatal(err)
	}
	dial, err := c.Dialer()
	if err != nil {
		t.Fatal(err)
	}
	if conn, err := dial(ctx); err == nil || !strings.Contains(err.Error(), "join "+h.Listener.Addr().String()) {
		if conn != nil {
			conn.Close(transport.CloseNormal, "")
		}
		t.Fatalf("a client pinning another certificate: %v; want refused, naming the join", err)
	}
}

// A save opens where -save says, holds the host's identity, and points the
// host at its world; an empty -save keeps the world in memory, with a nil Save
// whose methods do nothing. An error of a save made by another version of
// the game says what to do.
func TestOpenSave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "saves", "world.db")
	f, err := parse([]string{"-host", "-save", path}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := f.SavePath(); got != path || err != nil {
		t.Fatalf("SavePath: %q, %v; want %q", got, err, path)
	}
	var log bytes.Buffer
	s, err := f.OpenSave("arena", &log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "mygame: saving the world to "+path) {
		t.Errorf("OpenSave said %q", log.String())
	}
	if id := s.Identity(); id == nil || len(id.Certificate.Certificate) == 0 {
		t.Fatalf("the save's identity: %+v", id)
	}
	// The game's own hooks, set before, are called too.
	var heard []string
	hc := tandem.HostConfig{
		OnRestore:   func(tandem.RestoreReport) { heard = append(heard, "restore") },
		OnSave:      func(tandem.SavedReport) { heard = append(heard, "save") },
		OnSaveError: func(error) { heard = append(heard, "error") },
	}
	s.Configure(&hc, &log)
	if hc.Store == nil || hc.OnRestore == nil || hc.OnSave == nil || hc.OnSaveError == nil {
		t.Fatalf("Configure: %+v; want the store and its reports", hc)
	}
	hc.OnSave(tandem.SavedReport{Seq: 3, Frame: 60, Players: 1})
	hc.OnSave(tandem.SavedReport{Seq: 4, Frame: 120, Players: 1})
	if n := strings.Count(log.String(), "holds 1 player\n"); n != 1 {
		t.Errorf("%d lines of a save holding one player, want 1 (a line when who it holds changes):\n%s", n, log.String())
	}
	hc.OnRestore(tandem.RestoreReport{})
	hc.OnSaveError(errors.New("disk full"))
	if want := []string{"save", "save", "restore", "error"}; !slices.Equal(heard, want) {
		t.Errorf("the game's hooks heard %v, want %v", heard, want)
	}
	mismatch := fmt.Errorf("tandem: restore: %w", save.ErrMismatch)
	if err := s.Explain(mismatch); !errors.Is(err, save.ErrMismatch) || !strings.Contains(err.Error(), "another version of this game") || !strings.Contains(err.Error(), path) {
		t.Errorf("Explain: %v", err)
	}
	if other := errors.New("disk full"); s.Explain(other) != other {
		t.Errorf("Explain changed another error")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	f, err = parse([]string{"-host", "-save", ""}, false)
	if err != nil {
		t.Fatal(err)
	}
	log.Reset()
	none, err := f.OpenSave("arena", &log)
	if none != nil || err != nil || !strings.Contains(log.String(), "in memory only") {
		t.Fatalf("-save '': %v, %v, %q; want no save", none, err, log.String())
	}
	hc = tandem.HostConfig{}
	none.Configure(&hc, &log)
	if hc.Store != nil || none.Identity() != nil || none.Close() != nil || none.Explain(mismatch) != mismatch {
		t.Fatal("a nil Save did something")
	}
	f, _ = parse([]string{"-host"}, false)
	if p, err := f.SavePath(); err == nil && !strings.HasSuffix(p, filepath.Join("mygame", "world.db")) {
		t.Errorf("the default save: %q, want mygame/world.db in the user's state directory", p)
	}
}

// A client's log says its join, a break and the reconnection, and its
// return; its own leaving says nothing.
func TestLogClient(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := tandemtest.New(t, standers, tandem.HostConfig{Grace: 10 * time.Second}, tandemtest.Config{Bubble: true})
		var log syncBuffer
		ann := r.Connect("ann", tandem.ClientConfig[Still]{})
		LogClient(ann, "mygame", "host:4242", &log)
		if !r.StepUntil(60*10, func() bool { return ann.State() == tandem.Playing }) {
			t.Fatalf("ann did not join: %v", ann.Err())
		}
		want := fmt.Sprintf("mygame: joined host:4242 as peer %d (ann), 1 entity\n", ann.Peer())
		if log.String() != want {
			t.Fatalf("the join's log: %q, want %q", log.String(), want)
		}
		first := r.Conn(ann)
		r.Cut(ann)
		if !r.StepUntil(60*60, func() bool { return r.Conn(ann) != first && ann.State() == tandem.Playing }) {
			t.Fatalf("ann after her link was cut: %v (%v)", ann.State(), ann.Err())
		}
		for _, want := range []string{
			"mygame: the connection broke, reconnecting: ",
			fmt.Sprintf("mygame: resumed as peer %d (ann)\n", ann.Peer()),
			fmt.Sprintf("mygame: back in the game as peer %d (ann), 1 entity\n", ann.Peer()),
		} {
			if !strings.Contains(log.String(), want) {
				t.Errorf("the log after a break lacks %q:\n%s", want, log.String())
			}
		}
		before := log.String()
		ann.Close()
		r.Step(5)
		if log.String() != before {
			t.Errorf("the client's own Close logged %q", strings.TrimPrefix(log.String(), before))
		}
	})
}

// syncBuffer is a bytes.Buffer for writers on other goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// restartable is a host that can restart, or not.
type restartable bool

func (r restartable) Restartable() bool { return bool(r) }

// RestartSignal ends the watch's context; Asked says whether the host
// should close for a restart, which only a restartable one does.
func TestWatchRestart(t *testing.T) {
	for _, can := range []bool{true, false} {
		var out syncBuffer
		ctx, r := WatchRestart(context.Background(), restartable(can), "mygame", &out)
		if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("SIGHUP did not end the watch's context")
		}
		r.Stop()
		says := "closing for a restart"
		if !can {
			says = "shutting down"
		}
		if r.Asked() != can || !strings.HasPrefix(out.String(), "mygame: ") || !strings.Contains(out.String(), says) {
			t.Errorf("restartable %v: Asked %v, said %q", can, r.Asked(), out.String())
		}
	}
	// Stopped before a signal: not asked, and the context ends.
	ctx, r := WatchRestart(context.Background(), restartable(true), "mygame", &syncBuffer{})
	r.Stop()
	if ctx.Err() == nil || r.Asked() {
		t.Fatalf("a stopped watch: ctx %v, Asked %v", ctx.Err(), r.Asked())
	}
	// Released, it no longer takes the signal.
	r.Release()
	mine := make(chan os.Signal, 1)
	signal.Notify(mine, syscall.SIGHUP)
	defer signal.Stop(mine)
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-mine:
	case <-time.After(10 * time.Second):
		t.Fatal("SIGHUP did not arrive")
	}
	if len(r.sig) != 0 {
		t.Fatal("a released watch still took SIGHUP")
	}
}

// RunHost closes a restartable host for a restart at RestartSignal, its
// save then open to the next host, and closes it plainly when its context
// ends.
func TestRunHost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "world.db")
	h, err := tandem.NewHost(standers, tandem.HostConfig{SaveTo: path, Grace: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- RunHost(context.Background(), h, "mygame", &out) }()
	for deadline := time.Now().Add(10 * time.Second); h.Ticks() == 0; time.Sleep(time.Millisecond) {
		// Running: the watch is set before Run.
		select {
		case err := <-done:
			t.Fatalf("RunHost returned before the host ran: %v (said %q)", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the host never ran")
		}
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), "mygame: closing for a restart") {
			t.Fatalf("RunHost at SIGHUP: %v, said %q; want nil and a restart", err, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("RunHost went on after SIGHUP")
	}

	next, err := tandem.NewHost(standers, tandem.HostConfig{SaveTo: path, Grace: 10 * time.Second})
	if err != nil {
		t.Fatalf("the next host on the save: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out = syncBuffer{}
	go func() { done <- RunHost(ctx, next, "mygame", &out) }()
	cancel()
	if err := <-done; err != nil || out.String() != "" {
		t.Fatalf("RunHost at its context's end: %v, said %q; want nil, nothing", err, out.String())
	}
}

// -save env:NAME takes the save from the environment variable NAME, out of
// the command line; one unset or empty is an error that names it.
func TestSaveFromTheEnvironment(t *testing.T) {
	const url = "postgres://tandem:s3cret@db/tandem"
	t.Setenv("TANDEM_TEST_SAVE", url)
	f, _ := parse([]string{"-host", "-save", "env:TANDEM_TEST_SAVE"}, false)
	if got, err := f.SavePath(); got != url || err != nil {
		t.Fatalf("-save env:TANDEM_TEST_SAVE: %q, %v; want %q", got, err, url)
	}
	t.Setenv("TANDEM_TEST_SAVE", "")
	if _, err := f.SavePath(); err == nil || !strings.Contains(err.Error(), "TANDEM_TEST_SAVE") {
		t.Fatalf("an empty variable: %v; want an error naming it", err)
	}
}
