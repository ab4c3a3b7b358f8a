package session

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/jakecoffman/cp/v2"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/physics"
)

// staleness measures, for every body that moves on the host (faster than
// 20 units/s), how many host
// frames have passed since the client last received its state.
type staleness struct {
	cw       *ecs.World
	last     map[ecs.NetID]ecs.Frame // client: newest state received, by id
	maxGap   ecs.Frame
	counting bool
	vel      generic.Map[ecs.Velocity] // host
}

// Applied implements replicate.Observer on the client.
func (s *staleness) Applied(e arche.Entity, f ecs.Frame) {
	if ni, ok := s.cw.Identity(e); ok {
		s.last[ni.ID] = f
	}
}

// Removed implements replicate.Observer.
func (s *staleness) Removed(arche.Entity) {}

// Update runs on the host after physics: each body that moved this frame is
// as stale as the client's newest state of it.
func (s *staleness) Update(w *ecs.World) {
	if !s.counting {
		return
	}
	for _, ch := range w.Journal().Changes(w) {
		if ch.Component != w.IDs.Transform {
			continue
		}
		// Moving: faster than a creep against a wall.
		if v := s.vel.Get(ch.Entity); math.Hypot(v.X, v.Y) < 20 {
			continue
		}
		if l, ok := s.last[ch.ID]; ok && w.Frame() > l {
			s.maxGap = max(s.maxGap, w.Frame()-l)
		}
	}
}

// pile is the bandwidth scene: 900 discs in a 30×30 pile and one heavy
// player disc, top-down with ground friction so bodies come to rest and
// sleep.
type pile struct {
	w      *ecs.World
	space  *physics.Space
	bodies []arche.Entity
	player arche.Entity
}

