package tandem

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
)

// duelGame is testGame with each peer's disc spawned apart, so two players
// pushing at each other collide: remote contacts the client mispredicts.
func duelGame() *Game[push] {
	g := testGame()
	g.Join = func(w *World, p Peer) error {
		a := w.ECS.Arche()
		m := generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, Input[push], label](a)
		pose := ecs.Transform{X: 60 * float64(p.ID)}
		e := m.NewWith(&pose, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p.ID}, &Input[push]{}, &label{})
		w.Physics.AttachCircle(e, 10, floor)
		return nil
	}
	return g
}

// duel is a player that pushes toward the other, and away for a quarter of
// every 1.5 s, peer 2 half a period after peer 1. Neither client can guess
// when the other turns: their contacts are mispredicted, and corrected; the
// two play alike, so what tells their corrections apart is how each client
// runs, not its part. (Periods of 1.5 s and 0.95 s gave the two players
// mean corrections 15–20% apart once a velocity's correction followed the
// body's friction, whichever client drew.)
func duel(w *World) push {
	other, phase := ecs.PeerID(2), ecs.Frame(0)
	if w.Peer == 2 {
		other, phase = 1, 45
	}
	const period = 90
	own, them := w.ECS.Owned(w.Peer), w.ECS.Owned(other)
	if len(own) == 0 || len(them) == 0 {
		return push{}
	}
	tf := func(e arche.Entity) float64 { return (*ecs.Transform)(w.ECS.Arche().Get(e, w.ECS.IDs.Transform)).X }
	s := int8(1)
	if tf(them[0]) < tf(own[0]) {
		s = -1
	}
	if (w.ECS.Frame()+phase)%period < period/4 {
		s = -s
	}
	return push{X: s}
}

// A window client draws at 4 fps, slowly (each View holds the world for
// 20 ms), while a headless client in the same game and the same conditions
// (150 ms ± 30 ms round trip, 5% loss) does not draw at all. Because the
// simulation and the network run on their own goroutine whatever the drawing
// does, the window client's round trip and corrections are within 15% of the
// headless client's.
const testSeconds = 60

func TestSlowDrawingKeepsTheGameFast(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		link := condition.Config{Latency: 75 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.05, Seed: 3}
		n, err := mem.NewNetwork(clock.Real{}, mem.Config{ToHost: link, ToClient: link})
		if err != nil {
			t.Fatal(err)
		}
		l, _ := n.Listen("host")
		g := duelGame()
		host, err := NewHost(g, HostConfig{})
		if err != nil {
			t.Fatal(err)
		}
		join := func(name string) *Client[push] {
			tc, _ := n.Dial(context.Background(), "host")
			c, err := NewClient(g, tc, ClientConfig[push]{Name: name, Input: duel})
			if err != nil {
				t.Fatal(err)
			}
			hc, _ := l.Accept(context.Background())
			host.Accept(hc)
			return c
		}
		headless, window := join("headless"), join("window")

		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for _, run := range []func(context.Context) error{host.Run, headless.Run, window.Run} {
			wg.Go(func() { run(ctx) })
		}
		var drawn, seen int
		wg.Go(func() {
			for ctx.Err() == nil {
				window.View(time.Now(), func(v *View) {
					q := generic.NewFilter1[ecs.Transform]().Query(v.World.ECS.Arche())
					for q.Next() {
						if _, ok := v.Pose(q.Entity()); ok {
							seen++
						}
					}
					time.Sleep(20 * time.Millisecond) // a slow renderer, holding the world
				})
				drawn++
				time.Sleep(230 * time.Millisecond) // the rest of a 4 fps frame
			}
		})
		time.Sleep(5 * time.Second)
		before := map[*Client[push]]NetStats{headless: headless.NetStats(), window: window.NetStats()}
		time.Sleep(testSeconds * time.Second)
		cancel()
		wg.Wait()
		host.Close()

		h, w := headless.NetStats(), window.NetStats()
		rate := func(c *Client[push], s NetStats) (perSec, mean float64) {
			b := before[c].Corrections
			k := s.Corrections.Count - b.Count
			return float64(k) / testSeconds, (s.Corrections.Mean*float64(s.Corrections.Count) - b.Mean*float64(b.Count)) / float64(max(k, 1))
		}
		hr, hm := rate(headless, h)
		wr, wm := rate(window, w)
		t.Logf("headless: rtt %v, %.1f corrections/s of %.2f units on average, %d frames", h.RTT, hr, hm, h.Frames)
		t.Logf("window (%d frames drawn, %d poses): rtt %v, %.1f corrections/s of %.2f units on average, %d frames; the simulation held the world %v at most, a View %v",
			drawn, seen, w.RTT, wr, wm, w.Frames, w.Steps, w.Views)
		if want := 4 * (5 + testSeconds); drawn < want*9/10 || drawn > want*11/10 || seen == 0 {
			t.Fatalf("the window drew %d frames in %d s (%d poses): the test did not draw at 4 fps", drawn, 5+testSeconds, seen)
		}
		within := func(what string, got, want float64) {
			if math.Abs(got-want) > 0.15*want {
				t.Errorf("%s: window %.3g, headless %.3g: more than 15%% apart", what, got, want)
			}
		}
		within("round trip (s)", w.RTT.Seconds(), h.RTT.Seconds())
		within("corrections per second", wr, hr)
		within("mean correction (units)", wm, hm)
		if d := w.Frames - h.Frames; d < -30 || d > 30 {
			t.Errorf("the window client simulated %d frames, the headless one %d: drawing held the simulation back", w.Frames, h.Frames)
		}
	})
}
