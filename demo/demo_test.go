package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/net/transport/quicnet/joincode"
)

// binDir holds the demo binary, built once for the tests that run it.
var binDir string

func TestMain(m *testing.M) {
	os.Setenv("QUIC_GO_DISABLE_RECEIVE_BUFFER_WARNING", "true")
	dir, err := os.MkdirTemp("", "tandem-demo-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	// The host keeps its reset key in the user's config directory: point it
	// at the test's own.
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	// And its save in the user's state directory: a test's own (start gives
	// each process one of its own).
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// demoBinary builds the demo (once) and returns its path.
func demoBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(binDir, "demo")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runDemo runs the demo binary with args and returns its stdout.
func runDemo(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, demoBinary(t), args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("demo %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

var summaryLine = regexp.MustCompile(`^` + logName + `: ticks=(\d+) frame=(\d+) score=(\d+)-(\d+) ball=\((-?[\d.]+),(-?[\d.]+)\) moved=([\d.]+) `)

// parseSummary checks out is exactly one summary line and returns its
// ticks, frame and ball travel.
func parseSummary(t *testing.T, out string) (ticks, frame int, moved float64) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 1 {
		t.Fatalf("want exactly one line on stdout, got %d:\n%s", len(lines), out)
	}
	m := summaryLine.FindStringSubmatch(lines[0])
	if m == nil {
		t.Fatalf("summary line %q does not match %v", lines[0], summaryLine)
	}
	ticks, _ = strconv.Atoi(m[1])
	frame, _ = strconv.Atoi(m[2])
	moved, _ = strconv.ParseFloat(m[7], 64)
	return ticks, frame, moved
}

func TestHeadlessBotsMoveTheBall(t *testing.T) {
	out := runDemo(t, "-headless", "-ticks", "600", "-bots", "3")
	ticks, frame, moved := parseSummary(t, out)
	if ticks != 600 || frame != 600 {
		t.Fatalf("ticks=%d frame=%d, want 600 and 600", ticks, frame)
	}
	if moved < 100 {
		t.Fatalf("three bots moved the ball %.1f units in 600 ticks, want at least 100", moved)
	}
}

func TestRunHeadlessInProcess(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-headless", "-ticks", "300", "-bots", "2", "-crates", "10"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d; stderr: %s", code, stderr.String())
	}
	if ticks, _, _ := parseSummary(t, stdout.String()); ticks != 300 {
		t.Fatalf("ticks=%d, want 300", ticks)
	}
}

// hostConfig is the host's settings a match of o opens with (openMatch,
// launch.Open): the flags', its own player's place only when it plays, and
// the demo's room for spectators.
func hostConfig(o options) tandem.HostConfig {
	hc := o.HostConfig(!o.headless)
	roomForSpectators(&hc)
	return hc
}

func TestFlags(t *testing.T) {
	var usage bytes.Buffer
	if _, err := parseOptions([]string{"-help"}, &usage); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-help: %v", err)
	}
	for _, name := range []string{"-host", "-join", "-addr", "-pin", "-name", "-headless", "-bot", "-bots", "-ticks", "-screenshot", "-crates", "-props", "-max-players", "-per-address", "-lag", "-jitter", "-loss", "-grace", "-idle-timeout", "-agones", "-save", "-save-every", "-spectate", "-netgraph"} {
		if !strings.Contains(usage.String(), name+" ") && !strings.Contains(usage.String(), name+"\n") {
			t.Errorf("-help does not document %s:\n%s", name, usage.String())
		}
	}
	if intro, _, _ := strings.Cut(usage.String(), "Flags:"); !strings.Contains(intro, "-max-players") {
		t.Errorf("-help's introduction gives a number of people without saying -max-players raises it:\n%s", intro)
	}
	for _, bad := range [][]string{
		{"-headless", "-ticks", "5", "-screenshot", "x.png"},
		{"-host", "-join", "127.0.0.1:4242"},
		{"-bots", "-1"},
		{"-bot"},
		{"-pin", "ab"},
		{"-join", "127.0.0.1:4242", "-bots", "2"},
		{"-alone", "-lag", "100ms"},
		{"-host", "-loss", "2"},
		{"-host", "-loss", "x%"},
		{"-host", "-lag", "-5ms"},
		{"-name", ""},
		{"-name", "ann\nhost: admin"},
		{"-name", "tab\there"},
		{"-name", strings.Repeat("n", 33)},
		{"-join", "127.0.0.1:4242", "-reset-key", "k"},
		{"-props", "-5"},
		{"-join", "127.0.0.1:4242", "-props", "100"},
		{"-join", ""},
		{"-join", " ", "-headless"},
		{"-max-players", "12"},
		{"-host", "-max-players", "0"},
		{"-per-address", "8"},
		{"-host", "-per-address", "-1"},
		{"-join", "127.0.0.1:4242", "-grace", "5s"},
		{"-host", "-grace", "-1s"},
		{"-join", "127.0.0.1:4242", "-save-every", "1s"},
		{"-host", "-save-every", "0s"},
		{"-alone", "-idle-timeout", "1s"},
		{"-headless", "-grace", "5s"},
		{"-agones"},
		{"-host", "-agones", "-ticks", "5"},
		{"extra"},
	} {
		if _, err := parseOptions(bad, &bytes.Buffer{}); err == nil {
			t.Errorf("parseOptions(%q) accepted", bad)
		}
	}
	o, err := parseOptions(nil, &bytes.Buffer{})
	if err != nil || o.crates != game.DefaultConfig().Crates || o.props != 0 || o.MaxPlayers != game.MaxPlayers || o.ticks != 0 || o.Addr != ":4242" || o.Networked() || o.netGraph || o.App != appName {
		t.Fatalf("defaults: %+v, %v", o, err)
	}
	if o, err := parseOptions([]string{"-host", "-per-address", "64"}, &bytes.Buffer{}); err != nil || hostConfig(o).MaxPeersPerAddress != 64 {
		t.Fatalf("-host -per-address 64: %+v, %v", o, err)
	}
	if o, err := parseOptions([]string{"-host", "-max-players", "64", "-props", "100000"}, &bytes.Buffer{}); err != nil || o.MaxPlayers != 64 || o.props != 100000 {
		t.Fatalf("-host -max-players 64 -props 100000: %+v, %v", o, err)
	}
	for _, args := range [][]string{{"-host", "-max-players", "12", "-grace", "0s"}, {"-host", "-headless", "-max-players", "12", "-grace", "0s"}} {
		o, err := parseOptions(args, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		// Twelve people: the host's own player, when it plays, is one.
		slots := 12
		if !o.headless {
			slots--
		}
		if hc := hostConfig(o); hc.MaxPeers != slots || hc.Grace >= 0 || hc.Spectators != game.MaxPlayers || (hc.Name != "") != !o.headless {
			t.Errorf("%q: host settings %+v; want 12 people (%d player slots) and room for spectators, no resumes, the host's own player only when it plays", args, hc, slots)
		}
	}
	o, err = parseOptions([]string{"-join", "127.0.0.1:4242", "-lag", "150ms", "-jitter", "30ms", "-loss", "5%"}, &bytes.Buffer{})
	if err != nil || o.Loss != 0.05 || !o.netGraph {
		t.Fatalf("-loss 5%%: %+v, %v; want loss 0.05 and the net graph on", o, err)
	}
	if c := o.Conditions(); c.Latency != 75*time.Millisecond || c.Jitter != 15*time.Millisecond || c.Loss != 0.05 {
		t.Fatalf("-lag 150ms -jitter 30ms -loss 5%%: each way %+v, want 75ms ± 15ms and 5%%", c)
	}
	var stderr bytes.Buffer
	if code := run([]string{"-ticks", "-3"}, &bytes.Buffer{}, &stderr); code != 2 || !strings.Contains(stderr.String(), "negative") {
		t.Fatalf("bad flags: exit %d, stderr %q; want 2 and a message", code, stderr.String())
	}
}

// -join takes the host's join line (package launch reads it, and tests
// every form it takes): the demo dials the address it names, pinned.
func TestJoinFlag(t *testing.T) {
	sum := sha256.Sum256([]byte("a host's certificate"))
	fp := hex.EncodeToString(sum[:])
	full, _, err := joincode.Lines("192.168.1.20:4242", fp)
	if err != nil {
		t.Fatal(err)
	}
	o, err := parseOptions([]string{"-join", full}, &bytes.Buffer{})
	if err != nil || o.Join != "192.168.1.20:4242" || o.Code == nil {
		t.Fatalf("-join %q: %+v, %v", full, o, err)
	}
	if cfg := o.QUIC(); cfg.Fingerprint != fp || cfg.InsecureSkipVerify {
		t.Fatalf("-join %q dials with %+v: want the host pinned", full, cfg)
	}
	if _, err := parseOptions([]string{"-join", full + "0"}, &bytes.Buffer{}); err == nil || !strings.HasPrefix(err.Error(), "-join: ") {
		t.Fatalf("a damaged join line: %v, want refused naming -join", err)
	}
}

// near reports whether c is within 3 per channel of want.
func near(c color.RGBA, want color.RGBA) bool {
	d := func(a, b uint8) bool { return math.Abs(float64(a)-float64(b)) <= 3 }
	return d(c.R, want.R) && d(c.G, want.G) && d(c.B, want.B)
}

// count returns how many pixels of img inside r are near one of cols.
func count(img *image.RGBA, r image.Rectangle, cols ...color.RGBA) int {
	n := 0
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.RGBAAt(x, y)
			for _, want := range cols {
				if near(c, want) {
					n++
					break
				}
			}
		}
	}
	return n
}