func newPile() *pile {
	w := ecs.NewWorld()
	p := &pile{w: w, space: physics.New(w, physics.Config{})}
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	mat := physics.Material{Mass: 1, Friction: 0.5, Elasticity: 0.2, Velocity: physics.GroundFriction(300)}
	for i := range 30 {
		for j := range 30 {
			e := m.NewWith(&ecs.Transform{X: 400 + float64(i)*22, Y: 200 + float64(j)*22}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
			p.space.AttachCircle(e, 10, mat)
			p.bodies = append(p.bodies, e)
		}
	}
	p.player = m.NewWith(&ecs.Transform{X: 100, Y: 100}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	p.space.AttachCircle(p.player, 16, physics.Material{Mass: 20, Friction: 0.5, Velocity: physics.GroundFriction(300)})
	for _, seg := range [][4]float64{{0, 0, 1600, 0}, {1600, 0, 1600, 1200}, {1600, 1200, 0, 1200}, {0, 1200, 0, 0}} {
		p.space.StaticSegment(cp.Vector{X: seg[0], Y: seg[1]}, cp.Vector{X: seg[2], Y: seg[3]}, 4, physics.Material{Friction: 0.5})
	}
	return p
}

// BenchmarkBandwidth measures the bits the host sends one client for a
// scene of 901 cp bodies, at the default send rate and budget: at rest,
// while a player drives through the pile, and while every body moves. The
// figures count the stack's bytes plus conn.Config.DatagramOverhead (40 B)
// per datagram for QUIC, UDP and IP.
func BenchmarkBandwidth(b *testing.B) {
	b.Run("bodies-901", func(b *testing.B) {
		for b.Loop() {
			runBandwidth(b, 0)
		}
	})
	for _, lat := range []time.Duration{25 * time.Millisecond, 50 * time.Millisecond} {
		b.Run("bodies-901/latency-"+lat.String(), func(b *testing.B) {
			for b.Loop() {
				runBandwidth(b, lat)
			}
		})
	}
}

func runBandwidth(b *testing.B, latency time.Duration) {
	clk := clock.NewFake(time.Unix(1000, 0))
	net, err := mem.NewNetwork(clk, mem.Config{ToHost: condition.Config{Latency: latency}, ToClient: condition.Config{Latency: latency}})
	if err != nil {
		b.Fatal(err)
	}
	p := newPile()
	hreg := replicate.NewRegistry(p.w)
	hsched := ecs.NewSchedule(p.w, clk, 0)
	var drive func(w *ecs.World)
	hsched.Add("drive", ecs.SystemFunc(func(w *ecs.World) {
		if drive != nil {
			drive(w)
		}
	}))
	hsched.Add("physics", p.space)
	var interest func(ecs.PeerID, arche.Entity) float64
	host := NewHost(hsched, hreg, HostConfig{Clock: clk, Replication: replicate.HostConfig{
		Priority: func(p ecs.PeerID, e arche.Entity) float64 {
			if interest == nil {
				return 1
			}
			return interest(p, e)
		}}})
	l, _ := net.Listen("host")
	ctx := context.Background()
	client := dialClient(b, ctx, net, "host", clk, "watcher")
	var meter replicate.SymbolMeter
	client.cl.cfg.Replication.Meter = &meter
	stale := &staleness{cw: client.w, last: map[ecs.NetID]ecs.Frame{}, vel: generic.NewMap[ecs.Velocity](p.w.Arche())}
	client.cl.cfg.Replication.Observer = stale
	hsched.Add("staleness", stale)
	tc, _ := l.Accept(ctx)
	host.Accept(tc)
	step := func() {
		clk.Advance(ecs.DefaultStep)
		hsched.Step()
		client.sched.Step()
	}
	// Join, then let the pile settle and fall asleep.
	for i := 0; client.cl.State() != Playing || p.space.Awake() > 0; i++ {
		if i > 60*60 {
			b.Fatalf("scene never came to rest: %d awake", p.space.Awake())
		}
		step()
	}
	for range 60 {
		step()
	}
	peer := client.cl.Peer()
	sent := func() uint64 {
		st, _, _ := host.PeerStats(peer)
		return st.WireBytesSent
	}
	kbps := func(bytes uint64, seconds float64) float64 { return float64(bytes) * 8 / 1000 / seconds }

	// Rest: ten seconds of nothing moving.
	before := sent()
	for range 10 * 60 {
		step()
	}
	rest := kbps(sent()-before, 10)

	// Stir: the player drives a fixed zigzag through the pile for ten seconds.
	path := []cp.Vector{{X: 300, Y: 300}, {X: 1200, Y: 420}, {X: 300, Y: 540}, {X: 1200, Y: 660}, {X: 300, Y: 780}, {X: 1200, Y: 900}}
	leg := 0
	drive = func(w *ecs.World) {
		pos := p.space.BodyOf(p.player).Position()
		target := path[leg%len(path)]
		d := target.Sub(pos)
		if d.Length() < 30 {
			leg++
		}
		v := d.Normalize().Mult(300)
		physics.SetVelocity(w, p.player, ecs.Velocity{X: v.X, Y: v.Y})
	}
	before = sent()
	_, rs0, _ := host.PeerStats(peer)
	meter.Reset()
	errUnits := &poseError{hw: p.w, cw: client.w, bodies: append(append([]arche.Entity(nil), p.bodies...), p.player)}
	for range 10 * 60 {
		step()
		if p.w.Frame()%ecs.Frame(host.Replicator().Config().SendEvery) == 0 {
			errUnits.measure()
		}
	}
	stir := kbps(sent()-before, 10)
	stirBound := meter.Bits() / 1000 / 10
	// The same drive with interest, as a game would set it: bodies more than
	// 60 units from the player (not in touch with it) gain priority at 0.4 of
	// the rate (HostConfig.Priority); interpolation covers their slower
	// updates.
	pos := p.space.BodyOf(p.player).Position
	interest = func(_ ecs.PeerID, e arche.Entity) float64 {
		if b := p.space.BodyOf(e); b != nil && b.Position().Distance(pos()) > 60 {
			return 0.4
		}
		return 1
	}
	before = sent()
	for range 10 * 60 {
		step()
	}
	stirInterest := kbps(sent()-before, 10)
	interest = nil
	_, rs1, _ := host.PeerStats(peer)
	b.Logf("stir: %d items, %d as deltas, %d payload bytes in %d messages", rs1.Items-rs0.Items, rs1.Deltas-rs0.Deltas, rs1.Bytes-rs0.Bytes, rs1.Messages-rs0.Messages)
	drive = nil

	// Storm: every body pushed in a new direction twice a second, fast enough
	// (300 units/s against 300 units/s² of friction) never to stop between.
	rng := rand.New(rand.NewPCG(1, 2))
	frame := 0
	drive = func(w *ecs.World) {
		frame++
		if frame%30 != 1 {
			return
		}
		for _, e := range p.bodies {
			a := rng.Float64() * 2 * math.Pi
			physics.SetVelocity(w, e, ecs.Velocity{X: 300 * math.Cos(a), Y: 300 * math.Sin(a)})
		}
	}
	for range 60 {
		step()
	}
	stale.counting = true
	before = sent()
	for range 10 * 60 {
		step()
	}
	storm := kbps(sent()-before, 10)
	stale.counting = false

	b.ReportMetric(rest, "kbit/s-rest")
	b.ReportMetric(stir, "kbit/s-stir")
	b.ReportMetric(stirBound, "kbit/s-stir-bound")
	b.ReportMetric(stir/stirBound, "stir-over-bound")
	if errUnits.missing > 0 {
		b.Fatalf("the client lacked a body at %d of its measures during the stir: its error would read low", errUnits.missing)
	}
	b.ReportMetric(errUnits.mean(), "stir-error-units")
	b.ReportMetric(stirInterest, "kbit/s-stir-interest")
	b.ReportMetric(storm, "kbit/s-storm")
	// A tick here is a network tick (a send, every SendEvery frames), the
	// unit of the reference's tables; frames are simulation steps.
	sendEvery := host.Replicator().Config().SendEvery
	staleTicks := (int(stale.maxGap) + sendEvery - 1) / sendEvery
	b.ReportMetric(float64(staleTicks), "max-stale-ticks")
	b.ReportMetric(float64(stale.maxGap), "max-stale-frames")
	if staleTicks > 30 {
		b.Errorf("a moving body waited %d network ticks for an update, want at most 30", staleTicks)
	}
	budget := float64(host.Replicator().Config().BitsPerSecond) / 1000
	if storm > budget*1.05 {
		b.Errorf("storm used %.1f kbit/s, budget %.0f", storm, budget)
	}
	if rest > 2 {
		b.Errorf("rest used %.2f kbit/s, want at most 2", rest)
	}
}

// poseError measures how far the client's poses are from the host's: the
// mean distance, over all bodies, at each send step measured. A body the
// client does not hold is counted in missing, not left out of the mean.
type poseError struct {
	hw, cw  *ecs.World
	bodies  []arche.Entity
	sum     float64
	n       int
	missing int
}

func (pe *poseError) measure() {
	ha, ca := pe.hw.Arche(), pe.cw.Arche()
	for _, e := range pe.bodies {
		ni, _ := pe.hw.Identity(e)
		ce, ok := pe.cw.EntityOf(ni.ID)
		if !ok {
			pe.missing++
			continue
		}
		h := (*ecs.Transform)(ha.Get(e, pe.hw.IDs.Transform))
		c := (*ecs.Transform)(ca.Get(ce, pe.cw.IDs.Transform))
		pe.sum += math.Hypot(h.X-c.X, h.Y-c.Y)
		pe.n++
	}
}

func (pe *poseError) mean() float64 {
	if pe.n == 0 {
		return 0
	}
	return pe.sum / float64(pe.n)
}
