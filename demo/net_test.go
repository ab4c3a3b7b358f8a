package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-go/tandem/demo/game"
)

// processTimeout bounds every demo process these tests start.
const processTimeout = 2 * time.Minute

// proc is a demo process whose output lines the test can wait for.
type proc struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	cancel context.CancelFunc

	mu     sync.Mutex
	lines  []string // stdout and stderr, as they came
	stdout bytes.Buffer
	grew   chan struct{} // signalled on every new line
	done   chan struct{} // closed when the process exited
	err    error         // its exit
}

// start runs the demo binary with args; the process is killed when the test
// ends if it is still running.
func start(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	return startWith(t, name, nil, args...)
}

// startWith is start with env added to the process's environment.
func startWith(t *testing.T, name string, env []string, args ...string) *proc {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	p := &proc{t: t, name: name, cancel: cancel, grew: make(chan struct{}, 1), done: make(chan struct{})}
	p.cmd = exec.CommandContext(ctx, demoBinary(t), args...)
	p.cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir()) // a host's default save, its own
	p.cmd.Env = append(p.cmd.Env, keyEchoEnv+"=1")                  // a window prints the keys its frames see
	p.cmd.Env = append(p.cmd.Env, env...)
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errp, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	var readers sync.WaitGroup
	readers.Add(2)
	go p.read(out, true, &readers)
	go p.read(errp, false, &readers)
	go func() {
		readers.Wait()
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		cancel()
		<-p.done
		if t.Failed() {
			t.Logf("%s output:\n%s", name, p.output())
		}
	})
	return p
}

func (p *proc) read(r io.Reader, stdout bool, wg *sync.WaitGroup) {
	defer wg.Done()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		p.mu.Lock()
		p.lines = append(p.lines, sc.Text())
		if stdout {
			p.stdout.WriteString(sc.Text() + "\n")
		}
		p.mu.Unlock()
		select {
		case p.grew <- struct{}{}:
		default:
		}
	}
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// waitLine waits until the process printed a line matching re and returns
// its submatches; it fails the test if the process exits first.
func (p *proc) waitLine(re *regexp.Regexp) []string {
	p.t.Helper()
	return p.waitLineAfter(0, re)
}

// mark returns how many lines the process printed so far, for
// waitLineAfter.
func (p *proc) mark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.lines)
}

// waitLineAfter is waitLine over the lines printed after the first seen.
func (p *proc) waitLineAfter(seen int, re *regexp.Regexp) []string {
	p.t.Helper()
	for {
		p.mu.Lock()
		for ; seen < len(p.lines); seen++ {
			if m := re.FindStringSubmatch(p.lines[seen]); m != nil {
				p.mu.Unlock()
				return m
			}
		}
		p.mu.Unlock()
		select {
		case <-p.grew:
		case <-p.done:
			select {
			case <-p.grew:
				continue // lines that came with the exit
			default:
			}
			p.t.Fatalf("%s exited (%v) before printing a line matching %v", p.name, p.err, re)
		}
	}
}

// wait waits for the process to exit and fails the test unless it exited 0.
// It returns what the process printed on stdout.
func (p *proc) wait() string {
	p.t.Helper()
	<-p.done
	if p.err != nil {
		p.t.Fatalf("%s: %v", p.name, p.err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdout.String()
}

// signal sends sig to the process.
func (p *proc) signal(sig os.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("signal %s: %v", p.name, err)
	}
}

var (
	joinLine    = regexp.MustCompile(`^join with: \S+(?: \S+)? -join (\S+) -pin ([0-9a-f]{64})$`)
	joinedLine  = regexp.MustCompile(`^` + logName + `: joined \S+ as peer (\d+)`)
	clientLine  = regexp.MustCompile(`^` + logName + `: joined=true ticks=(\d+) frame=\d+ entities=(\d+) own=\((-?[\d.]+),(-?[\d.]+)\) moved=([\d.]+) rtt=\S+ loss=[\d.]+ corrections=\d+ `)
	hostSummary = regexp.MustCompile(`^` + logName + `: ticks=\d+ .* peers=(\d+) joined=(\d+) left=(\d+) resumes=(\d+)$`)
)

// lineOf returns the submatches of the only line of out matching re.
func lineOf(t *testing.T, name, out string, re *regexp.Regexp) []string {
	t.Helper()
	var found []string
	for _, l := range strings.Split(out, "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			if found != nil {
				t.Fatalf("%s printed two lines matching %v:\n%s", name, re, out)
			}
			found = m
		}
	}
	if found == nil {
		t.Fatalf("%s printed no line matching %v on stdout:\n%s", name, re, out)
	}
	return found
}

