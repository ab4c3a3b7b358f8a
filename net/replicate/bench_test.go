package replicate

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/interp"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// sink is an Out whose join lane drains a fixed number of bytes per step into
// nothing, so only the host's memory is measured.
type sink struct {
	queued  int
	rate    int
	pages   int
	final   bool
	maxHeld int
}

func (s *sink) QueueDatagram(wire.Kind, []byte, uint32) error { return nil }
func (s *sink) SendLane(_ transport.Lane, msg []byte) error {
	s.queued += len(msg)
	s.maxHeld = max(s.maxHeld, s.queued)
	s.pages++
	if wire.Kind(msg[0]) == wire.KindJoinFinal {
		s.final = true
	}
	return nil
}
func (s *sink) LaneBuffered(transport.Lane) int { return s.queued }
func (s *sink) drain()                          { s.queued = max(0, s.queued-s.rate) }

func heap() uint64 {
	// Twice: what sync.Pools kept through one collection goes at the second.
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkJoin measures the host memory held for one joining peer of a world
// of a million entities while a thousand of them change every tick:
// B/entity is the peer's own state at its peak (HostPeer.Memory: its 12-byte
// slots and its page buffer), heap-B/entity the growth of the host's heap
// during the join (the peer, and the past images of entities that changed
// after their page went, kept for the peer's deltas). The pages queued on
// the lane (the window) live in the transport, not here.
func BenchmarkJoin(b *testing.B) {
	b.Run("entities-1000000", func(b *testing.B) {
		const n = 1_000_000
		w, reg, sched := bigWorld(n, 1000)
		h := NewHost(reg, HostConfig{})
		sched.Add("replicate", h)
		sched.Step() // the host takes in the world: its shared images
		base := heap()
		var peak, own int
		var steps int
		for b.Loop() {
			s := &sink{rate: 4 << 20}
			p := h.AddPeer(1, s)
			for steps = 0; !s.final; steps++ {
				sched.Step()
				s.drain()
				own = max(own, p.Memory())
				if steps%4 == 0 {
					peak = max(peak, int(heap())-int(base))
				}
				if p.Err() != nil {
					b.Fatal(p.Err())
				}
			}
			peak = max(peak, int(heap())-int(base))
			h.RemovePeer(1)
		}
		runtime.KeepAlive(w)
		b.ReportMetric(float64(own)/n, "B/entity")
		b.ReportMetric(float64(peak)/n, "heap-B/entity")
		b.ReportMetric(float64(steps), "ticks")
	})
}

// BenchmarkPeerMemory measures the host memory each peer costs (B/peer): a
// world of 1,000 entities, 100 of which move every step, replicated for ten
// seconds to 8 peers over links of about 10 steps (167 ms) of round trip
// losing 5% of the datagrams, so that a round trip of messages is always in
// flight. B/peer is what the peers' replication state holds
// (HostPeer.Memory, by capacity), heap-B/peer what the host's heap gives back
// when 64 such peers are removed, over their number.
func BenchmarkPeerMemory(b *testing.B) {
	b.Run("entities-1000/peers-8", func(b *testing.B) {
		var perPeer, heapPerPeer, inflight float64
		for b.Loop() {
			perPeer, inflight, _ = peerMemory(b, 8)
			_, _, heapPerPeer = peerMemory(b, 64)
		}
		b.ReportMetric(perPeer, "B/peer")
		b.ReportMetric(heapPerPeer, "heap-B/peer")
		b.ReportMetric(inflight, "items-in-flight/peer")
	})
}

// peerMemory runs the scene of BenchmarkPeerMemory with n peers and returns
// the mean of their Memory, their items in flight and their heap share.
func peerMemory(b testing.TB, n int) (mem, inflight, heapShare float64) {
	w, reg, sched := bigWorld(1000, 100)
	h := NewHost(reg, HostConfig{})
	sched.Add("replicate", h)
	for range 60 {
		sched.Step()
	}
	links := make([]*link, n)
	clients := make([]*ClientReplicator, n)
	for i := range links {
		links[i] = &link{rng: rand.New(rand.NewPCG(uint64(i), 9)), loss: 0.05, delay: 5, jitter: 2, peer: ecs.PeerID(i + 1)}
		clients[i] = newTestClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: ecs.PeerID(i + 1)})
	}
	for i := range links {
		h.AddPeer(ecs.PeerID(i+1), links[i])
	}
	for range 600 {
		sched.Step()
		for i, l := range links {
			l.step(b, h, clients[i])
		}
	}
	for i := range clients {
		if !clients[i].Joined() {
			b.Fatalf("peer %d did not join", i+1)
		}
		p := h.Peer(ecs.PeerID(i + 1))
		_, items := p.recs.inFlight()
		inflight += float64(items) / float64(n)
		mem += float64(p.Memory()) / float64(n)
	}
	// The heap with the peers and without: the clients' worlds and the
	// links go first.
	clients, links = nil, nil
	with := heap()
	for i := range n {
		h.RemovePeer(ecs.PeerID(i + 1))
	}
	without := heap()
	heapShare = (float64(with) - float64(without)) / float64(max(n, 1))
	runtime.KeepAlive(w)
	runtime.KeepAlive(h)
	runtime.KeepAlive(sched)
	return mem, inflight, heapShare
}

