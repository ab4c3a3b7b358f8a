package main

import (
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem/net/transport/quicnet/joincode"
	"github.com/tandem-go/tandem/net/wire"
)

// These tests drive the start screen as a person would: real key presses
// and typing sent to the demo's window on the X server (xdotool, which make
// test installs with xvfb).

// needX skips a test without an X server or xdotool.
func needX(t *testing.T) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: this test opens a window; run it under xvfb-run (make test does)")
	}
	if _, err := exec.LookPath("xdotool"); err != nil {
		t.Skip("no xdotool: it types into the window (make test installs it; Debian: apt-get install xdotool)")
	}
}

// screen is a demo process's window on the X server.
type screen struct {
	t  *testing.T
	p  *proc
	id string
}

// windowOf waits for the window of demo process p and its first frame.
func windowOf(t *testing.T, p *proc) *screen {
	t.Helper()
	p.waitLine(regexp.MustCompile(`^` + logName + `: start screen$`))
	p.waitLine(regexp.MustCompile(`^` + logName + `: first frame$`))
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		out, err := exec.Command("xdotool", "search", "--pid", strconv.Itoa(p.cmd.Process.Pid), "--name", title).Output()
		if id := strings.Fields(string(out)); err == nil && len(id) > 0 {
			return &screen{t: t, p: p, id: id[0]}
		}
	}
	t.Fatalf("no window of %s appeared", p.name)
	return nil
}

// ebitenKeys names xdotool's keys as the demo's key echo prints them
// (Ebiten's names).
var ebitenKeys = map[string]string{"Down": "ArrowDown", "Up": "ArrowUp", "Return": "Enter", "Escape": "Escape", "BackSpace": "Backspace", "Tab": "Tab"}

// press presses and releases each key, waiting each time for the frame
// that saw it go down, then for the one that saw it go up (the demo echoes
// keys, keyEchoEnv): however slow the frames (a match under Xvfb's software
// renderer draws a few a second), no key is missed or taken twice. A chord
// such as "ctrl+BackSpace" waits for its last key.
func (s *screen) press(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		name := k[strings.LastIndex(k, "+")+1:]
		echo, ok := ebitenKeys[name]
		if !ok {
			s.t.Fatalf("press %q: no Ebiten name for %q in ebitenKeys", k, name)
		}
		m := s.p.mark()
		s.xdo("keydown", "--window", s.id, k)
		s.p.waitLineAfter(m, regexp.MustCompile(`^`+logName+`: key `+echo+` down$`))
		m = s.p.mark()
		s.xdo("keyup", "--window", s.id, k)
		s.p.waitLineAfter(m, regexp.MustCompile(`^`+logName+`: key `+echo+` up$`))
	}
}

// quit presses Esc on the start screen, which closes the window at once
// (so the key's release goes nowhere), and waits for the process's end.
func (s *screen) quit() string {
	s.t.Helper()
	s.xdo("keydown", "--window", s.id, "Escape")
	exec.Command("xdotool", "keyup", "--window", s.id, "Escape").Run()
	return s.p.wait()
}

// typeText types text into the window, a character at a time. A key pressed
// after it reaches the window after the characters, and the frame that sees
// it has seen them.
func (s *screen) typeText(text string) {
	s.t.Helper()
	s.xdo("type", "--window", s.id, "--delay", "40", text)
}

func (s *screen) xdo(args ...string) {
	s.t.Helper()
	if out, err := exec.Command("xdotool", args...).CombinedOutput(); err != nil {
		s.t.Fatalf("xdotool %v: %v\n%s", args, err, out)
	}
}

var (
	joinLineLine = regexp.MustCompile(`^` + logName + `: join line (\S+)$`)
	shortLine    = regexp.MustCompile(`^` + logName + `: short code (\S+) `)
	backLine     = regexp.MustCompile(`^` + logName + `: back to the start screen$`)
)

// checkStartScreen asserts a screenshot shows the start screen: the title in
// large light type, four buttons, one of them selected.
func checkStartScreen(t *testing.T, img *image.RGBA) {
	t.Helper()
	title := count(img, image.Rect(400, 110, 880, 240), colText)
	t.Logf("title: %d light pixels", title)
	if title < 3000 {
		t.Errorf("the title shows %d pixels of its colour, want at least 3000 (large type)", title)
	}
	for i := range menuItems {
		b := button(i)
		edge := count(img, image.Rect(b.Min.X-2, b.Min.Y-2, b.Max.X+2, b.Min.Y+2), colAccent, colTextDim)
		if edge < b.Dx()*9/10 {
			t.Errorf("button %d (%s): %d pixels of its edge, want about %d", i, menuItems[i].label, edge, b.Dx())
		}
		label := count(img, b.Inset(4), colText)
		if label < 150 {
			t.Errorf("button %d (%s): %d pixels of text, want its label", i, menuItems[i].label, label)
		}
	}
}

