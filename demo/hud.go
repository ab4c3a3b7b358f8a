package main

import (
	"fmt"
	"image"
	"image/color"
	"strconv"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/tandem-go/tandem/demo/game"
)

var (
	colText    = color.RGBA{0xe8, 0xec, 0xf2, 0xff}
	colTextDim = color.RGBA{0x7d, 0x87, 0x99, 0xff}
	colWarn    = color.RGBA{0xff, 0xc0, 0x4a, 0xff}
	colPanel   = color.RGBA{0x0b, 0x0d, 0x12, 0xc8} // premultiplied
)

// goalFlash is how long, in frames, "GOAL" shows after a goal.
const goalFlash = 100

// drawHUD draws the score board, the controls and the rates over the top
// band of the screen, and the goal banner.
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

	r.text.draw(screen, "TANDEM", 60, 8, 2, colText, alignLeft)
	r.text.draw(screen, "push the ball into the other goal", 61, 42, 1, colTextDim, alignLeft)
	r.text.draw(screen, "WASD/arrows move   SPACE dash   F2 interpolation   F3 net graph   ESC quit", screenW-60, 14, 1, colTextDim, alignRight)
	r.text.draw(screen, fmt.Sprintf("sim %d Hz  draw %.0f fps  frame %d", int(1/r.cfg.Step.Seconds()+0.5), ebiten.ActualFPS(), r.scene.frame),
		screenW-60, 34, 1, colTextDim, alignRight)

	if !r.scene.interpOn {
		r.text.draw(screen, "interpolation off (F2)", screenW-60, 54, 1, colWarn, alignRight)
	}
	r.drawNet(screen)

	if s.LastGoal != 0 {
		if age := int(r.scene.frame - s.LastGoal); age < goalFlash {
			a := 1 - float32(age)/goalFlash
			c := game.TeamColors[s.LastTeam]
			fc, fy := r.cfg.Field.Center()
			r.text.drawScaled(screen, "GOAL!", float32(fc), float32(fy-48), 6, c, a, alignCenter)
		}
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

type align int

const (
	alignLeft align = iota
	alignCenter
	alignRight
)

// textWriter draws text in Ebiten's debug font, scaled up and coloured, with a
// soft shadow. It renders into one scratch image, reused.
type textWriter struct {
	scratch *ebiten.Image
}

func (t *textWriter) draw(dst *ebiten.Image, s string, x, y float32, scale float64, c color.RGBA, al align) {
	t.drawScaled(dst, s, x, y, scale, c, 1, al)
}

// drawScaled draws s with its top at y, anchored at x by al, each glyph
// 6×16 pixels times scale, in colour c at opacity a.
func (t *textWriter) drawScaled(dst *ebiten.Image, s string, x, y float32, scale float64, c color.RGBA, a float32, al align) {
	const cw, ch = 6, 16
	if t.scratch == nil {
		t.scratch = ebiten.NewImage(cw*128, ch)
	}
	if len(s) > 128 {
		s = s[:128]
	}
	t.scratch.Clear()
	ebitenutil.DebugPrintAt(t.scratch, s, 0, 0)
	src := t.scratch.SubImage(t.scratch.Bounds().Intersect(image.Rect(0, 0, cw*len(s)+1, ch))).(*ebiten.Image)
	w := float64(cw*len(s)) * scale
	ox := float64(x)
	switch al {
	case alignCenter:
		ox -= w / 2
	case alignRight:
		ox -= w
	}
	for pass := range 2 {
		op := &ebiten.DrawImageOptions{}
		op.GeoM.Scale(scale, scale)
		if pass == 0 {
			sh := max(1, scale/2)
			op.GeoM.Translate(ox+sh, float64(y)+sh)
			op.ColorScale.Scale(0, 0, 0, 0.6*a)
		} else {
			op.GeoM.Translate(ox, float64(y))
			op.ColorScale.ScaleWithColor(c)
			op.ColorScale.ScaleAlpha(a)
		}
		dst.DrawImage(src, op)
	}
}