// BenchmarkClientJoin measures a client applying the join of a world of
// 100,000 entities (its pages and FINAL, already received): ms/join, and
// the longest Pump (max-slice-ms), whose budget is ClientConfig.JoinSlice.
// On Linux it also reports the CPU time of the thread the join ran on
// (cpu-ms/join, the collector's work on other threads not counted), which a
// loaded machine inflates far less than the wall time. interpolated: with an
// interp.Interpolator observing what the join applies, as a client of the
// root package's has.
func BenchmarkClientJoin(b *testing.B) {
	b.Run("entities-100000", func(b *testing.B) { benchClientJoin(b, false) })
	b.Run("entities-100000/interpolated", func(b *testing.B) { benchClientJoin(b, true) })
}

func benchClientJoin(b *testing.B, interpolated bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const n = 100_000
	out := joinedLane(n)
	var longest time.Duration
	var total, cpu time.Duration
	cpuOK := true
	for b.Loop() {
		w := ecs.NewWorld()
		cfg := ClientConfig{Local: 1}
		if interpolated {
			cfg.Observer = interp.New(w, clock.Real{}, interp.Config{})
		}
		c := NewClient(NewRegistry(w), cfg)
		start := time.Now()
		cpu0, ok0 := threadCPU()
		for _, m := range out.lane {
			if _, err := c.HandleLane(m); err != nil {
				b.Fatal(err)
			}
		}
		for !c.Joined() {
			if err := c.Pump(); err != nil {
				b.Fatal(err)
			}
		}
		total += time.Since(start)
		cpu1, ok1 := threadCPU()
		cpu += cpu1 - cpu0
		cpuOK = cpuOK && ok0 && ok1
		longest = max(longest, c.Stats().LongestSlice)
		if c.w.Networked() != n {
			b.Fatalf("client holds %d entities", c.w.Networked())
		}
		if ip, ok := cfg.Observer.(*interp.Interpolator); ok && ip.Stats().States < n {
			b.Fatalf("the interpolator recorded %d states of %d entities", ip.Stats().States, n)
		}
	}
	b.ReportMetric(total.Seconds()*1000/float64(b.N), "ms/join")
	b.ReportMetric(longest.Seconds()*1000, "max-slice-ms")
	if cpuOK {
		b.ReportMetric(cpu.Seconds()*1000/float64(b.N), "cpu-ms/join")
	}
}

// BenchmarkAudit measures one step's audit (HostConfig.Audit, at its
// default of 4 entities) in a world of 20,000 entities whose writes were
// all reported: what the audit adds to every step, whatever the world's
// size.
func BenchmarkAudit(b *testing.B) {
	s := newScene(3, 20000)
	h := NewHost(s.reg, HostConfig{})
	s.sched = ecs.NewSchedule(s.w, nil, 0)
	s.sched.Add("replicate", h)
	s.sched.Step()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		h.frame++ // as a step's would: a look at a kind every kindEvery
		h.audit(s.w, defaultAudit)
	}
	b.StopTimer()
	if h.Unreported() != 0 {
		b.Fatalf("the audit found %d unreported writes where there were none", h.Unreported())
	}
}

// BenchmarkWatch measures one look of the report check's watch
// (HostConfig.CheckReports, after each system of a step) at a world of
// 50,000 networked entities with a Transform and a Velocity, none written
// since its last look: what the check adds to every system of a step.
func BenchmarkWatch(b *testing.B) {
	s := newScene(3, 50000)
	h := NewHost(s.reg, HostConfig{CheckReports: true})
	s.sched = ecs.NewSchedule(s.w, nil, 0)
	s.sched.Add("replicate", h)
	s.sched.Watch = h.WatchSystem
	s.sched.Step()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		h.WatchSystem("look")
	}
	b.StopTimer()
	for k, c := range h.watch.culprit {
		b.Fatalf("the watch named %d writes where there were none, such as component %d of slot %d by %q", len(h.watch.culprit), k.comp, k.slot, c.system)
	}
}