func TestScreenshotShowsTheArena(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: this test opens a window; run it under xvfb-run (make test does)")
	}
	shot := filepath.Join(t.TempDir(), "shot.png")
	out := runDemo(t, "-ticks", "120", "-screenshot", shot)
	if ticks, _, _ := parseSummary(t, out); ticks != 120 {
		t.Fatalf("ticks=%d, want 120", ticks)
	}
	img := readPNG(t, shot)
	checkArena(t, img)
	// The local player's disc (drawn on top; its centre may hold the dark
	// eye that shows its heading), on its own (left) half.
	checkDisc(t, img, "local player", game.Left, game.LocalColor)
}

// TestScreenshotShowsTheProps: a game with 20,000 props over grounds of
// 6,400 units a side shows the few hundred that fall in view on the turf:
// pixels of the props' colours that a game without props lacks (it has
// some, where edges blend into the turf).
func TestScreenshotShowsTheProps(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: this test opens a window; run it under xvfb-run (make test does)")
	}
	fl := game.DefaultConfig().Field
	field := image.Rect(int(fl.MinX)+8, int(fl.MinY)+8, int(fl.MaxX)-8, int(fl.MaxY)-8)
	var seen [2]int
	for i, props := range []int{0, 20000} {
		shot := filepath.Join(t.TempDir(), "shot.png")
		out := runDemo(t, "-alone", "-mute", "-ticks", "30", "-props", strconv.Itoa(props), "-screenshot", shot)
		if ticks, _, _ := parseSummary(t, out); ticks != 30 {
			t.Fatalf("-props %d: ticks=%d, want 30", props, ticks)
		}
		seen[i] = count(readPNG(t, shot), field, colProp[:]...)
		t.Logf("-props %d: %d pixels of the props' colours on the field", props, seen[i])
	}
	// Some 2% of the props are in view, each a few pixels of its colour
	// where no crate or player covers it.
	if more, want := seen[1]-seen[0], 20000/20; more < want {
		t.Errorf("20,000 props add %d pixels of their colours to the field, want at least %d", more, want)
	}
}

