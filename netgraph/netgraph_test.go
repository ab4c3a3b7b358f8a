package netgraph

import (
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/net/replicate"
)

// A series holds the last Samples values, oldest first, and its peak.
func TestSeries(t *testing.T) {
	var s Series
	if s.Peak() != 1 || s.At(0) != 0 {
		t.Fatalf("an empty series: peak %v, first %v; want 1 and 0", s.Peak(), s.At(0))
	}
	for i := range Samples + 10 {
		s.Add(float32(i))
	}
	if s.At(0) != 10 || s.At(Samples-1) != Samples+9 || s.Peak() != Samples+9 {
		t.Fatalf("after %d values: first %v, last %v, peak %v", Samples+10, s.At(0), s.At(Samples-1), s.Peak())
	}
}

// A client's graph says its link, its corrections and lead, and what its
// scope brings and takes away each second; hidden, it keeps the curves only.
func TestClient(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	// Before the first measurement the round trip is the connection's
	// guess: not drawn, not shown as one.
	guess := tandem.NetStats{RTT: 200 * time.Millisecond}
	var g Graph
	g.Shown = true
	g.Client(start, guess)
	if g.RTT.At(Samples-1) != 0 || !strings.Contains(strings.Join(g.Lines, "\n"), "rtt   – ms") {
		t.Fatalf("a round trip not measured yet: drawn %v, lines %q; want none", g.RTT.At(Samples-1), g.Lines)
	}
	g = Graph{}
	st := tandem.NetStats{RTT: 80 * time.Millisecond, RTTSamples: 3, Loss: 0.05, KbitIn: 120.5, KbitOut: 30, Entities: 900, Lead: 4.5, LeadTarget: 4}
	g.Client(start, st)
	if len(g.Lines) != 0 || g.Title != "" || g.RTT.At(Samples-1) != 80 || g.In.At(Samples-1) != 120.5 {
		t.Fatalf("hidden: lines %q, title %q, last rtt %v, in %v; want no text and the curves sampled", g.Lines, g.Title, g.RTT.At(Samples-1), g.In.At(Samples-1))
	}
	g.Shown = true
	st.Replication = replicate.ClientStats{Updates: 600, Spawns: 40, Despawns: 10}
	g.Client(start.Add(2*time.Second), st)
	text := strings.Join(g.Lines, "\n")
	for _, want := range []string{"rtt  80 ms   loss  5.0%", "in 120.5 kbit/s   out  30.0 kbit/s", "lead  4.5 frames (aim 4.0)", "900 entities", "updates 300/s   in 20/s   out 5/s"} {
		if !strings.Contains(text, want) {
			t.Errorf("the client's lines lack %q:\n%s", want, text)
		}
	}
	if g.Title != "client" {
		t.Errorf("title %q", g.Title)
	}
	if text := strings.Join(g.Lines, "\n"); strings.Contains(strings.ToLower(text), "prediction held") {
		t.Errorf("never held, the lines speak of holds:\n%s", text)
	}
	// Held while the host is silent, then how often it was.
	st.HoldAfter = 250 * time.Millisecond
	st.Predict.Holding, st.Predict.Holds, st.Predict.HeldFrames = true, 1, 12
	g.Client(start.Add(2*time.Second), st)
	if text := strings.Join(g.Lines, "\n"); !strings.Contains(text, "PREDICTION HELD: no answer from the host past 250 ms") {
		t.Errorf("held: the lines do not say so:\n%s", text)
	}
	st.Predict.Holding = false
	g.Client(start.Add(2*time.Second), st)
	if text := strings.Join(g.Lines, "\n"); strings.Contains(text, "PREDICTION HELD") || !strings.Contains(text, "prediction held: 1 hold, 12 frames") {
		t.Errorf("after the hold: the lines should count it, not say it goes on:\n%s", text)
	}
	if strings.Contains(text, "BUDGET") {
		t.Errorf("nothing held back, the lines speak of the budget:\n%s", text)
	}
	// The host's budget for the client is full.
	st.Backlog, st.Budget = 140, 256
	g.Client(start.Add(2*time.Second), st)
	if text := strings.Join(g.Lines, "\n"); !strings.Contains(text, "BUDGET FULL: the host holds back 140 changes (256 kbit/s for this client)") {
		t.Errorf("budget full: the lines do not say so:\n%s", text)
	}
	st.Backlog, st.Budget = 0, 0
	// Within the second the rates stay as they were.
	st.Replication.Updates = 10_000
	g.Client(start.Add(2500*time.Millisecond), st)
	if text := strings.Join(g.Lines, "\n"); !strings.Contains(text, "updates 300/s") {
		t.Errorf("half a second later the rate changed:\n%s", text)
	}
}

