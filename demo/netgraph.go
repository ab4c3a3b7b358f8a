package main

import (
	"fmt"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/netgraph"
)

// drawNet draws what the match has to show of the network: a client's join
// progress, and with F3 the net graph, whose figures package netgraph keeps.
func (r *renderer) drawNet(screen *ebiten.Image) {
	sc := &r.scene
	r.graph.Shown = r.netGraph
	switch {
	case sc.client:
		st := sc.net
		if r.leaving {
			// This side ended the match and closed its session: the last
			// frame shows the state it ended in, not the close.
			st.State = r.leftAs
		}
		switch played := st.Frames > 0; {
		case st.State == tandem.Closed && played:
			r.text.draw(screen, "the game has ended", screenW/2, float32(r.cfg.Field.MinY)+14, styleBody, colWarn, alignCenter)
		case st.State == tandem.Reconnecting && played:
			r.drawReconnecting(screen, st)
		// Reconnecting before it ever played (its first connection broke
		// before the host let it in): still connecting, as far as the
		// player is concerned.
		case st.State != tandem.Playing:
			r.drawProgress(screen, st)
		}
		r.graph.Client(time.Now(), st)
		if r.netGraph {
			on := "on"
			if !sc.interpOn {
				on = "OFF"
			}
			r.graph.Lines = append(r.graph.Lines, "interpolation "+on+" (F2)")
			r.drawGraph(screen)
		}
	case sc.host:
		if !r.netGraph {
			return
		}
		r.graph.Host(time.Now(), sc.peers)
		r.drawGraph(screen)
	}
}

// drawGraph draws the net graph panel, as wide as its longest line (up to
// the screen's margin): a title, the text lines, and the curves of round
// trip (white, against its own peak in ms, named at the left) and kbit/s in
// (blue) and out (orange, against their peak, named at the right).
func (r *renderer) drawGraph(screen *ebiten.Image) {
	const x, y, lh = 76, 84, 15
	g := &r.graph
	w := float32(470)
	for _, l := range g.Lines {
		w = max(w, float32(r.text.width(l, styleMono))+16)
	}
	w = min(w, screenW-2*x) // a longer line is cut at the screen's margin
	gh := float32(44)
	h := float32(26 + lh*len(g.Lines) + 8 + int(gh) + 8)
	vector.FillRect(screen, x, y, w, h, colPanel, false)
	r.text.draw(screen, "NET  "+g.Title, x+8, y+5, styleHead, colText, alignLeft)
	for i, l := range g.Lines {
		r.text.draw(screen, r.text.cut(l, styleMono, float64(w-16)), x+8, float32(y+24+i*lh), styleMono, colTextDim, alignLeft)
	}
	top := float32(y+24+len(g.Lines)*lh) + 8
	curve := func(vals *netgraph.Series, scale float32, c [4]uint8) {
		col := withAlpha(rgb(c), c[3])
		for i := 1; i < netgraph.Samples; i++ {
			a, b := vals.At(i-1), vals.At(i)
			x0 := float32(x+8) + float32(i-1)*(w-16)/netgraph.Samples
			x1 := float32(x+8) + float32(i)*(w-16)/netgraph.Samples
			vector.StrokeLine(screen, x0, top+gh-min(a*scale, gh), x1, top+gh-min(b*scale, gh), 1.5, col, true)
		}
	}
	rttPeak, kbitPeak := g.RTT.Peak(), max(g.In.Peak(), g.Out.Peak())
	vector.StrokeLine(screen, x+8, top+gh, x+w-8, top+gh, 1, colTextDim, false)
	curve(&g.In, gh/kbitPeak, [4]uint8{0x3d, 0x9b, 0xff, 0xe0})
	curve(&g.Out, gh/kbitPeak, [4]uint8{0xff, 0x8c, 0x1a, 0xe0})
	curve(&g.RTT, gh/rttPeak, [4]uint8{0xe8, 0xec, 0xf2, 0xff})
	r.text.draw(screen, fmt.Sprintf("rtt peak %.0f ms", rttPeak), x+8, top-2, styleMono, colTextDim, alignLeft)
	r.text.draw(screen, fmt.Sprintf("kbit/s peak %.0f", kbitPeak), x+w-8, top-2, styleMono, colTextDim, alignRight)
}

// drawReconnecting says, in the HUD's overlay over the world held still,
// that the client is reconnecting and how long the host keeps its player.
func (r *renderer) drawReconnecting(screen *ebiten.Image, st tandem.NetStats) {
	r.drawOverlay(screen, &overlay{
		title: fmt.Sprintf("reconnecting… (%d s left)", int(st.ReconnectLeft.Seconds()+0.5)),
		lines: []string{"The connection to the host broke; your player waits for you there."},
	})
}

// drawProgress draws the join's progress bar in the middle of the field.
func (r *renderer) drawProgress(screen *ebiten.Image, st tandem.NetStats) {
	fc, fy := r.cfg.Field.Center()
	const w, h = 420, 14
	x, y := float32(fc)-w/2, float32(fy)+40
	vector.FillRect(screen, x-12, y-44, w+24, h+64, colPanel, false)
	label := "connecting to the host"
	frac := float32(0)
	if st.State == tandem.Joining {
		label = "joining: the host's world is arriving"
		if st.Total > 0 {
			frac = float32(st.Received) / float32(st.Total)
			label = fmt.Sprintf("joining: %d of %d entities", st.Received, st.Total)
		}
	}
	if st.State == tandem.Closed {
		label = "the connection closed"
	}
	r.text.draw(screen, label, float32(fc), y-34, styleBody, colText, alignCenter)
	vector.StrokeRect(screen, x, y, w, h, 2, colTextDim, false)
	vector.FillRect(screen, x+2, y+2, (w-4)*min(frac, 1), h-4, rgb([4]uint8{0x4d, 0xe0, 0x8a, 0xff}), false)
}
