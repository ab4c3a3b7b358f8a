package tandemtest_test

import (
	"math"
	"testing"

	"github.com/jakecoffman/cp/v2"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/tandemtest"
)

// headingCars is a car per player that drives along its heading, set
// diagonally (4.19 rad), with grip, and no steer at all.
var headingCars = carGame(ecs.Transform{X: 1000, Y: 800, Angle: 4.19}, func(b *cp.Body, in Pedal, dt float64) ecs.Velocity {
	v := b.Velocity()
	fx, fy := math.Cos(b.Angle()), math.Sin(b.Angle())
	fwd := math.Max(-150, math.Min(300, v.X*fx+v.Y*fy+float64(in.Throttle)*600*dt))
	lat := (-v.X*fy + v.Y*fx) * 0.85
	return ecs.Velocity{X: fwd*fx - lat*fy, Y: fwd*fy + lat*fx, Angular: b.AngularVelocity() * 0.7}
})

// A car driven back and forth alone on a perfect link, along a diagonal
// heading, is predicted as the host simulates it: its client's physics
// drifts from the host's by a wire step or two of position, which no one
// sees and which the default Transform codec's tolerance (eight steps) lets
// be. (At one step it was corrected several times a second.)
func TestADrivenCarAloneIsNotCorrected(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := tandemtest.New(t, headingCars, tandem.HostConfig{}, tandemtest.Config{Bubble: true})
		ann := r.Join("ann", tandem.ClientConfig[Pedal]{})
		r.Step(60)
		before := ann.NetStats().Predict.PoseCorrections
		for i := range 600 {
			ann.SetInput(Pedal{Throttle: int8(1 - 2*(i/50%2))})
			r.Step(1)
		}
		if n := ann.NetStats().Predict.PoseCorrections - before; n > 5 {
			t.Fatalf("a car driven alone on a perfect link was corrected %d times in 10 s", n)
		}
	})
}