// readPNG reads a screenshot.
func readPNG(t *testing.T, path string) *image.RGBA {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot %s is not a PNG: %v", path, err)
	}
	img, ok := dec.(*image.RGBA)
	if !ok {
		b := dec.Bounds()
		img = image.NewRGBA(b)
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				img.Set(x, y, dec.At(x, y))
			}
		}
	}
	if b := img.Bounds(); b.Dx() != screenW || b.Dy() != screenH {
		t.Fatalf("screenshot %s is %v, want %dx%d", path, b, screenW, screenH)
	}
	return img
}

// checkDisc asserts a player's disc of colour c is drawn on team's half.
func checkDisc(t *testing.T, img *image.RGBA, what string, team game.Team, c color.RGBA) {
	t.Helper()
	cfg := game.DefaultConfig()
	fl := cfg.Field
	half := image.Rect(int(fl.MinX), int(fl.MinY), int(fl.MinX+fl.W()/2), int(fl.MaxY))
	if team == game.Right {
		half = image.Rect(int(fl.MinX+fl.W()/2), int(fl.MinY), int(fl.MaxX), int(fl.MaxY))
	}
	want := int(math.Pi * (cfg.PlayerRadius - 6) * (cfg.PlayerRadius - 6))
	n := count(img, half, c)
	t.Logf("%s: %d pixels (at least %d)", what, n, want)
	if n < want {
		t.Errorf("%s: %d pixels of its colour %v on the %v half, want at least %d", what, n, c, team, want)
	}
}

