package physics_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/jakecoffman/cp/v2"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// idleWorld builds n networked bodies on a grid, not touching, and lets them
// fall asleep. Bodies are added a thousand at a time and put to sleep before
// the next thousand: cp removes a body from its awake list by a linear scan,
// so putting 100,000 to sleep in one step would take minutes.
func idleWorld(b *testing.B, n int) *rig {
	r := newRig(b, physics.Config{})
	side := int(math.Ceil(math.Sqrt(float64(n))))
	for i := 0; i < n; {
		for end := min(i+1000, n); i < end; i++ {
			e := r.entity(float64(i%side)*30, float64(i/side)*30)
			r.s.AttachCircle(e, 10, physics.Material{Mass: 1})
		}
		for range 600 {
			r.tick()
			if r.s.Awake() == 0 {
				break
			}
		}
		if r.s.Awake() != 0 {
			b.Fatalf("%d bodies still awake", r.s.Awake())
		}
	}
	return r
}

// movingWorld builds n circles bouncing inside a box, elastic and without
// damping, so all stay awake.
func movingWorld(b *testing.B, n int) *rig {
	r := newRig(b, physics.Config{})
	side := int(math.Ceil(math.Sqrt(float64(n))))
	size := float64(side) * 30
	wall := physics.Material{Elasticity: 1}
	corners := []cp.Vector{{X: -20, Y: -20}, {X: size, Y: -20}, {X: size, Y: size}, {X: -20, Y: size}}
	for i := range corners {
		r.s.StaticSegment(corners[i], corners[(i+1)%4], 2, wall)
	}
	for i := range n {
		e := r.entity(float64(i%side)*30, float64(i/side)*30)
		a := float64(i) * 2.39996
		r.s.AttachCircle(e, 8, physics.Material{Mass: 1, Elasticity: 1})
		physics.SetVelocity(r.w, e, ecs.Velocity{X: 80 * math.Cos(a), Y: 80 * math.Sin(a)})
	}
	for range 120 {
		r.tick()
	}
	return r
}

func BenchmarkWorldStep(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		var r *rig
		b.Run(fmt.Sprintf("idle/entities=%d", n), func(b *testing.B) {
			if r == nil {
				r = idleWorld(b, n)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				r.tick()
			}
			b.StopTimer()
			if a := r.s.Awake(); a != 0 {
				b.Fatalf("%d bodies woke up in an idle world", a)
			}
		})
	}
	var r *rig
	b.Run("moving/entities=1000", func(b *testing.B) {
		if r == nil {
			r = movingWorld(b, 1000)
		}
		b.ReportAllocs()
		b.ResetTimer()
		reports := 0
		for range b.N {
			r.tick()
			reports += len(r.changes)
		}
		b.StopTimer()
		if a := r.s.Awake(); a != 1000 {
			b.Fatalf("Awake() = %d, want all 1000 bodies moving", a)
		}
		b.ReportMetric(float64(reports)/float64(b.N), "reports/op")
	})
}
