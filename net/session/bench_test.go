package session

import (
	"context"
	"fmt"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/mem"
)

// pair is a host and its clients (one, or more for newGroup) over perfect
// in-memory links, stepped together on a fake clock.
type pair struct {
	clk      *clock.Fake
	hw       *ecs.World
	hreg     *replicate.Registry
	hsched   *ecs.Schedule
	host     *Host
	client   *testClient
	clients  []*testClient
	entities []arche.Entity
	tf       generic.Map[ecs.Transform]
}

// newPair builds a host world of n networked entities and one client that
// has finished joining it. Every step is a send step.
func newPair(tb testing.TB, n int, cfg HostConfig) *pair { return newGroup(tb, n, 1, cfg) }

// newGroup builds a host world of n networked entities and k clients that
// have finished joining it. Every step is a send step.
func newGroup(tb testing.TB, n, k int, cfg HostConfig) *pair {
	tb.Helper()
	clk := clock.NewFake(time.Unix(1000, 0))
	net, err := mem.NewNetwork(clk, mem.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	p := &pair{clk: clk, hw: ecs.NewWorld()}
	p.hreg = replicate.NewRegistry(p.hw)
	p.hsched = ecs.NewSchedule(p.hw, clk, 0)
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](p.hw.Arche())
	q := m.NewBatchQ(n)
	for i := 0; q.Next(); i++ {
		t, _, _ := q.Get()
		t.X, t.Y = float64(i%1000), float64(i/1000)
		p.entities = append(p.entities, q.Entity())
	}
	p.tf = generic.NewMap[ecs.Transform](p.hw.Arche())
	cfg.Clock = clk
	cfg.MaxPeers = max(cfg.MaxPeers, k)
	cfg.MaxPeersPerAddress = max(cfg.MaxPeersPerAddress, k)
	cfg.MaxPendingPerAddress = max(cfg.MaxPendingPerAddress, k)
	cfg.MaxPending = max(cfg.MaxPending, k)
	cfg.AcceptBacklog = max(cfg.AcceptBacklog, k)
	if cfg.Replication.SendEvery == 0 {
		cfg.Replication.SendEvery = 1
	}
	if cfg.Replication.BitsPerSecond == 0 {
		cfg.Replication.BitsPerSecond = 1 << 30
	}
	p.host = NewHost(p.hsched, p.hreg, cfg)
	l, err := net.Listen("host")
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	for i := range k {
		c := dialClient(tb, ctx, net, "host", clk, fmt.Sprintf("bench%d", i))
		tc, err := l.Accept(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		p.host.Accept(tc)
		p.clients = append(p.clients, c)
	}
	p.client = p.clients[0]
	for i := 0; ; i++ {
		playing := 0
		for _, c := range p.clients {
			if c.cl.State() == Playing {
				playing++
			}
		}
		if playing == k {
			break
		}
		if i > 10000 {
			tb.Fatalf("%d of %d clients joined; the first: %v %v", playing, k, p.client.cl.State(), p.client.cl.Err())
		}
		p.step()
	}
	for range 10 {
		p.step()
	}
	return p
}

func (p *pair) step() {
	p.clk.Advance(ecs.DefaultStep)
	p.hsched.Step()
	p.stepClients()
}

// stepClients steps every client once.
func (p *pair) stepClients() {
	for _, c := range p.clients {
		c.sched.Step()
	}
}

// change moves k entities and reports them, as a game system would.
func (p *pair) change(k int, round int) {
	for i := range k {
		e := p.entities[(round*k+i)%len(p.entities)]
		p.tf.Get(e).X += 1
		ecs.MutateComponent(p.hw, e, p.hw.IDs.Transform)
	}
}

// BenchmarkHostTick measures one host tick with one synced client: the
// journal, per-peer packing, encoding and the datagrams handed to the
// connection and flushed. The client's tick (which acknowledges) runs
// outside the timer.
func BenchmarkHostTick(b *testing.B) {
	for _, n := range []int{200, 20000} {
		b.Run(fmt.Sprintf("idle-%d", n), func(b *testing.B) {
			p := newPair(b, n, HostConfig{})
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				p.clk.Advance(ecs.DefaultStep)
				p.hsched.Step()
			}
			if st, _, _ := p.host.PeerStats(p.client.cl.Peer()); st.PacketsOutPerSec != 0 {
				b.Fatalf("idle host sent %.1f packets/s", st.PacketsOutPerSec)
			}
		})
	}
	for _, bench := range []struct {
		name     string
		peers, k int
	}{{"changes-100", 1, 100}, {"changes-1000", 1, 1000}, {"peers-64/changes-1000", 64, 1000}} {
		k := bench.k
		b.Run(bench.name, func(b *testing.B) {
			p := newGroup(b, 20000, bench.peers, HostConfig{})
			p.hsched.Add("change", ecs.SystemFunc(func(*ecs.World) {}))
			round := 0
			// Warm up to steady state: every entity sent once (baselines
			// held) and every sent record used once.
			for range max(20000/k, 0) + 1100 {
				p.change(k, round)
				round++
				p.step()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				p.clk.Advance(ecs.DefaultStep)
				p.change(k, round)
				round++
				p.hsched.Step()
				b.StopTimer()
				p.stepClients()
				b.StartTimer()
			}
			b.StopTimer()
			for _, c := range p.clients {
				if _, rs, _ := p.host.PeerStats(c.cl.Peer()); rs.Items < uint64(k) {
					b.Fatalf("peer %d was sent %d items", c.cl.Peer(), rs.Items)
				}
			}
		})
	}
}

// BenchmarkClientTick measures one client tick with nothing arriving.
func BenchmarkClientTick(b *testing.B) {
	b.Run("idle-20000", func(b *testing.B) {
		p := newPair(b, 20000, HostConfig{})
		if got := p.client.w.Networked(); got != 20000 {
			b.Fatalf("client holds %d entities", got)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			p.clk.Advance(ecs.DefaultStep)
			p.client.sched.Step()
		}
	})
}

// BenchmarkClientApply measures one client tick that receives and applies k
// changed components: the datagrams taken from the transport, parsed,
// acknowledged and applied. The host's tick runs outside the timer.
func BenchmarkClientApply(b *testing.B) {
	for _, k := range []int{100, 1000} {
		b.Run(fmt.Sprintf("changes-%d", k), func(b *testing.B) {
			p := newPair(b, 20000, HostConfig{})
			round := 0
			for range max(20000/k, 0) + 1100 {
				p.change(k, round)
				round++
				p.step()
			}
			before := p.client.cl.Replicator().Stats().Updates
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				p.clk.Advance(ecs.DefaultStep)
				p.change(k, round)
				round++
				p.hsched.Step()
				b.StartTimer()
				p.client.sched.Step()
			}
			b.StopTimer()
			got := p.client.cl.Replicator().Stats().Updates - before
			if got < uint64(b.N*k) {
				b.Fatalf("applied %d updates in %d ticks, want %d each", got, b.N, k)
			}
		})
	}
}
