package session

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/quicnet"
	"github.com/tandem-go/tandem/net/wire"
)

// loadInput is the bots' input message: a direction of travel, two int8.
const loadInput = wire.KindGameDatagram

// BenchmarkHostLoad measures the host's tick under load: 64 thin bot
// clients (they receive, acknowledge and send an input every frame; no
// physics) against one host of 100,000 networked entities, in one process
// over loopback QUIC. The world is 40,000 units square: 100,000 still props,
// 1,000 bodies wandering, and each bot's player, driven by its inputs; each
// peer's scope is the default interest (4,096 units around its player).
//
// The host steps at 60 Hz on a goroutine locked to its thread, and that
// thread alone runs on CPU 0 (sched_setaffinity); every other thread of the
// process (the bots, quic-go's goroutines) runs on CPU 1. GOMAXPROCS is the
// machine's. On a machine shared with other processes the host's thread also
// takes the real-time class (SCHED_FIFO, the lowest priority), as a game
// server's simulation thread would be given its core: without it, a process
// busy on CPU 0 takes the core from the host in the middle of a tick for
// tens of milliseconds, and the percentiles measure that process, not the
// host. A tick is one host step, network included: taking the connections'
// datagrams and lane messages, the game's step, replication and the flush
// that hands the datagrams to quic-go (which packs and sends them on its own
// goroutines, on CPU 1). tick-ms-p50 and tick-ms-p99 are wall time over 600
// ticks once every bot plays; tick-cpu-ms-p50 and tick-cpu-ms-p99 are the
// host thread's CPU time in the same ticks, which nothing else on the machine
// inflates (the gap between the two is time the core was not the host's). At
// the end, with the world still, every bot must hold exactly the entities the
// host counts in its scope.
func BenchmarkHostLoad(b *testing.B) {
	b.Run("peers-64/entities-100000", func(b *testing.B) {
		for b.Loop() {
			runHostLoad(b, 64, 100_000)
		}
	})
}

