package main

import (
	"context"
	"image"
	"os/exec"
	"runtime"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/tandem-go/tandem/launch"
)

// choice is what the start screen asks the window to do.
type choice int

const (
	chooseNothing choice = iota
	chooseAlone          // play alone against bots
	chooseHost           // host a game on -addr
	chooseJoin           // join the game of menu.line
	chooseQuit
)

// The start screen's items, top to bottom.
var menuItems = []struct {
	label, help string
	does        choice
}{
	{"Play alone", "you and the bots", chooseAlone},
	{"Host a game", "friends join with the code it shows", chooseHost},
	{"Join a game", "type or paste the host's join line", chooseJoin},
	{"Quit", "", chooseQuit},
}

// maxLine bounds what the join field holds, bytes.
const maxLine = 200

// menu is the start screen: play alone, host, join (a page with a field for
// the join line), quit; by keyboard (arrows, Enter, Esc, typing, Ctrl+V) or
// mouse. It remembers why the last game could not start or ended, to show
// it.
type menu struct {
	joining bool   // the join page is open
	sel     int    // the selected item of the main page
	line    string // the join field
	problem string // why the last attempt failed, in the host's words
	busy    string // an attempt under way ("connecting to ..."), input ignored
	name    string // the player's name, as -name gave it
	chars   []rune
	keys    []ebiten.Key
	cursor  image.Point // where the mouse was: hovering selects only when it moves
	seen    bool        // cursor is set
}

// button returns the screen rectangle of main-page item i.
func button(i int) image.Rectangle {
	const w, h, top, gap = 380, 58, 300, 14
	x := (screenW - w) / 2
	y := top + i*(h+gap)
	return image.Rect(x, y, x+w, y+h)
}

// joinField is the join page's text field.
var joinField = image.Rect(180, 330, screenW-180, 384)

// update reads this frame's keys and mouse and returns what to do.
func (m *menu) update() choice {
	m.keys = inpututil.AppendJustPressedKeys(m.keys[:0])
	m.chars = ebiten.AppendInputChars(m.chars[:0])
	if m.busy != "" {
		return chooseNothing
	}
	click := inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonLeft)
	mx, my := ebiten.CursorPosition()
	at := image.Pt(mx, my)
	if m.joining {
		return m.updateJoin(click, at)
	}
	moved := m.seen && at != m.cursor // where the cursor rests at the start selects nothing
	m.cursor, m.seen = at, true
	for i := range menuItems {
		if at.In(button(i)) && (moved || click) {
			m.sel = i
			if click {
				return m.pick()
			}
		}
	}
	for _, k := range m.keys {
		switch k {
		case ebiten.KeyArrowDown, ebiten.KeyS, ebiten.KeyTab:
			m.sel = (m.sel + 1) % len(menuItems)
		case ebiten.KeyArrowUp, ebiten.KeyW:
			m.sel = (m.sel + len(menuItems) - 1) % len(menuItems)
		case ebiten.KeyEnter, ebiten.KeyNumpadEnter, ebiten.KeySpace:
			return m.pick()
		case ebiten.KeyEscape:
			return chooseQuit
		}
	}
	return chooseNothing
}

// pick acts on the selected item.
func (m *menu) pick() choice {
	c := menuItems[m.sel].does
	if c == chooseJoin {
		m.joining, m.problem = true, ""
		return chooseNothing
	}
	m.problem = ""
	return c
}

// updateJoin is update on the join page.
func (m *menu) updateJoin(click bool, at image.Point) choice {
	ctrl := ebiten.IsKeyPressed(ebiten.KeyControl) || ebiten.IsKeyPressed(ebiten.KeyMeta)
	// The frame's characters first: typed before the Enter or Backspace the
	// same frame saw, most likely.
	if !ctrl {
		m.add(string(m.chars))
	}
	for _, k := range m.keys {
		switch {
		case k == ebiten.KeyEscape:
			m.joining, m.problem = false, ""
			return chooseNothing
		case k == ebiten.KeyEnter || k == ebiten.KeyNumpadEnter:
			return m.submit()
		case k == ebiten.KeyBackspace && ctrl:
			m.line = ""
		case k == ebiten.KeyBackspace && m.line != "":
			r := []rune(m.line)
			m.line = string(r[:len(r)-1])
		case k == ebiten.KeyV && ctrl:
			if s, err := paste(); err != nil {
				m.problem = err.Error()
			} else {
				m.add(s)
			}
		}
	}
	if click && !at.In(joinField) {
		if at.Y > joinField.Max.Y+120 {
			m.joining = false
		}
	}
	return chooseNothing
}

// add appends typed or pasted text to the join field: printable characters,
// line breaks and tabs as spaces.
func (m *menu) add(s string) {
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			r = ' '
		case !unicode.IsPrint(r):
			continue
		}
		if len(m.line)+len(string(r)) > maxLine {
			return
		}
		m.line += string(r)
		m.problem = ""
	}
}

