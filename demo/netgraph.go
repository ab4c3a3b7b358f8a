package main

import (
	"fmt"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/tandem-go/tandem"
)

// graphLen is how many drawn frames the net graph's curves span.
const graphLen = 240

// netGraph is the F3 panel's memory: a few seconds of the figures it plots.
type netGraph struct {
	rtt   [graphLen]float32 // ms
	in    [graphLen]float32 // kbit/s
	out   [graphLen]float32 // kbit/s
	next  int
	peers []tandem.PeerStats
	lines []string
	rates rates // what scope sends: items, entities entering and leaving
}

// rates turns counters into per-second figures, each figure renewed once a
// second.
type rates map[uint64]*rate

type rate struct {
	at   time.Time
	base [4]uint64
	per  [4]float64
}

// of returns the per-second rates of the counters c kept under key.
func (r rates) of(now time.Time, key uint64, c [4]uint64) [4]float64 {
	x := r[key]
	if x == nil {
		x = &rate{at: now, base: c}
		r[key] = x
	}
	if dt := now.Sub(x.at).Seconds(); dt >= 1 {
		for i := range c {
			x.per[i] = float64(c[i]-x.base[i]) / dt
		}
		x.at, x.base = now, c
	}
	return x.per
}

// rate returns the per-second rates of counters c, kept under key.
func (n *netGraph) rate(key uint64, c [4]uint64) [4]float64 {
	if n.rates == nil {
		n.rates = rates{}
	}
	return n.rates.of(time.Now(), key, c)
}

func (n *netGraph) sample(rtt time.Duration, in, out float64) {
	n.rtt[n.next] = float32(rtt.Seconds() * 1000)
	n.in[n.next] = float32(in)
	n.out[n.next] = float32(out)
	n.next = (n.next + 1) % graphLen
}

// drawNet draws what the match has to show of the network: a client's join
// progress, and with F3 the net graph.
func (r *renderer) drawNet(screen *ebiten.Image) {
	sc := &r.scene
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
		case st.State == tandem.Reconnecting:
			r.drawReconnecting(screen, st)
		case st.State != tandem.Playing:
			r.drawProgress(screen, st)
		}
		r.graph.sample(st.RTT, st.KbitIn, st.KbitOut)
		if r.netGraph {
			cs := st.Corrections
			on := "on"
			if !sc.interpOn {
				on = "OFF"
			}
			r.graph.lines = append(r.graph.lines[:0],
				fmt.Sprintf("rtt %3.0f ms   loss %4.1f%%", st.RTT.Seconds()*1000, st.Loss*100),
				fmt.Sprintf("in %5.1f kbit/s   out %5.1f kbit/s", st.KbitIn, st.KbitOut),
				fmt.Sprintf("corrections %d/s, largest %.1f   mean %.1f max %.1f", cs.LastSecond, cs.LastSecondMax, cs.Mean, cs.Max),
				fmt.Sprintf("render delay %3.0f ms   lead %4.1f frames (aim %.1f)", st.RenderDelay.Seconds()*1000, st.Lead, st.LeadTarget),
				fmt.Sprintf("interpolation %s (F2)   %d entities   sim held %.1f ms, draw %.1f ms", on, st.Entities, st.Steps.Seconds()*1000, st.Views.Seconds()*1000),
				fmt.Sprintf("resumes %d", st.Resumes),
			)
			rs := st.Replication
			rt := r.graph.rate(0, [4]uint64{rs.Updates, rs.Spawns, rs.Despawns})
			r.graph.lines = append(r.graph.lines,
				fmt.Sprintf("scope: %d held   updates %.0f/s   in %.0f/s   out %.0f/s", st.Entities, rt[0], rt[1], rt[2]))
			r.drawGraph(screen, "NET  client")
		}
	case sc.host:
		if !r.netGraph {
			return
		}
		r.graph.peers = append(r.graph.peers[:0], sc.peers...)
		var rtt time.Duration
		var in, out float64
		r.graph.lines = r.graph.lines[:0]
		resumes := 0
		for _, p := range r.graph.peers {
			rtt = max(rtt, p.RTT)
			in += p.KbitIn
			out += p.KbitOut
			resumes += p.Resumes
			r.graph.lines = append(r.graph.lines, fmt.Sprintf("peer %d: rtt %3.0f ms  loss %4.1f%%  in %4.1f out %5.1f kbit/s  inputs %+d  resumes %d",
				p.Peer, p.RTT.Seconds()*1000, p.Loss*100, p.KbitIn, p.KbitOut, p.Buffered, p.Resumes))
			rs := p.Replication
			rt := r.graph.rate(uint64(p.Peer), [4]uint64{rs.Items, rs.Entered, rs.Left, rs.JoinEntities})
			r.graph.lines = append(r.graph.lines, fmt.Sprintf("  scope sends %.0f items/s   in %.0f/s   out %.0f/s   joined with %d",
				rt[0], rt[1], rt[2], rs.JoinEntities))
		}
		if len(r.graph.peers) == 0 {
			r.graph.lines = append(r.graph.lines, "waiting for players to join")
		}
		r.graph.sample(rtt, in, out)
		r.drawGraph(screen, fmt.Sprintf("NET  host, %d peers, %d resumes", len(r.graph.peers), resumes))
	}
}