func runHostLoad(b *testing.B, bots, props int) {
	const side = 40_000.0
	rng := rand.New(rand.NewPCG(1, 2))
	hw := ecs.NewWorld()
	hreg := replicate.NewRegistry(hw)
	hsched := ecs.NewSchedule(hw, clock.Real{}, 0)
	m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](hw.Arche())
	q := m.NewBatchQ(props)
	for q.Next() {
		t, _, _ := q.Get()
		t.X, t.Y = rng.Float64()*side, rng.Float64()*side
	}
	tf := generic.NewMap[ecs.Transform](hw.Arche())
	var wanderers []arche.Entity
	for range 1000 {
		wanderers = append(wanderers, m.NewWith(&ecs.Transform{X: rng.Float64() * side, Y: rng.Float64() * side}, &ecs.Velocity{}, &ecs.NetworkIdentity{}))
	}
	var still atomic.Bool
	hsched.Add("wander", ecs.SystemFunc(func(w *ecs.World) {
		if still.Load() {
			return
		}
		for i, e := range wanderers {
			t := tf.Get(e)
			a := float64(i) + float64(w.Frame())/120
			t.X += 3 * triangle(a)
			t.Y += 3 * triangle(a+1.5)
			ecs.MutateComponent(w, e, w.IDs.Transform)
		}
	}))
	// Players: one per bot, moved by its inputs (all on the host's
	// goroutine: OnJoin, OnMessage and the systems run in its steps).
	players := map[ecs.PeerID]arche.Entity{}
	dirs := map[ecs.PeerID][2]int8{}
	hsched.Add("players", ecs.SystemFunc(func(w *ecs.World) {
		for p, e := range players {
			d := dirs[p]
			if d == [2]int8{} || still.Load() {
				continue
			}
			t := tf.Get(e)
			t.X, t.Y = clampSide(t.X+float64(d[0])/8, side), clampSide(t.Y+float64(d[1])/8, side)
			ecs.MutateComponent(w, e, w.IDs.Transform)
		}
	}))
	cfg := HostConfig{
		Clock: clock.Real{}, MaxPeers: bots, MaxPeersPerAddress: bots, MaxPendingPerAddress: bots, MaxPending: bots, AcceptBacklog: bots,
		JoinTimeout: 60 * time.Second,
		OnJoin: func(p ecs.PeerID, name string) error {
			players[p] = m.NewWith(&ecs.Transform{X: rng.Float64() * side, Y: rng.Float64() * side}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p})
			return nil
		},
		OnLeave: func(p ecs.PeerID, _ error) { delete(players, p); delete(dirs, p) },
		OnMessage: func(p ecs.PeerID, kind wire.Kind, payload []byte) {
			if kind == loadInput && len(payload) == 2 {
				dirs[p] = [2]int8{int8(payload[0]), int8(payload[1])}
			}
		},
	}
	tr, err := quicnet.New(quicnet.Config{MaxHandshakesPerAddress: bots})
	if err != nil {
		b.Fatal(err)
	}
	l, err := tr.Listen("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	host := NewHost(hsched, hreg, cfg)
	host.Serve(l)

	// The host's goroutine: 60 Hz, its thread alone on CPU 0.
	pinned, unpin := pinAllThreads(1)
	defer unpin()
	realtime := false
	var ticks, cpu []time.Duration
	var wantCounts atomic.Bool
	var mu sync.Mutex
	held := map[ecs.PeerID]int{} // the host's count of each peer's scope, when wanted
	measuring, stop, stopped := make(chan bool), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		runtime.LockOSThread()
		if pinned {
			setAffinity(0, 0)
			realtime = setRealtime()
		}
		tick := time.NewTicker(ecs.DefaultStep)
		defer tick.Stop()
		measure := false
		for {
			select {
			case <-stop:
				host.Close()
				return
			case measure = <-measuring:
				continue
			case <-tick.C:
			}
			start, startCPU := time.Now(), threadCPU()
			hsched.Step()
			if measure {
				ticks = append(ticks, time.Since(start))
				cpu = append(cpu, threadCPU()-startCPU)
			}
			if wantCounts.Load() {
				mu.Lock()
				clear(held)
				for _, id := range host.Peers() {
					if rp := host.Replicator().Peer(id); rp != nil && !rp.Joining() {
						held[id] = rp.Held()
					}
				}
				mu.Unlock()
			}
		}
	}()
	var once sync.Once
	stopHost := func() { once.Do(func() { close(stop); <-stopped }) }
	defer stopHost()

	// The bots: thin clients on one goroutine, stepped at 60 Hz.
	ct, err := quicnet.New(quicnet.Config{Fingerprint: tr.Fingerprint()})
	if err != nil {
		b.Fatal(err)
	}
	type bot struct {
		*testClient
		dir [2]int8
	}
	var bs []*bot
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	brng := rand.New(rand.NewPCG(3, 4))
	for i := range bots {
		c := dialClient(b, ctx, ct, l.Addr().String(), clock.Real{}, fmt.Sprintf("bot%d", i))
		bt := &bot{testClient: c, dir: [2]int8{int8(brng.IntN(17) - 8), int8(brng.IntN(17) - 8)}}
		c.sched.Add("input", ecs.SystemFunc(func(w *ecs.World) {
			if bt.cl.State() == Playing {
				bt.cl.Conn().Queue(loadInput, []byte{byte(bt.dir[0]), byte(bt.dir[1])}, 0)
			}
		}))
		bs = append(bs, bt)
	}
	defer func() {
		for _, bt := range bs {
			bt.cl.Close()
		}
	}()
	frame := time.NewTicker(ecs.DefaultStep)
	defer frame.Stop()
	stepBots := func() {
		<-frame.C
		for _, bt := range bs {
			bt.sched.Step()
		}
	}
	for playing := 0; playing < bots; {
		if ctx.Err() != nil {
			b.Fatalf("%d of %d bots playing after 60 s", playing, bots)
		}
		stepBots()
		playing = 0
		for _, bt := range bs {
			switch bt.cl.State() {
			case Playing:
				playing++
			case Closed:
				b.Fatalf("%s: %v", bt.cl.cfg.Name, bt.cl.Err())
			}
		}
	}
	measuring <- true
	for range 600 {
		stepBots()
	}
	measuring <- false
	// Still: every bot settles to exactly what the host counts in its scope.
	still.Store(true)
	for _, bt := range bs {
		bt.dir = [2]int8{}
	}
	wantCounts.Store(true)
	deadline := time.Now().Add(20 * time.Second)
	for {
		stepBots()
		diff := ""
		mu.Lock()
		n := len(held)
		for _, bt := range bs {
			if h, ok := held[bt.cl.Peer()]; !ok {
				diff = fmt.Sprintf("%s: the host has no count of its scope", bt.cl.cfg.Name)
			} else if bt.w.Networked() != h {
				diff = fmt.Sprintf("%s holds %d entities, the host counts %d in its scope", bt.cl.cfg.Name, bt.w.Networked(), h)
			}
		}
		mu.Unlock()
		if diff == "" && n == bots {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("after 20 s still: %s", diff)
		}
	}
	stopHost()
	slices.Sort(ticks)
	slices.Sort(cpu)
	pct := func(d []time.Duration, p float64) float64 { return d[int(p*float64(len(d)-1))].Seconds() * 1000 }
	b.ReportMetric(pct(ticks, 0.5), "tick-ms-p50")
	b.ReportMetric(pct(ticks, 0.99), "tick-ms-p99")
	b.ReportMetric(pct(ticks, 1), "tick-ms-max")
	b.ReportMetric(pct(cpu, 0.5), "tick-cpu-ms-p50")
	b.ReportMetric(pct(cpu, 0.99), "tick-cpu-ms-p99")
	total := 0
	for _, bt := range bs {
		total += bt.w.Networked()
	}
	b.ReportMetric(float64(total)/float64(bots), "entities/peer")
	if !pinned {
		b.Log("could not set CPU affinity: the host's thread was not given a core of its own")
	} else if !realtime {
		b.Log("could not give the host's thread the real-time class (needs CAP_SYS_NICE): other processes on CPU 0 count in its ticks")
	}
}

// triangle is a cheap periodic wander: a triangle wave in [-1, 1].
func triangle(a float64) float64 {
	x := a/6.283185307179586 - float64(int(a/6.283185307179586))
	if x < 0 {
		x++
	}
	return 4*math.Abs(x-0.5) - 1
}

func clampSide(v, side float64) float64 { return min(max(v, 0), side) }
