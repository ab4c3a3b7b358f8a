package interp

import (
	"math"
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// quant rounds a pose as the wire's TransformCodec does (1/512 unit, 14-bit
// angle), what a client's Interpolator is given.
func quant(p ecs.Transform) ecs.Transform {
	const steps = 1 << 14
	return ecs.Transform{
		X:     math.Round(p.X*512) / 512,
		Y:     math.Round(p.Y*512) / 512,
		Angle: wrap(math.Round(p.Angle/(2*math.Pi)*steps) / steps * 2 * math.Pi),
	}
}

// steady does not depend on the direction: three states on one steady arc
// (speed 10 a frame, turning 0.1 rad a send, heading along the motion) are
// steady whichever way they head, where a component of the motion changes
// sign too.
func TestSteadyArcsAnyWay(t *testing.T) {
	ip := newRig(t, Config{}).ip
	for _, deg := range []float64{45, 0, 90, 180} {
		th := deg * math.Pi / 180
		var frames [ringSize]ecs.Frame
		var poses [ringSize]ecs.Transform
		sl := &slotState{n: 3, head: 1} // wraps: a at 7, b at 0, c at 1
		pos := ecs.Transform{}
		for i, k := range []int{7, 0, 1} {
			frames[k] = ecs.Frame(100 + 2*i)
			dir := th + 0.1*float64(i-1)
			if i > 0 {
				d := th + 0.1*(float64(i)-1.5) // chord direction
				pos.X += 20 * math.Cos(d)
				pos.Y += 20 * math.Sin(d)
			}
			poses[k] = ecs.Transform{X: pos.X, Y: pos.Y, Angle: wrap(dir)}
		}
		if !ip.steady(sl, &frames, &poses) {
			t.Errorf("a steady arc heading %v degrees is not steady", deg)
		}
	}
}
