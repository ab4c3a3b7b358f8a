package tandemtest_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/tandem-go/tandem"
)

// A rider who hops off the lift the host moves, walking off its end, lands
// on the thin ground (4 units deep) on her client as on the host, however
// far the lift has gone when she hops, over 100 ms each way losing 5%: a
// correction from a host state of a frame she still fell in, carried to
// the present where her client had landed her, put her through the ground
// and out of the world (hopping 110 to 130 frames in, her centre went 26
// to 34 units under the ground's top; 300 frames in, 345), and drew her
// there; a correction stops where she stands on it now, and her centre
// never goes under the ground's top, nor is drawn deeper than her client
// has her.
func TestARiderHoppingOffTheLiftStaysOnTheGround(t *testing.T) {
	for _, wait := range []int{110, 120, 130, 300} {
		t.Run(fmt.Sprintf("hop-at-%d", wait), func(t *testing.T) {
			_, c, r := liftRun(t, false, 1)
			r.Step(wait)
			c.SetInput(Hop{Hops: 2, Walk: 1})
			// How far her centre went under the ground's top, simulated
			// and drawn, at worst (the ground's bottom is 4 under it).
			sim, drawn := math.Inf(-1), math.Inf(-1)
			for i := range 240 {
				if i == 90 {
					c.SetInput(Hop{Hops: 2})
				}
				r.Step(1)
				c.Do(func(w *tandem.World) {
					if b := w.Physics.BodyOf(riderOf(w, c.Peer())); b != nil {
						sim = max(sim, b.Position().Y-liftGroundY)
					}
				})
				c.View(r.Clock.Now(), func(v *tandem.View) {
					if p, ok := v.Pose(riderOf(v.World, c.Peer())); ok {
						drawn = max(drawn, p.Y-liftGroundY)
					}
				})
			}
			r.Step(60)
			var hy, cy float64
			r.Host.Do(func(w *tandem.World) { hy = w.Physics.BodyOf(riderOf(w, c.Peer())).Position().Y })
			c.Do(func(w *tandem.World) { cy = w.Physics.BodyOf(riderOf(w, c.Peer())).Position().Y })
			t.Logf("her centre under the ground's top at worst: simulated %.2f, drawn %.2f (standing on it: %.0f); at the end at y %.2f, the host's %.2f; %d pose corrections",
				sim, drawn, -riderH/2, cy, hy, c.NetStats().Predict.PoseCorrections)
			if sim > 0 || drawn > 0 {
				t.Errorf("her centre went %.2f under the ground's top on her client, drawn %.2f: into the ground (4 deep) and through it", sim, drawn)
			}
			if drawn > sim+0.5 {
				// The offset hiding a correction that lifted her as she
				// fell drew her where she fell from, into the ground,
				// once she had landed (at 110 frames, 3.8 deeper).
				t.Errorf("she was drawn %.2f under the ground's top, deeper than her client ever had her (%.2f)", drawn, sim)
			}
			if math.Abs(cy-hy) > 1 {
				t.Errorf("she ends at y %.2f on her client, %.2f on the host", cy, hy)
			}
		})
	}
}
