package interp

import (
	"fmt"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// restWorld returns a rig with still remote entities (one state each, as a
// join leaves them) and moving ones updated every send, drawn until the
// still ones rest.
func restWorld(t testing.TB, still, moving int) (r *rig, props, movers []arche.Entity, f ecs.Frame) {
	r = newRig(t, Config{})
	for i := range still {
		e := r.spawn(ecs.HostPeer, true, ecs.Transform{X: float64(i), Y: 500})
		r.ip.Applied(e, 1)
		props = append(props, e)
	}
	for i := range moving {
		movers = append(movers, r.spawn(ecs.HostPeer, true, ecs.Transform{X: float64(i)}))
	}
	f = 1
	for range 30 {
		f += 2
		r.clk.Advance(2 * step)
		feed(r, movers, f)
		r.ip.Update(r.clk.Now())
	}
	return r, props, movers, f
}

// TestEntitiesAtRestLeaveTheFrame: remote entities at rest (newer frames
// came without them) are drawn where they rest and no longer sampled every
// frame; the counts still include them; a new state brings one back.
func TestEntitiesAtRestLeaveTheFrame(t *testing.T) {
	r, props, movers, f := restWorld(t, 1000, 10)
	if len(r.ip.active) != len(movers) {
		t.Fatalf("%d slots sampled a frame; %d move", len(r.ip.active), len(movers))
	}
	st := r.ip.Stats()
	if st.Remote != len(props)+len(movers) || st.Resting != len(props) {
		t.Fatalf("stats %+v: want %d remote, %d resting", st, len(props)+len(movers), len(props))
	}
	if p := r.pose(props[7]); p.X != 7 || p.Y != 500 {
		t.Fatalf("a resting entity is drawn at %v", p)
	}
	// A state for a resting entity: it is drawn moving towards it.
	e := props[7]
	f += 2
	r.clk.Advance(2 * step)
	r.apply(e, f, ecs.Transform{X: 107, Y: 500})
	feed(r, movers, f)
	for range 20 {
		r.clk.Advance(step / 2)
		r.ip.Update(r.clk.Now())
	}
	if p := r.pose(e); p.X <= 7 {
		t.Fatalf("after a new state the entity is still drawn at %v", p)
	}
	// A removed entity leaves the counts.
	r.ip.Removed(props[8])
	r.w.Arche().RemoveEntity(props[8])
	r.clk.Advance(step)
	r.ip.Update(r.clk.Now())
	if st := r.ip.Stats(); st.Remote != len(props)+len(movers)-1 {
		t.Fatalf("after a removal %d remote, want %d", st.Remote, len(props)+len(movers)-1)
	}
}

// BenchmarkInterpolateAtRest measures one drawn frame of a big world at
// rest (100,000 entities, as a join leaves them) with 100 moving.
func BenchmarkInterpolateAtRest(b *testing.B) {
	for _, n := range []int{100000} {
		b.Run(fmt.Sprintf("entities-%d/moving-100", n), func(b *testing.B) {
			r, _, movers, f := restWorld(b, n, 100)
			dt := time.Second / 240
			frame := 0
			b.ReportAllocs()
			for b.Loop() {
				r.clk.Advance(dt)
				frame++
				if frame%8 == 0 {
					b.StopTimer()
					f += 2
					feed(r, movers, f)
					b.StartTimer()
				}
				r.ip.Update(r.clk.Now())
			}
		})
	}
}