// A host's graph has two lines a peer, the slowest peer's round trip and
// the sum of their traffic, and lets go of the rates of peers gone.
func TestHost(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	g := Graph{Shown: true}
	g.Host(start, nil)
	if g.Title != "host, 0 peers, 0 resumes" || len(g.Lines) != 1 || g.Lines[0] != "waiting for players to join" {
		t.Fatalf("no peers: %q %q", g.Title, g.Lines)
	}
	peers := []tandem.PeerStats{
		{Peer: 1, RTT: 40 * time.Millisecond, RTTSamples: 5, KbitIn: 10, KbitOut: 100, Resumes: 1},
		{Peer: 2, RTT: 90 * time.Millisecond, RTTSamples: 5, KbitIn: 12, KbitOut: 110},
		{Peer: 3, RTT: 200 * time.Millisecond}, // just admitted: its round trip is a guess
	}
	g.Host(start, peers)
	peers[0].Replication = replicate.PeerStats{Items: 3000, Entered: 60, Left: 30, JoinEntities: 900, JoinRounds: 2}
	g.Host(start.Add(time.Second), peers)
	if g.Title != "host, 3 peers, 1 resume" || len(g.Lines) != 6 {
		t.Fatalf("three peers: %q, %d lines %q", g.Title, len(g.Lines), g.Lines)
	}
	if !strings.HasPrefix(g.Lines[4], "peer 3: rtt   – ms") {
		t.Errorf("peer 3, not measured yet: %q", g.Lines[4])
	}
	if g.RTT.At(Samples-1) != 90 {
		t.Errorf("rtt curve %v with a peer not measured yet: want the slowest measured peer's 90 ms, not its guess", g.RTT.At(Samples-1))
	}
	peers = peers[:2]
	g.Host(start.Add(time.Second), peers)
	if !strings.HasPrefix(g.Lines[0], "peer 1: rtt  40 ms") || !strings.Contains(g.Lines[1], "scope sends 3000 items/s   in 60/s   out 30/s   join paged 900 in 2 rounds") {
		t.Errorf("peer 1's lines: %q", g.Lines[:2])
	}
	if g.RTT.At(Samples-1) != 90 || g.In.At(Samples-1) != 22 || g.Out.At(Samples-1) != 210 {
		t.Errorf("curves: rtt %v in %v out %v; want the slowest peer's 90 ms (of those measured) and 22 and 210 kbit/s", g.RTT.At(Samples-1), g.In.At(Samples-1), g.Out.At(Samples-1))
	}
	if strings.Contains(strings.Join(g.Lines, "\n"), "BUDGET") {
		t.Errorf("nothing held back, the lines speak of the budget: %q", g.Lines)
	}
	peers[1].Replication.Backlog = 75
	g.Host(start.Add(time.Second), peers)
	if !strings.HasSuffix(g.Lines[3], "BUDGET FULL: 75 held back") || strings.Contains(g.Lines[1], "BUDGET") {
		t.Errorf("peer 2's budget full: %q", g.Lines)
	}
	peers[1].Replication.Backlog = 0
	// Peer 1 resumed on a new connection: its counters began again.
	peers[0].Replication = replicate.PeerStats{Items: 10}
	g.Host(start.Add(1500*time.Millisecond), peers)
	if !strings.Contains(g.Lines[1], "scope sends 3000 items/s") {
		t.Errorf("after peer 1's counters began again: %q; want the last second's rates kept", g.Lines[1])
	}
	peers[0].Replication = replicate.PeerStats{Items: 310}
	g.Host(start.Add(2500*time.Millisecond), peers)
	if !strings.Contains(g.Lines[1], "scope sends 300 items/s") {
		t.Errorf("a second after peer 1's counters began again: %q; want 300 items/s", g.Lines[1])
	}
	g.Host(start.Add(3*time.Second), peers[1:])
	if _, kept := g.rates[1]; kept || len(g.rates) != 1 {
		t.Errorf("after peer 1 left the rates kept are %v", g.rates)
	}
}