// TestOverQUICLoopback plays the demo over real QUIC on 127.0.0.1: a headless
// host with two bots, and two headless clients playing as bots, for three
// seconds of play each.
func TestOverQUICLoopback(t *testing.T) {
	host := start(t, "host", "-host", "-addr", "127.0.0.1:0", "-headless", "-bots", "2")
	m := host.waitLine(joinLine)
	addr, pin := m[1], m[2]

	var clients []*proc
	for _, name := range []string{"ann", "bob"} {
		clients = append(clients, start(t, name, "-join", addr, "-pin", pin, "-headless", "-bot", "-ticks", "180", "-name", name))
	}
	for _, c := range clients {
		out := c.wait()
		m := lineOf(t, c.name, out, clientLine)
		ticks, _ := strconv.Atoi(m[1])
		entities, _ := strconv.Atoi(m[2])
		moved, _ := strconv.ParseFloat(m[5], 64)
		t.Logf("%s: %s", c.name, strings.TrimSpace(out))
		if ticks < 180 || moved < 100 {
			t.Errorf("%s: %d ticks, its disc moved %.1f units; want 180 ticks and a disc that moves", c.name, ticks, moved)
		}
		// The crates, ball, score, two bots and this client (the other
		// may have left).
		if want := game.DefaultConfig().Crates + 5; entities < want {
			t.Errorf("%s holds %d entities, want at least %d", c.name, entities, want)
		}
	}
	for _, c := range clients {
		host.waitLine(regexp.MustCompile(`^` + logName + `: peer \d+ \(` + c.name + `\) left`))
	}
	host.signal(syscall.SIGINT)
	out := host.wait()
	m = lineOf(t, "host", out, hostSummary)
	if m[2] != "2" || m[3] != "2" {
		t.Errorf("host summary %q: want joined=2 left=2", m[0])
	}
	for _, name := range []string{"ann", "bob"} {
		if !regexp.MustCompile(`peer \d+ \(` + name + `\) ready`).MatchString(host.output()) {
			t.Errorf("the host never logged %s's join as ready:\n%s", name, host.output())
		}
	}
}

// TestHostAndClientScreenshots opens a host and a client window under the X
// server and checks each one's last frame shows both players: the host's own
// (yellow, left team) and the client's (the next colour, right team). The
// host is stopped (SIGTERM) once the client has joined: the host draws its
// last frame with the client in it, and the client, seeing the game end,
// draws its last frame with the host's player still in it.
func TestHostAndClientScreenshots(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: this test opens windows; run it under xvfb-run (make test does)")
	}
	dir := t.TempDir()
	hostShot, clientShot := filepath.Join(dir, "host.png"), filepath.Join(dir, "client.png")
	host := start(t, "host", "-host", "-addr", "127.0.0.1:0", "-bots", "2", "-screenshot", hostShot)
	m := host.waitLine(joinLine)
	client := start(t, "client", "-join", m[1], "-pin", m[2], "-screenshot", clientShot, "-name", "ann")
	client.waitLine(joinedLine)
	host.signal(syscall.SIGTERM)
	hostOut := host.wait()
	clientOut := client.wait()
	lineOf(t, "host", hostOut, hostSummary)
	lineOf(t, "client", clientOut, clientLine)

	for _, shot := range []struct{ name, path string }{{"host", hostShot}, {"client", clientShot}} {
		t.Run(shot.name, func(t *testing.T) {
			img := readPNG(t, shot.path)
			checkArena(t, img)
			checkDisc(t, img, "the host's player", game.Left, game.PlayerColors[0])
			checkDisc(t, img, "the client's player", game.Right, game.PlayerColors[1])
		})
	}
	if t.Failed() {
		for _, p := range []string{hostShot, clientShot} {
			if b, err := os.ReadFile(p); err == nil {
				keep := filepath.Join(os.TempDir(), "tandem-"+filepath.Base(p))
				if os.WriteFile(keep, b, 0o644) == nil {
					t.Logf("kept %s as %s", filepath.Base(p), keep)
				}
			}
		}
	}
}

// TestPropsJoinOverQUIC: a host with 20,000 static props says on its first
// line how many entities it networks, and a client that joins holds every
// one of them (the props are all within the default interest radius of the
// field), its own player included.
func TestPropsJoinOverQUIC(t *testing.T) {
	host := start(t, "host", "-host", "-addr", "127.0.0.1:0", "-headless", "-bots", "0", "-props", "20000")
	first := host.waitLine(regexp.MustCompile(`^` + logName + `: hosting on \S+, entities=(\d+), certificate [0-9a-f]{64}$`))
	entities, _ := strconv.Atoi(first[1])
	// 20,000 props, the crates, the ball and the score at least.
	if want := 20000 + game.DefaultConfig().Crates + 2; entities < want {
		t.Fatalf("the host networks %d entities, want at least %d", entities, want)
	}
	m := host.waitLine(joinLine)
	client := start(t, "ann", "-join", m[1], "-pin", m[2], "-headless", "-ticks", "60", "-name", "ann")
	out := client.wait()
	got, _ := strconv.Atoi(lineOf(t, "ann", out, clientLine)[2])
	// The client's own player and its roster entry came after the host's
	// first line.
	if got < entities+1 || got > entities+2 {
		t.Fatalf("the client holds %d entities; the host networked %d before it joined", got, entities)
	}
	host.signal(syscall.SIGINT)
	host.wait()
}

// logName is appName as a regular expression: the start of every line the
// demo logs.
var logName = regexp.QuoteMeta(appName)