// The start screen renders; keys choose "Host a game", which hosts (the
// join line and short code printed, the hosting panel shown), Esc closes the
// panel, Esc again goes back to the start screen (the host closes and
// reports), and Esc there quits.
func TestStartScreenHostsAndReturns(t *testing.T) {
	needX(t)
	shot := filepath.Join(t.TempDir(), "menu.png")
	menu := start(t, "menu", "-menu", "-addr", "127.0.0.1:0", "-bots", "1", "-mute", "-screenshot", shot)
	s := windowOf(t, menu)
	s.press("Down", "Return")
	full := menu.waitLine(joinLineLine)[1]
	short := menu.waitLine(shortLine)[1]
	if _, err := joincode.Parse(full); err != nil {
		t.Fatalf("the host's join line %q does not parse: %v", full, err)
	}
	if jc, err := joincode.Parse(short); err != nil || jc.Full() {
		t.Fatalf("the host's short code %q: %+v, %v", short, jc, err)
	}
	s.press("Escape", "Escape")
	menu.waitLine(backLine)
	menu.waitLine(regexp.MustCompile(`^` + logName + `: ticks=\d+ .* peers=0 joined=0 left=0 resumes=0$`))
	s.quit()
	img := readPNG(t, shot)
	checkStartScreen(t, img)
	keep(t, shot, "tandem-menu.png")
}

// A join through the start screen: a damaged line typed in is refused there
// with a message; the right one (typed as a paste types it) reaches the
// host's game, named as -name says.
func TestJoinThroughTheStartScreen(t *testing.T) {
	needX(t)
	host := start(t, "host", "-host", "-headless", "-addr", "127.0.0.1:0", "-bots", "1")
	line := host.waitLine(joinLineLine)[1]
	shot := filepath.Join(t.TempDir(), "joined.png")
	menu := start(t, "menu", "-menu", "-name", "Zoë", "-mute", "-ticks", "120", "-screenshot", shot)
	s := windowOf(t, menu)
	s.press("Down", "Down", "Return")
	damaged := []byte(line)
	i := len(damaged) - 5
	damaged[i], damaged[i+1] = damaged[i+1], damaged[i] // two characters swapped
	if damaged[i] == damaged[i+1] {
		damaged[i] = '0' + (damaged[i]-'0'+1)%10
	}
	s.typeText(string(damaged))
	s.press("Return")
	menu.waitLine(regexp.MustCompile(`^` + logName + `: start screen: the code is damaged`))
	s.press("ctrl+BackSpace")
	s.typeText(line)
	s.press("Return")
	host.waitLine(regexp.MustCompile(`^` + logName + `: peer \d+ \(Zoë\) joined`))
	out := menu.wait()
	if !regexp.MustCompile(`(?m)^` + logName + `: joined=true ticks=12[0-9] `).MatchString(out) {
		t.Fatalf("the client joined from the start screen printed:\n%s\nwant joined=true after 120 ticks (a step more when the client catches up)", out)
	}
	keep(t, shot, "tandem-joined.png")
}

// A join the host refuses returns to the start screen with the host's
// reason.
func TestRefusedJoinReturnsToTheStartScreen(t *testing.T) {
	needX(t)
	addr, pin := refusingHost(t, wire.RejectFull, "the match is full (8 players)")
	full, _, err := joincode.Lines(addr, pin)
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), "refused.png")
	menu := start(t, "menu", "-menu", "-mute", "-screenshot", shot)
	s := windowOf(t, menu)
	s.press("Down", "Down", "Return")
	s.typeText(full)
	s.press("Return")
	menu.waitLine(regexp.MustCompile(`^` + logName + `: could not join: .*the match is full \(8 players\)`))
	menu.waitLine(backLine)
	s.press("Escape") // the join page
	s.quit()
	keep(t, shot, "tandem-refused.png")
}

// keep copies a screenshot to the temporary directory for a person to look
// at.
func keep(t *testing.T, path, name string) {
	if b, err := os.ReadFile(path); err == nil {
		dst := filepath.Join(os.TempDir(), name)
		if os.WriteFile(dst, b, 0o644) == nil {
			t.Logf("kept the screenshot as %s", dst)
		}
	}
}