// drawGraph draws the net graph panel, as wide as its longest line (up to
// the screen's margin): a title, the text lines, and the curves of round
// trip (white, against its own peak in ms, named at the left) and kbit/s in
// (blue) and out (orange, against their peak, named at the right).
func (r *renderer) drawGraph(screen *ebiten.Image, title string) {
	const x, y, lh = 76, 84, 15
	w := float32(470)
	for _, l := range r.graph.lines {
		w = max(w, float32(r.text.width(l, styleMono))+16)
	}
	w = min(w, screenW-2*x) // a longer line is cut at the screen's margin
	gh := float32(44)
	h := float32(26 + lh*len(r.graph.lines) + 8 + int(gh) + 8)
	vector.FillRect(screen, x, y, w, h, colPanel, false)
	r.text.draw(screen, title, x+8, y+5, styleHead, colText, alignLeft)
	for i, l := range r.graph.lines {
		r.text.draw(screen, r.text.cut(l, styleMono, float64(w-16)), x+8, float32(y+24+i*lh), styleMono, colTextDim, alignLeft)
	}
	top := float32(y+24+len(r.graph.lines)*lh) + 8
	g := &r.graph
	curve := func(vals *[graphLen]float32, scale float32, c [4]uint8) {
		col := withAlpha(rgb(c), c[3])
		for i := 1; i < graphLen; i++ {
			a := vals[(g.next+i-1)%graphLen]
			b := vals[(g.next+i)%graphLen]
			x0 := float32(x+8) + float32(i-1)*(w-16)/graphLen
			x1 := float32(x+8) + float32(i)*(w-16)/graphLen
			vector.StrokeLine(screen, x0, top+gh-min(a*scale, gh), x1, top+gh-min(b*scale, gh), 1.5, col, true)
		}
	}
	rttPeak, kbitPeak := float32(1), float32(1)
	for i := range graphLen {
		rttPeak = max(rttPeak, g.rtt[i])
		kbitPeak = max(kbitPeak, g.in[i], g.out[i])
	}
	vector.StrokeLine(screen, x+8, top+gh, x+w-8, top+gh, 1, colTextDim, false)
	curve(&g.in, gh/kbitPeak, [4]uint8{0x3d, 0x9b, 0xff, 0xe0})
	curve(&g.out, gh/kbitPeak, [4]uint8{0xff, 0x8c, 0x1a, 0xe0})
	curve(&g.rtt, gh/rttPeak, [4]uint8{0xe8, 0xec, 0xf2, 0xff})
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
