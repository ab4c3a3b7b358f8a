package replicate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// BenchmarkSpreadArmy measures a host's step with one synced peer that owns
// an army of n units spread over a map of 40,000 units square, among 5,000
// bodies of the host's and 10,000 still props, every unit and body moving
// at every step, at a budget of 2 Mbit/s: the peer's squares are as many as
// the cells its units are in, and what changes in its scope is weighed by
// the distance to the nearest of them and chosen within the budget. An op
// is one step at the default send rate (every other step sends);
// step-µs-p99 is the 99th percentile of the steps, a send step's cost.
func BenchmarkSpreadArmy(b *testing.B) {
	for _, n := range []int{500, 2000} {
		b.Run(fmt.Sprintf("moving-%d", n), func(b *testing.B) {
			w := ecs.NewWorld()
			reg := NewRegistry(w)
			m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
			rng := rand.New(rand.NewPCG(5, 6))
			scatter(&m, rng, 10_000, propSide)
			var movers []arche.Entity
			for i := range n + 5000 {
				owner := ecs.HostPeer
				if i < n {
					owner = 1
				}
				movers = append(movers, m.NewWith(&ecs.Transform{X: rng.Float64() * propSide, Y: rng.Float64() * propSide}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: owner}))
			}
			tf := generic.NewMap[ecs.Transform](w.Arche())
			sw := &propWorld{w: w, h: NewHost(reg, HostConfig{BitsPerSecond: 2_000_000}), s: ecs.NewSchedule(w, nil, 0), m: &m, out: &ackOut{}}
			sw.s.Add("move", ecs.SystemFunc(func(w *ecs.World) { wander(w, tf, movers) }))
			sw.s.Add("replicate", sw.h)
			sw.s.Step()
			p := sw.join()
			for range 300 {
				p.SetInputFrame(w.Frame())
				sw.step()
			}
			if got := len(p.scope.at); got < n/2 {
				b.Fatalf("the army of %d has %d squares: it is not spread", n, got)
			}
			times := make([]time.Duration, 0, 1<<16)
			st := p.Stats()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				p.SetInputFrame(w.Frame())
				sw.step()
				if len(times) < cap(times) {
					times = append(times, time.Since(t0))
				}
			}
			b.StopTimer()
			slices.Sort(times)
			items := float64(p.Stats().Items-st.Items) / float64(b.N)
			auth := float64(p.Stats().AuthItems-st.AuthItems) / float64(b.N)
			if items < 10 || auth < 10 {
				b.Fatalf("%.1f items and %.1f of the army a step: the budget is not spent", items, auth)
			}
			b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "step-µs-p99")
			b.ReportMetric(items, "items/op")
			b.ReportMetric(auth, "authitems/op")
		})
	}
}
