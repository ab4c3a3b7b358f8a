package session

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/mem"
)

// BenchmarkCrowdJoin measures 16 players joining at once a host of 100,000
// still props over 40,000 units square (the default interest), each given a
// player where it lands by OnJoin, over in-memory links: max-step-ms is
// the host's longest step from their Hellos until all play (wall time of
// the step; the clients step outside it), steps how many steps that took.
// admit-4 is the default AdmitPerStep, admit-all no bound.
func BenchmarkCrowdJoin(b *testing.B) {
	for _, limit := range []int{4, -1} {
		name := fmt.Sprintf("admit-%d", limit)
		if limit < 0 {
			name = "admit-all"
		}
		b.Run(name+"/entities-100000", func(b *testing.B) {
			var worst []time.Duration // each crowd's longest step
			steps := 0
			for b.Loop() {
				w, s := crowdJoin(b, limit)
				worst = append(worst, w)
				steps += s
			}
			slices.Sort(worst)
			b.ReportMetric(worst[len(worst)/2].Seconds()*1000, "max-step-ms")
			b.ReportMetric(worst[len(worst)-1].Seconds()*1000, "worst-step-ms")
			b.ReportMetric(float64(steps)/float64(b.N), "steps")
		})
	}
}

// crowdJoin runs one crowd's join and returns the host's longest step and
// the steps it took. The benchmark's timer runs for the host's steps only.
func crowdJoin(b *testing.B, limit int) (worst time.Duration, steps int) {
	b.StopTimer()
	defer b.StartTimer()
	const props, side, crowd = 100_000, 40_000.0, 16
	clk := clock.NewFake(time.Unix(1000, 0))
	net, err := mem.NewNetwork(clk, mem.Config{})
	if err != nil {
		b.Fatal(err)
	}
	hw := ecs.NewWorld()
	hsched := ecs.NewSchedule(hw, clk, 0)
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](hw.Arche())
	rng := rand.New(rand.NewPCG(1, 2))
	q := m.NewBatchQ(props)
	for q.Next() {
		t, _, _ := q.Get()
		t.X, t.Y = rng.Float64()*side, rng.Float64()*side
	}
	host := NewHost(hsched, replicate.NewRegistry(hw), HostConfig{
		Clock: clk, AdmitPerStep: limit,
		MaxPeers: crowd, MaxPeersPerAddress: crowd, MaxPendingPerAddress: crowd, MaxPending: crowd, AcceptBacklog: crowd,
		OnJoin: func(p ecs.PeerID, _ string) error {
			m.NewWith(&ecs.Transform{X: rng.Float64() * side, Y: rng.Float64() * side}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p})
			return nil
		},
	})
	defer host.Close()
	hsched.Step() // the host takes in its world
	l, err := net.Listen("host")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	var clients []*testClient
	for i := range crowd {
		clients = append(clients, dialClient(b, context.Background(), net, "host", clk, fmt.Sprintf("p%d", i)))
		tc, err := l.Accept(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		host.Accept(tc)
	}
	for playing := 0; playing < crowd; steps++ {
		if steps > 600 {
			b.Fatalf("%d of %d players in after %d steps", playing, crowd, steps)
		}
		clk.Advance(ecs.DefaultStep)
		b.StartTimer()
		start := time.Now()
		hsched.Step()
		worst = max(worst, time.Since(start))
		b.StopTimer()
		playing = 0
		for _, c := range clients {
			c.sched.Step()
			if c.cl.State() == Playing {
				playing++
			}
		}
	}
	for _, c := range clients {
		if got, want := c.w.Networked(), host.Replicator().Peer(c.cl.Peer()).Held(); got != want || got == 0 || got > props/10 {
			b.Fatalf("a player holds %d entities, its scope %d", got, want)
		}
	}
	return worst, steps
}
