package main

import (
	"fmt"
	"image/color"
	"strconv"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/tandem-go/tandem/demo/game"
)

var (
	colText    = color.RGBA{0xe8, 0xec, 0xf2, 0xff}
	colTextDim = color.RGBA{0x9a, 0xa3, 0xb3, 0xff}
	colWarn    = color.RGBA{0xff, 0xc0, 0x4a, 0xff}
	colPanel   = color.RGBA{0x0b, 0x0d, 0x12, 0xd8} // premultiplied
	colAccent  = color.RGBA{0x4d, 0xe0, 0x8a, 0xff}
)

// goalFlash is how long, in frames, "GOAL" shows after a goal.
const goalFlash = 100

// messageTime is how long a message (hud.say) stays on screen.
const messageTime = 3 * time.Second

// hud is what the HUD shows besides the match itself: a line saying what this
// machine is doing (alone, hosting with the join code, joined), messages that
// fade (a goal's scorer, "sound off"), and at most one overlay, a panel in
// the middle of the screen (the hosting invitation, a reconnection under
// way). The window and the match set them; the renderer draws them.
type hud struct {
	status   string // under the title: what this machine is doing
	messages []message
	overlay  *overlay
	scores   bool   // Tab is held: the scoreboard shows
	sound    string // the sound's status, "" when it plays
}

// message is a line shown for messageTime from at.
type message struct {
	text string
	col  color.RGBA
	at   time.Time
}

// overlay is a panel over the middle of the screen: a title, lines, and a
// hint of the key that closes it.
type overlay struct {
	title string
	big   string // a line in large type under the title ("" for none)
	lines []string
	hint  string
}

// say shows text for a few seconds, below the ones already showing.
func (h *hud) say(text string, col color.RGBA) {
	if len(h.messages) >= 4 {
		h.messages = h.messages[1:]
	}
	h.messages = append(h.messages, message{text, col, time.Now()})
}

// drawHUD draws the score board, the controls and the rates over the top
// band of the screen, the names, the goal banner, the messages, the
// scoreboard and the overlay.
func (r *renderer) drawHUD(screen *ebiten.Image) {
	s := r.scene.score
	const cx = screenW / 2
	// Score: seven-segment digits in the team colours either side of a colon.
	left, right := strconv.Itoa(s.Left), strconv.Itoa(s.Right)
	const dh, dw, gap = 36, 20, 8
	x := float32(cx - 22 - len(left)*(dw+gap))
	for _, d := range left {
		drawDigit(screen, x, 14, dw, dh, int(d-'0'), game.TeamColors[game.Left])
		x += dw + gap
	}
	vector.FillCircle(screen, cx, 24, 3.5, colText, true)
	vector.FillCircle(screen, cx, 40, 3.5, colText, true)
	x = cx + 22
	for _, d := range right {
		drawDigit(screen, x, 14, dw, dh, int(d-'0'), game.TeamColors[game.Right])
		x += dw + gap
	}

	t := r.text
	t.draw(screen, banner, 60, 6, styleTitle, colText, alignLeft)
	status := r.hud.status
	if status == "" {
		status = "push the ball into the other goal"
	}
	t.draw(screen, t.cut(status, styleSmall, cx-100-60), 61, 46, styleSmall, colTextDim, alignLeft)
	// The keys, right of the score (x is where its digits end): spaced out
	// when they fit there, else closer together, else cut.
	room := float64(screenW-60) - float64(x) - 24
	keys := "WASD/arrows move  ·  Space dash  ·  " + commandHelp(false, "  ·  ") + "  ·  Tab scores  ·  M sound  ·  F3 net  ·  Esc " + r.escape
	if t.width(keys, styleSmall) > room {
		keys = "WASD move · Space dash · " + commandHelp(false, " · ") + " · Tab scores · M sound · F3 net · Esc " + r.escape
	}
	t.draw(screen, t.cut(keys, styleSmall, room), screenW-60, 8, styleSmall, colTextDim, alignRight)
	t.draw(screen, fmt.Sprintf("sim %d Hz  ·  draw %.0f fps  ·  frame %d", int(1/r.cfg.Step.Seconds()+0.5), ebiten.ActualFPS(), r.scene.frame),
		screenW-60, 27, styleSmall, colTextDim, alignRight)
	warn := r.hud.sound
	if !r.scene.interpOn {
		warn = "interpolation off (F2)"
	}
	t.draw(screen, t.cut(warn, styleSmall, cx-100-60), screenW-60, 46, styleSmall, colWarn, alignRight)

	r.drawNet(screen)

	if s.LastGoal != 0 {
		if age := int(r.scene.frame - s.LastGoal); age < goalFlash {
			a := 1 - float32(age)/goalFlash
			c := game.TeamColors[s.LastTeam]
			fc, fy := r.cfg.Field.Center()
			t.drawFaded(screen, "GOAL!", float32(fc), float32(fy-70), styleBanner, c, a, alignCenter)
		}
	}
	r.drawMessages(screen)
	if r.hud.scores {
		r.drawScoreboard(screen)
	}
	if o := r.hud.overlay; o != nil {
		r.drawOverlay(screen, o)
	}
}

