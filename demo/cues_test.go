package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/demo/game"
	"github.com/tandem-go/tandem/ecs"
)

// The sound effects are called for by their events, as the frames show
// them: a dash, a player joining, a goal, the ball struck; counted with no
// audio device (none is opened here).
func TestEffectsFollowTheirEvents(t *testing.T) {
	o, err := parseOptions([]string{"-alone", "-bots", "0", "-crates", "0"}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	m, err := openMatch(o, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	r := newRenderer(m, false, newTextWriter())
	s := &sound{muted: true, log: os.Stderr}
	frame := func(steps int) {
		for range steps {
			m.Do(func(w *tandem.World) { w.Schedule.Step() })
		}
		m.View(time.Now(), func(v *tandem.View) { r.collect(v, 1) })
		for _, c := range r.cues {
			s.cue(c.e, c.vol)
		}
	}
	count := func(e effect) int { return s.counts[e] }
	frame(1)
	if n := s.counts; n != [sfxCount]int{} {
		t.Fatalf("the first frame called for %v; want nothing", n)
	}
	m.SetInput(game.Input{MoveX: game.InputAxisMax, Dash: true})
	frame(2)
	m.SetInput(game.Input{})
	if count(sfxDash) != 1 {
		t.Fatalf("a dash: %d dash effects", count(sfxDash))
	}
	m.Do(func(w *tandem.World) { game.Of(w).SpawnPlayer(7, game.Right, game.PlayerColors[3]) })
	frame(1)
	if count(sfxJoin) != 1 {
		t.Fatalf("a player came: %d join effects", count(sfxJoin))
	}
	m.Do(func(w *tandem.World) {
		g := game.Of(w)
		f := g.Config.Field
		_, cy := f.Center()
		g.Space.SetPose(g.Ball, ecs.Transform{X: f.MaxX - 30, Y: cy})
		g.Space.SetVelocity(g.Ball, ecs.Velocity{X: 600})
	})
	frame(1)
	hits := count(sfxHit) // the ball set moving
	for range 60 {
		frame(1)
	}
	if count(sfxGoal) != 1 {
		t.Fatalf("the ball went in: %d goal effects", count(sfxGoal))
	}
	if hits != 1 {
		t.Fatalf("the ball struck: %d hit effects", hits)
	}
	if got := s.summary(); !strings.Contains(got, "audio=muted played=0 hit=1 dash=1 goal=1 join=1") {
		t.Fatalf("sound summary %q", got)
	}
}

// Names of any printable UTF-8 draw: characters the fonts lack become a
// square (their marks left out), and a long name is cut to the width with an
// ellipsis, never between a character and its marks.
func TestNamesDrawCutAndReplaced(t *testing.T) {
	tw := newTextWriter()
	if tw.err != nil {
		t.Fatal(tw.err)
	}
	for in, want := range map[string]string{
		"Zoë":          "Zoë",
		"Ωμέγα Жук":    "Ωμέγα Жук",
		"漢字 ok":        "□□ ok",
		"😀":            "□",
		"ก\u0e31x":     "□x",     // a Thai letter and its mark, neither in the fonts
		"e\u0301 café": "é café", // composed where the fonts have the whole letter
	} {
		if got := tw.drawable(in); got != want {
			t.Errorf("drawable(%q) = %q, want %q", in, got, want)
		}
	}
	long := "Bartholomew-Maximilian Ωμέγα"
	cut := tw.cut(long, styleName, nameWidth)
	if w := tw.width(cut, styleName); w > nameWidth || !strings.HasSuffix(cut, "…") || !utf8.ValidString(cut) {
		t.Fatalf("cut(%q) = %q, %.0f px wide; want at most %d px ending in an ellipsis", long, cut, w, nameWidth)
	}
	if got := tw.cut("Ann", styleName, nameWidth); got != "Ann" {
		t.Fatalf("a short name was cut: %q", got)
	}
	accents := strings.Repeat("e\u0301", 15)
	if c := tw.cut(accents, styleName, 40); strings.HasPrefix(strings.TrimSuffix(c, "…")[len(strings.TrimSuffix(c, "…"))-1:], "e") {
		t.Fatalf("cut %q between a letter and its mark: %q", accents, c)
	}
}

// A player named in scripts the fonts lack, and at full length, plays and
// is drawn (under Xvfb: the window, the name by the disc).
func TestUnicodeNameOnScreen(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: run it under xvfb-run (make test does)")
	}
	shot := filepath.Join(t.TempDir(), "names.png")
	name := "Zoë 漢字 😀 Łukasz-Ωμ"
	out := runDemo(t, "-alone", "-ticks", "30", "-bots", "1", "-mute", "-name", name, "-screenshot", shot)
	if !regexp.MustCompile(`^` + logName + `: ticks=30 `).MatchString(out) {
		t.Fatalf("summary %q", out)
	}
	img := readPNG(t, shot)
	checkDisc(t, img, "local player", game.Left, game.LocalColor)
	keep(t, shot, "tandem-names.png")
}
