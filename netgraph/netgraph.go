// Package netgraph keeps what a game's net graph shows of a session: lines
// of text (round trip, loss, traffic, corrections, lead, what the interest
// scope sends and removes) and three curves (round trip and traffic in and
// out), from the figures package tandem gives: a client's NetStats
// (Client.NetStats from any goroutine, Client.Stats inside Do or View) and
// a host's peers (Host.AppendPeerStats, inside Do or View).
//
// Where it sits: the game's window calls Graph.Client or Graph.Host once a
// drawn frame with the session's figures, then draws Title, Lines and the
// Series however it draws (the demo's netgraph.go, with Ebiten). Nothing
// here draws, so a game on any renderer, or a headless tool printing the
// lines, shares it.
package netgraph

import (
	"fmt"
	"time"

	"github.com/tandem-go/tandem"
)

// Samples is how many frames a Series spans.
const Samples = 240

// Series is a curve's last Samples values, one a drawn frame.
type Series struct {
	v    [Samples]float32
	next int
}

// Add appends v, dropping the oldest value.
func (s *Series) Add(v float32) {
	s.v[s.next] = v
	s.next = (s.next + 1) % Samples
}

// At returns the i-th value, oldest first (0 ≤ i < Samples); a frame not
// yet sampled is 0.
func (s *Series) At(i int) float32 { return s.v[(s.next+i)%Samples] }

// Peak returns the largest value held, at least 1 (a scale for drawing).
func (s *Series) Peak() float32 {
	p := float32(1)
	for _, v := range s.v {
		p = max(p, v)
	}
	return p
}

// Graph is one session's net graph. The zero Graph is ready; Client or
// Host renews it. It belongs to the goroutine that draws.
type Graph struct {
	// Shown says whether Title and Lines are wanted: when false, Client
	// and Host only sample the curves (so they are whole when shown) and
	// build no text.
	Shown bool
	// Title names the session: "client", or "host, 2 peers, 1 resume".
	Title string
	// Lines are the figures, one line of text each.
	Lines []string
	// RTT is the round trip, ms (a host's: its slowest peer's).
	RTT Series
	// In and Out are the traffic, kbit/s (a host's: all its peers').
	In, Out Series

	rates map[uint64]*rate
	round uint64 // renewals, to let go of the rates of peers gone
}

// rate turns counters into per-second figures, renewed once a second.
type rate struct {
	round uint64 // the renewal that last read it
	at    time.Time
	base  [3]uint64
	per   [3]float64
}

// perSecond returns the per-second rates of the counters c kept under key,
// as of the last whole second before now.
func (g *Graph) perSecond(now time.Time, key uint64, c [3]uint64) [3]float64 {
	if g.rates == nil {
		g.rates = map[uint64]*rate{}
	}
	x := g.rates[key]
	if x == nil {
		x = &rate{at: now, base: c}
		g.rates[key] = x
	}
	x.round = g.round
	for i := range c {
		if c[i] < x.base[i] {
			// The counters began again (a peer resumed on a new
			// connection, an id used again): count from here.
			x.at, x.base = now, c
			return x.per
		}
	}
	if dt := now.Sub(x.at).Seconds(); dt >= 1 {
		for i := range c {
			x.per[i] = float64(c[i]-x.base[i]) / dt
		}
		x.at, x.base = now, c
	}
	return x.per
}