// checkArena asserts the screenshot shows the arena as the demo draws it:
// turf, background, walls, crates, ball, a tinted goal.
func checkArena(t *testing.T, img *image.RGBA) {
	t.Helper()
	cfg := game.DefaultConfig()
	fl := cfg.Field
	field := image.Rect(int(fl.MinX)+8, int(fl.MinY)+8, int(fl.MaxX)-8, int(fl.MaxY)-8)
	area := field.Dx() * field.Dy()
	checks := []struct {
		what string
		r    image.Rectangle
		cols []color.RGBA
		min  int
	}{
		// The turf covers most of the field (crates, players, markings and
		// shadows cover the rest).
		{"field turf", field, colFloor[:], area / 2},
		// Outside the arena: the background, below the field.
		{"background", image.Rect(0, int(fl.MaxY)+10, screenW, screenH), []color.RGBA{colBackground}, (screenH - int(fl.MaxY) - 10) * screenW * 9 / 10},
		// The top wall runs the width of the field.
		{"top wall", image.Rect(int(fl.MinX)+10, int(fl.MinY)-1, int(fl.MaxX)-10, int(fl.MinY)+1), []color.RGBA{colWall}, int(fl.W()-20) * 2 * 9 / 10},
		// Thirty crates, at least 20×20 of plain wood each.
		{"crates", field, colCrate[:], cfg.Crates * 20 * 20},
		{"ball", field, []color.RGBA{colBall}, int(math.Pi * cfg.BallRadius * cfg.BallRadius / 3)},
	}
	for _, c := range checks {
		n := count(img, c.r, c.cols...)
		if n < c.min {
			t.Errorf("%s: %d pixels of its colour in %v, want at least %d", c.what, n, c.r, c.min)
		}
		t.Logf("%s: %d pixels (at least %d)", c.what, n, c.min)
	}
	// The left goal is tinted blue.
	_, cy := fl.Center()
	gc := img.RGBAAt(int(fl.MinX-cfg.GoalDepth/2), int(cy)+4)
	if !(gc.B > gc.R+40 && gc.B > gc.G) {
		t.Errorf("left goal pixel %v is not blue-tinted", gc)
	}
}
