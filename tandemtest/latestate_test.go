package tandemtest_test

import (
	"math"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// A state of a sliding crate that arrives after a newer one (a link that
// reorders) leaves the crate where the newer one put it: the components
// hold the newer state's values, which were carried from the older frame
// as if they were its (over four links reordering a fifth of the datagrams
// by 40 ms, the crate was more than a unit off the host's in 72 frames, up
// to 22 units; now in at most 4, of one link, as late states leave it).
func TestALateStateLeavesASlidingCrateWhereTheNewerPutIt(t *testing.T) {
	total := 0
	for seed := uint64(1); seed <= 4; seed++ {
		var knockAt ecs.Frame
		hostX := map[ecs.Frame]float64{}
		g := knockedCrate(tandem.NetPhysics{}, slowing, &knockAt, ecs.Velocity{X: 500}, hostX)
		link := condition.Config{Latency: 60 * time.Millisecond, Jitter: 40 * time.Millisecond, Reorder: 0.2, ReorderDelay: 40 * time.Millisecond, Seed: seed}
		r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
		ann := r.JoinOver("ann", tandem.ClientConfig[Pedal]{}, link, link)
		annX := knockAndTrace(r, ann, &knockAt, 150)
		off, far := 0.0, 0
		for f, x := range annX {
			if hx, ok := hostX[f]; ok && f > knockAt+20 {
				off = max(off, math.Abs(x-hx))
				if math.Abs(x-hx) > 1 {
					far++
				}
			}
		}
		t.Logf("link %d: ann's crate up to %.1f units off the host's, %d frames over a unit", seed, off, far)
		total += far
	}
	if total > 8 {
		t.Errorf("over four reordering links, ann's sliding crate was more than a unit off the host's at the same frame in %d frames", total)
	}
}
