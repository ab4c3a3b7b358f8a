package interp

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

// A car moving at 300 units a second (its ecs.Velocity says so) that the
// host sends every other send (a peer's interest weighs a far car's
// urgency below a whole send's), while another entity goes at every send:
// when the datagram that carried the car's next state is lost, the next
// one heard is not the car's turn, and frames newer than the car's last
// state by its last two states' gap came without it. That says nothing of
// the car, whose Velocity says it moves: it is drawn moving on to its next
// state, not resting at its last one for the frames until that state
// comes (a driver's client drew cars standing still up to 10 drawn frames,
// 28 units behind). The same when the host slows the car from every send
// to every other, and the first of those is lost.
func TestAMovingEntityIsNotRestedByAStateLostInItsTurn(t *testing.T) {
	const speed = 5 // units a host frame: 300 units a second
	for _, tc := range []struct {
		name string
		sent func(f ecs.Frame) bool // the host sends the car's state of frame f
		lost []ecs.Frame            // datagrams lost, with every state of that frame
	}{
		{"every other send, one lost", func(f ecs.Frame) bool { return f%4 == 2 }, []ecs.Frame{246}},
		{"slowed to every other send, the first lost", func(f ecs.Frame) bool { return f <= 244 || f%4 == 0 }, []ecs.Frame{248}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Config{})
			car := r.spawnMoving(ecs.Transform{}, ecs.Velocity{X: speed * 60})
			other := r.spawn(2, true, ecs.Transform{})
			arrivals := slices.DeleteFunc(link{latency: 42 * time.Millisecond}.sends(2, 400, 2), func(a arrival) bool {
				return slices.Contains(tc.lost, a.f)
			})
			still, worst, at, resting := 0, 0.0, 0.0, 0
			var last ecs.Transform
			drawn := false
			r.play(arrivals, 120, 400*step, func(f ecs.Frame) {
				r.apply(other, f, ecs.Transform{Y: float64(f)}) // the world goes on: a state every send
				if tc.sent(f) {
					r.apply(car, f, ecs.Transform{X: speed * float64(f)})
				}
			}, func(time.Duration) {
				rf := r.ip.RenderFrame()
				if rf < 200 || rf > 300 {
					return
				}
				p := r.pose(car)
				if drawn && p == last {
					still++
				}
				if d := math.Abs(p.X - speed*rf); d > worst {
					worst, at = d, rf
				}
				resting += r.ip.Stats().Resting
				last, drawn = p, true
			})
			t.Logf("drawn still %d frames, %d counted Resting; worst %.2f units off the host's pose at render frame %.1f", still, resting, worst, at)
			if still > 0 || resting > 0 {
				t.Errorf("the moving car was drawn still in %d drawn frames (%d counted Resting), %.2f units behind at worst (render frame %.1f)", still, resting, worst, at)
			}
			if worst > speed {
				t.Errorf("drawn %.2f units off the host's pose at render frame %.1f, more than a frame's way", worst, at)
			}
		})
	}
}