// drawMessages draws the messages under the top wall, fading out.
func (r *renderer) drawMessages(screen *ebiten.Image) {
	now := time.Now()
	keep := r.hud.messages[:0]
	y := float32(r.cfg.Field.MinY + 14)
	for _, m := range r.hud.messages {
		age := now.Sub(m.at)
		if age > messageTime {
			continue
		}
		keep = append(keep, m)
		a := float32(min(1, 3*(1-age.Seconds()/messageTime.Seconds())))
		r.text.drawFaded(screen, r.text.cut(m.text, styleBody, 900), screenW/2, y, styleBody, m.col, a, alignCenter)
		y += lineHeight(styleBody)
	}
	r.hud.messages = keep
}

// drawOverlay draws o as a panel in the middle of the screen.
func (r *renderer) drawOverlay(screen *ebiten.Image, o *overlay) {
	t := r.text
	w := float32(max(t.width(o.title, styleMenu), t.width(o.big, styleTitle)))
	for _, l := range o.lines {
		w = max(w, float32(t.width(l, styleBody)))
	}
	w = min(w+64, screenW-80)
	h := 28 + lineHeight(styleMenu) + 12 + float32(len(o.lines))*lineHeight(styleBody) + 16
	if o.hint != "" {
		h += lineHeight(styleSmall) + 8
	}
	if o.big != "" {
		h += lineHeight(styleTitle) + 8
	}
	x, y := (screenW-w)/2, float32(screenH/2)-h/2
	vector.FillRect(screen, x, y, w, h, colPanel, false)
	vector.StrokeRect(screen, x, y, w, h, 1.5, colTextDim, false)
	ty := y + 20
	t.draw(screen, o.title, screenW/2, ty, styleMenu, colText, alignCenter)
	ty += lineHeight(styleMenu) + 12
	if o.big != "" {
		t.draw(screen, o.big, screenW/2, ty, styleTitle, colAccent, alignCenter)
		ty += lineHeight(styleTitle) + 8
	}
	for _, l := range o.lines {
		t.draw(screen, t.cut(l, styleBody, float64(w-32)), screenW/2, ty, styleBody, colText, alignCenter)
		ty += lineHeight(styleBody)
	}
	if o.hint != "" {
		t.draw(screen, o.hint, screenW/2, ty+10, styleSmall, colTextDim, alignCenter)
	}
}

// segments of a seven-segment digit: a b c d e f g, by digit.
var segments = [10]uint8{0x3f, 0x06, 0x5b, 0x4f, 0x66, 0x6d, 0x7d, 0x07, 0x7f, 0x6f}

// drawDigit draws digit d (0..9) as a seven-segment figure w×h at (x, y).
func drawDigit(dst *ebiten.Image, x, y, w, h float32, d int, c color.RGBA) {
	const t = 5 // segment thickness
	m := segments[d]
	hh := h / 2
	seg := func(bit uint8, sx, sy, sw, sh float32) {
		col := c
		if m&(1<<bit) == 0 {
			col = withAlpha(c, 0x18)
		}
		vector.FillRect(dst, sx, sy, sw, sh, col, false)
	}
	seg(0, x+t, y, w-2*t, t)         // a: top
	seg(1, x+w-t, y+t, t, hh-t-1)    // b: top right
	seg(2, x+w-t, y+hh+1, t, hh-t-1) // c: bottom right
	seg(3, x+t, y+h-t, w-2*t, t)     // d: bottom
	seg(4, x, y+hh+1, t, hh-t-1)     // e: bottom left
	seg(5, x, y+t, t, hh-t-1)        // f: top left
	seg(6, x+t, y+hh-t/2, w-2*t, t)  // g: middle
}
