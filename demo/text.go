package main

import (
	"bytes"
	"image/color"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/text/v2"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/text/unicode/norm"

	"github.com/tandem-go/tandem/assets"
)

// style is a kind of text: a typeface and a size.
type style uint8

const (
	styleSmall  style = iota // hints and figures on the HUD
	styleBody                // messages, the join progress, menu help
	styleName                // a player's name by their disc
	styleTable               // the scoreboard's rows
	styleMono                // the net graph's figures
	styleHead                // panel titles
	styleMenu                // menu items
	styleTitle               // the HUD's and the start screen's title
	styleBanner              // GOAL!
	styleCount
)

// typeface is one of the embedded fonts.
type typeface uint8

const (
	regular typeface = iota
	bold
	mono
)

// styles are each style's typeface and size, pixels.
var styles = [styleCount]struct {
	face typeface
	size float64
}{
	styleSmall:  {regular, 13},
	styleBody:   {regular, 17},
	styleName:   {bold, 13},
	styleTable:  {regular, 16},
	styleMono:   {mono, 12},
	styleHead:   {bold, 15},
	styleMenu:   {bold, 24},
	styleTitle:  {bold, 30},
	styleBanner: {bold, 96},
}

type align int

const (
	alignLeft align = iota
	alignCenter
	alignRight
)

// missing is what is drawn for a character none of the fonts has (a script
// the Go fonts do not cover, an emoji): a white square, as text systems do.
const missing = '□'

// textWriter draws text in the embedded Go fonts (package assets) through
// Ebiten's text/v2, with a soft shadow. Characters the fonts lack are drawn
// as a square (marks on them are left out), so any printable UTF-8 draws.
type textWriter struct {
	sources [3]*text.GoTextFaceSource
	faces   [styleCount]*text.GoTextFace
	glyphs  *sfnt.Font // the regular face's glyph table, to find missing characters
	buf     sfnt.Buffer
	has     map[rune]bool
	clean   map[string]string // strings checked, with their replacements
	err     error             // why a font did not load (none of them draws then)
}

// newTextWriter loads the embedded fonts.
func newTextWriter() *textWriter {
	t := &textWriter{has: map[rune]bool{}, clean: map[string]string{}}
	for i, b := range [][]byte{assets.GoRegular, assets.GoBold, assets.GoMono} {
		s, err := text.NewGoTextFaceSource(bytes.NewReader(b))
		if err != nil {
			t.err = err
			return t
		}
		t.sources[i] = s
	}
	f, err := sfnt.Parse(assets.GoRegular)
	if err != nil {
		t.err = err
		return t
	}
	t.glyphs = f
	for i, st := range styles {
		t.faces[i] = &text.GoTextFace{Source: t.sources[st.face], Size: st.size}
	}
	return t
}

// drawable returns s with every character the fonts lack replaced by a
// square, and the combining marks on such characters left out.
func (t *textWriter) drawable(s string) string {
	if c, ok := t.clean[s]; ok {
		return c
	}
	orig := s
	s = norm.NFC.String(s) // a letter and its accent as one character, where the fonts have it
	var b strings.Builder
	lost := false // the last base character was replaced
	for _, r := range s {
		ok, seen := t.has[r]
		if !seen {
			g, err := t.glyphs.GlyphIndex(&t.buf, r)
			ok = err == nil && g != 0
			t.has[r] = ok
		}
		mark := unicode.In(r, unicode.Mn, unicode.Me)
		switch {
		case ok && !(mark && lost):
			b.WriteRune(r)
			lost = lost && mark
		case mark:
			// a mark on a replaced character, or one the fonts lack
		default:
			b.WriteRune(missing)
			lost = true
		}
	}
	if len(t.clean) > 512 {
		clear(t.clean)
	}
	c := b.String()
	t.clean[orig] = c
	return c
}

// width returns how wide s is drawn in style st, pixels.
func (t *textWriter) width(s string, st style) float64 {
	if t.err != nil {
		return 0
	}
	w, _ := text.Measure(t.drawable(s), t.faces[st], 0)
	return w
}

// cut returns s shortened to at most w pixels in style st, with an
// ellipsis where it was cut (between whole characters and their marks).
func (t *textWriter) cut(s string, st style, w float64) string {
	if t.err != nil || t.width(s, st) <= w {
		return s
	}
	const ellipsis = "…"
	// The longest prefix that fits with the ellipsis: at most 32 bytes of
	// a name, so a linear search is cheap.
	best := ""
	for i := range s {
		if i == 0 {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(s[i:]); unicode.In(r, unicode.Mn, unicode.Me) {
			continue // never between a character and its marks
		}
		if t.width(s[:i]+ellipsis, st) > w {
			break
		}
		best = s[:i]
	}
	return strings.TrimRight(best, " ") + ellipsis
}

// draw draws s in style st with its top at y, anchored at x by al, in colour
// c.
func (t *textWriter) draw(dst *ebiten.Image, s string, x, y float32, st style, c color.RGBA, al align) {
	t.drawFaded(dst, s, x, y, st, c, 1, al)
}

// drawFaded is draw at opacity a (0..1).
func (t *textWriter) drawFaded(dst *ebiten.Image, s string, x, y float32, st style, c color.RGBA, a float32, al align) {
	if t.err != nil || s == "" {
		return
	}
	s = t.drawable(s)
	face := t.faces[st]
	op := &text.DrawOptions{}
	switch al {
	case alignCenter:
		op.PrimaryAlign = text.AlignCenter
	case alignRight:
		op.PrimaryAlign = text.AlignEnd
	}
	sh := float64(max(1, styles[st].size/14))
	op.GeoM.Translate(float64(x)+sh, float64(y)+sh)
	op.ColorScale.Scale(0, 0, 0, 0.6*a)
	text.Draw(dst, s, face, op)
	op.GeoM.Reset()
	op.GeoM.Translate(float64(x), float64(y))
	op.ColorScale.Reset()
	op.ColorScale.ScaleWithColor(c)
	op.ColorScale.ScaleAlpha(a)
	text.Draw(dst, s, face, op)
}

// lineHeight returns the height of a line of style st, pixels.
func lineHeight(st style) float32 { return float32(styles[st].size * 1.3) }