// Client renews the graph from a client's figures (Client.NetStats) at now;
// a line says BUDGET FULL while the host holds items back for the client's
// budget (NetStats.Backlog), and a last one appears once the client held its
// own entities while the host left it unanswered (predict's HoldAfter), and
// says so while it does.
func (g *Graph) Client(now time.Time, st tandem.NetStats) {
	var rtt float32 // none drawn while the round trip is the connection's guess
	if st.RTTSamples > 0 {
		rtt = float32(st.RTT.Seconds() * 1000)
	}
	g.RTT.Add(rtt)
	g.In.Add(float32(st.KbitIn))
	g.Out.Add(float32(st.KbitOut))
	rs := st.Replication
	rt := g.perSecond(now, 0, [3]uint64{rs.Updates, rs.Spawns, rs.Despawns})
	if !g.Shown {
		return
	}
	cs := st.Corrections
	g.Title = "client"
	g.Lines = append(g.Lines[:0],
		fmt.Sprintf("rtt %s   loss %4.1f%%", rttText(st.RTT, st.RTTSamples), st.Loss*100),
		fmt.Sprintf("in %5.1f kbit/s   out %5.1f kbit/s", st.KbitIn, st.KbitOut),
		fmt.Sprintf("corrections %d/s, largest %.1f   mean %.1f max %.1f", cs.LastSecond, cs.LastSecondMax, cs.Mean, cs.Max),
		fmt.Sprintf("render delay %3.0f ms   lead %4.1f frames (aim %.1f)", st.RenderDelay.Seconds()*1000, st.Lead, st.LeadTarget),
		fmt.Sprintf("%d entities   sim held %.1f ms, draw %.1f ms   resumes %d", st.Entities, st.Steps.Seconds()*1000, st.Views.Seconds()*1000, st.Resumes),
		fmt.Sprintf("scope: %d held   updates %.0f/s   in %.0f/s   out %.0f/s", st.Entities, rt[0], rt[1], rt[2]),
	)
	if st.Backlog > 0 {
		g.Lines = append(g.Lines, fmt.Sprintf("BUDGET FULL: the host holds back %d changes (%d kbit/s for this client)", st.Backlog, st.Budget))
	}
	if h := held(st); h != "" {
		g.Lines = append(g.Lines, h)
	}
}

// backlog says how many changes a peer's full budget held back at its last
// send tick; "" if none.
func backlog(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("   BUDGET FULL: %d held back", n)
}

// held is a line that says the client holds its own entities while the
// host leaves it unanswered (predict's HoldAfter), or how often it did; ""
// if never.
func held(st tandem.NetStats) string {
	ps := st.Predict
	switch {
	case ps.Holding:
		return fmt.Sprintf("PREDICTION HELD: no answer from the host past %.0f ms", st.HoldAfter.Seconds()*1000)
	case ps.Holds > 0:
		return fmt.Sprintf("prediction held: %s, %s", count(int(ps.Holds), "hold", "holds"), count(int(ps.HeldFrames), "frame", "frames"))
	}
	return ""
}

// Host renews the graph from a host's peers (Host.AppendPeerStats, read
// inside Do or View) at now: a line of each peer's link and one of what its
// scope sends.
func (g *Graph) Host(now time.Time, peers []tandem.PeerStats) {
	g.round++
	defer g.forget()
	var rtt time.Duration
	var in, out float64
	resumes := 0
	if g.Shown {
		g.Lines = g.Lines[:0]
	}
	for _, p := range peers {
		if p.RTTSamples > 0 {
			rtt = max(rtt, p.RTT)
		}
		in += p.KbitIn
		out += p.KbitOut
		resumes += p.Resumes
		rs := p.Replication
		rt := g.perSecond(now, uint64(p.Peer), [3]uint64{rs.Items, rs.Entered, rs.Left})
		if g.Shown {
			g.Lines = append(g.Lines,
				fmt.Sprintf("peer %d: rtt %s  loss %4.1f%%  in %4.1f out %5.1f kbit/s  inputs %+d  resumes %d",
					p.Peer, rttText(p.RTT, p.RTTSamples), p.Loss*100, p.KbitIn, p.KbitOut, p.Buffered, p.Resumes),
				fmt.Sprintf("  scope sends %.0f items/s   in %.0f/s   out %.0f/s   join paged %d in %s%s",
					rt[0], rt[1], rt[2], rs.JoinEntities, count(rs.JoinRounds, "round", "rounds"), backlog(rs.Backlog)))
		}
	}
	g.RTT.Add(float32(rtt.Seconds() * 1000)) // of the peers measured
	g.In.Add(float32(in))
	g.Out.Add(float32(out))
	if !g.Shown {
		return
	}
	if len(peers) == 0 {
		g.Lines = append(g.Lines, "waiting for players to join")
	}
	g.Title = "host, " + count(len(peers), "peer", "peers") + ", " + count(resumes, "resume", "resumes")
}

// forget lets go of the rates no peer read in the last renewal.
func (g *Graph) forget() {
	for k, x := range g.rates {
		if x.round != g.round {
			delete(g.rates, k)
		}
	}
}

// count says n things, as "1 peer" or "2 peers".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// rttText is a round trip for a line of the graph: "  – ms" while samples
// is 0 (rtt is the connection's guess, not a measurement).
func rttText(rtt time.Duration, samples uint64) string {
	if samples == 0 {
		return "  – ms"
	}
	return fmt.Sprintf("%3.0f ms", rtt.Seconds()*1000)
}
