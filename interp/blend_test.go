package interp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

func TestBlendAgreesWithECS(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cases := [][2]float64{{0, math.Pi - 1e-9}, {0, -math.Pi + 1e-9}, {3, -3}, {-3, 3}, {0, 3 * math.Pi}, {100, -100}, {1, 1}}
	for range 10000 {
		cases = append(cases, [2]float64{(rng.Float64()*2 - 1) * 10, (rng.Float64()*2 - 1) * 10})
	}
	for _, c := range cases {
		a := ecs.Transform{X: 1, Y: 2, Angle: c[0]}
		b := ecs.Transform{X: -3, Y: 5, Angle: c[1]}
		for _, alpha := range []float64{0, 0.25, 0.5, 1, 1.5} {
			got, want := blend(a, b, alpha), ecs.Blend(a, b, alpha)
			if got.X != want.X || got.Y != want.Y || math.Abs(got.Angle-want.Angle) > 1e-12 {
				t.Fatalf("blend(%v, %v, %v) = %v, ecs.Blend gives %v", a, b, alpha, got, want)
			}
		}
	}
}