// submit checks the join field: a damaged line is refused here, with what
// is wrong.
func (m *menu) submit() choice {
	if _, err := launch.ParseJoin(m.line); err != nil {
		m.problem = err.Error()
		return chooseNothing
	}
	m.problem = ""
	return chooseJoin
}

// pasteTools are the clipboard readers tried for Ctrl+V, by system.
var pasteTools = map[string][][]string{
	"darwin":  {{"pbpaste"}},
	"windows": {{"powershell", "-NoProfile", "-Command", "Get-Clipboard"}},
	"linux":   {{"wl-paste", "--no-newline"}, {"xclip", "-selection", "clipboard", "-o"}, {"xsel", "--clipboard", "--output"}},
}

// paste reads the clipboard with the system's tool (Ebiten has no clipboard).
func paste() (string, error) {
	tools := pasteTools[runtime.GOOS]
	if tools == nil {
		tools = pasteTools["linux"]
	}
	for _, t := range tools {
		if _, err := exec.LookPath(t[0]); err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		out, err := exec.CommandContext(ctx, t[0], t[1:]...).Output()
		cancel()
		if err == nil {
			return strings.TrimSpace(string(out)), nil
		}
	}
	return "", errPaste
}

type pasteError struct{}

func (pasteError) Error() string {
	return "cannot read the clipboard here (no wl-paste, xclip or xsel): type the line, or paste it where your system types it"
}

var errPaste error = pasteError{}

// draw draws the start screen.
func (m *menu) draw(screen *ebiten.Image, t *textWriter) {
	screen.Fill(colBackground)
	for i := range 16 {
		vector.FillRect(screen, float32(i*screenW/16), 0, screenW/16+1, screenH, colFloor[i%2], false)
	}
	vector.FillRect(screen, 0, 0, screenW, screenH, withAlpha(colBackground, 0xb0), false)
	t.draw(screen, banner, screenW/2, 120, styleBanner, colText, alignCenter)
	t.draw(screen, "push the ball into the other goal, alone or with friends", screenW/2, 238, styleBody, colTextDim, alignCenter)
	if m.joining {
		m.drawJoin(screen, t)
	} else {
		for i, it := range menuItems {
			b := button(i)
			x, y, w, h := float32(b.Min.X), float32(b.Min.Y), float32(b.Dx()), float32(b.Dy())
			vector.FillRect(screen, x, y, w, h, colPanel, false)
			edge, width := colTextDim, float32(1.5)
			if i == m.sel {
				edge, width = colAccent, 3
			}
			vector.StrokeRect(screen, x, y, w, h, width, edge, false)
			ty := y + 8
			if it.help == "" {
				ty = y + h/2 - lineHeight(styleMenu)/2
			}
			t.draw(screen, it.label, x+w/2, ty, styleMenu, colText, alignCenter)
			if it.help != "" {
				t.draw(screen, it.help, x+w/2, y+h-20, styleSmall, colTextDim, alignCenter)
			}
		}
		t.draw(screen, "↑ ↓ choose  ·  Enter start  ·  Esc quit  ·  or click", screenW/2, screenH-72, styleSmall, colTextDim, alignCenter)
	}
	t.draw(screen, t.cut("playing as "+m.name+" (change it with -name)", styleSmall, 600), screenW/2, screenH-50, styleSmall, colTextDim, alignCenter)
	if m.busy != "" {
		t.draw(screen, m.busy, screenW/2, screenH-110, styleBody, colText, alignCenter)
	}
	if m.problem != "" {
		t.draw(screen, t.cut(m.problem, styleBody, screenW-120), screenW/2, screenH-110, styleBody, colWarn, alignCenter)
	}
}

// drawJoin draws the join page.
func (m *menu) drawJoin(screen *ebiten.Image, t *textWriter) {
	t.draw(screen, "Join a game", screenW/2, 280, styleMenu, colText, alignCenter)
	f := joinField
	vector.FillRect(screen, float32(f.Min.X), float32(f.Min.Y), float32(f.Dx()), float32(f.Dy()), colPanel, false)
	vector.StrokeRect(screen, float32(f.Min.X), float32(f.Min.Y), float32(f.Dx()), float32(f.Dy()), 2, colAccent, false)
	line := m.line
	// Show the end of a long line, where the caret is.
	for line != "" && t.width(line, styleBody) > float64(f.Dx()-40) {
		_, size := utf8.DecodeRuneInString(line)
		line = line[size:]
	}
	caret := ""
	if time.Now().UnixMilli()/500%2 == 0 {
		caret = "|"
	}
	t.draw(screen, line+caret, float32(f.Min.X+16), float32(f.Min.Y+15), styleBody, colText, alignLeft)
	for i, l := range []string{
		"Paste the join line the host shows (Ctrl+V), or type the address and code it reads out,",
		"like 192.168.1.20:4242/C63K-2XDP-JE3M. The code proves it is your friend's game.",
		"Enter join  ·  Esc back",
	} {
		t.draw(screen, l, screenW/2, float32(f.Max.Y+24+i*24), styleBody, colTextDim, alignCenter)
	}
}
