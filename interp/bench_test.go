package interp

import (
	"fmt"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// benchWorld returns a rig with n remote entities moving and updated at
// 30 Hz for a second, the render clock running.
func benchWorld(b *testing.B, n int) (*rig, []arche.Entity, ecs.Frame) {
	r := newRig(b, Config{})
	ents := make([]arche.Entity, n)
	for i := range ents {
		ents[i] = r.spawn(ecs.HostPeer, true, ecs.Transform{X: float64(i)})
	}
	f := ecs.Frame(0)
	for range 30 {
		f += 2
		r.clk.Advance(2 * step)
		feed(r, ents, f)
		r.ip.Update(r.clk.Now())
	}
	return r, ents, f
}

// feed applies one host send of frame f for every entity.
func feed(r *rig, ents []arche.Entity, f ecs.Frame) {
	a := r.w.Arche()
	id := r.w.IDs.Transform
	for i, e := range ents {
		t := (*ecs.Transform)(a.Get(e, id))
		t.X = float64(i) + float64(f)
		t.Angle = float64(f) * 0.01
		r.ip.Applied(e, f)
	}
}

// BenchmarkInterpolate measures one drawn frame (Update) over remote
// entities that are all being interpolated, drawn at 240 Hz from 30 Hz
// updates.
func BenchmarkInterpolate(b *testing.B) {
	for _, n := range []int{10000} {
		b.Run(fmt.Sprintf("entities-%d", n), func(b *testing.B) {
			r, ents, f := benchWorld(b, n)
			dt := time.Second / 240
			frame := 0
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				r.clk.Advance(dt)
				frame++
				if frame%8 == 0 { // a send interval at 240 Hz
					b.StopTimer()
					f += 2
					feed(r, ents, f)
					b.StartTimer()
				}
				r.ip.Update(r.clk.Now())
			}
			b.StopTimer()
			if st := r.ip.Stats(); st.Interpolating != n {
				b.Fatalf("not all entities interpolated: %+v", st)
			}
		})
	}
}

// BenchmarkApplied measures recording one host send (one state per entity)
// for 10,000 remote entities, as the replicator reports them.
func BenchmarkApplied(b *testing.B) {
	r, ents, f := benchWorld(b, 10000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		f += 2
		r.clk.Advance(2 * step)
		feed(r, ents, f)
	}
}

// BenchmarkPose measures the renderer's per-entity lookup.
func BenchmarkPose(b *testing.B) {
	r, ents, _ := benchWorld(b, 10000)
	r.ip.SetLocal(1)
	local := r.spawn(1, true, ecs.Transform{})
	r.interpolated(local).Snap = false
	b.ReportAllocs()
	b.Run("remote", func(b *testing.B) {
		i := 0
		for b.Loop() {
			r.ip.Pose(ents[i%len(ents)], 0.5)
			i++
		}
	})
	b.Run("local", func(b *testing.B) {
		for b.Loop() {
			r.ip.Pose(local, 0.5)
		}
	})
}
