package replicate

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// BenchmarkOwnedArmy measures a host's step with one synced peer that owns
// an army of n still entities (a strategy game's units, over 2,000 units
// square) in a world of 10,000 still props, the peer's input frame going on
// at every step as a playing client's does: the step builds the peer's
// AuthState, which carries its turn of the army (HostConfig.OwnRefresh)
// within its share of the budget. authitems/op is what each step sent of
// the army.
func BenchmarkOwnedArmy(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("still-%d", n), func(b *testing.B) {
			w := ecs.NewWorld()
			reg := NewRegistry(w)
			m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
			rng := rand.New(rand.NewPCG(5, 6))
			scatter(&m, rng, 10_000, propSide)
			q := m.NewBatchQ(n)
			for q.Next() {
				t, _, ni := q.Get()
				t.X, t.Y = rng.Float64()*2000, rng.Float64()*2000
				ni.Owner = 1
			}
			sw := &propWorld{w: w, h: NewHost(reg, HostConfig{}), s: ecs.NewSchedule(w, nil, 0), m: &m, out: &ackOut{}}
			sw.s.Add("replicate", sw.h)
			sw.s.Step()
			p := sw.join()
			for range 120 {
				p.SetInputFrame(w.Frame())
				sw.step()
			}
			before := p.stats.AuthItems
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				p.SetInputFrame(w.Frame())
				sw.step()
			}
			b.StopTimer()
			items := float64(p.stats.AuthItems-before) / float64(b.N)
			if items < 10 {
				b.Fatalf("%.1f items of the army a step: its turns, within its share of the budget, stopped", items)
			}
			b.ReportMetric(items, "authitems/op")
		})
	}
}
