package tandemtest_test

import (
	"math"
	"slices"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// zigzag is walkers where each player is also given n units, marked
// HostMoved on both sides, that the host walks 3 units a frame along x,
// turning every 20 frames, unit k a frame before unit k−1 (it stands at
// y = 4k).
func zigzag(n int) *tandem.Game[Walk] {
	return drilled(true, n, 4, func(f ecs.Frame, t *ecs.Transform) bool {
		if (int(f)+int(t.Y/4))/20%2 == 0 {
			t.X += 3
		} else {
			t.X -= 3
		}
		return true
	})
}

// A player draws her own units, which the host walks (HostMoved), as well
// as another player draws them, with a budget too small for every unit at
// every send: they go in her States, coded against what she holds and
// weighed with everything else she is sent. (They went in her AuthStates,
// absolute and in a share of the budget, the longest unsent first: her 30
// units walking and turning, of 60 in view, were drawn p99 26 units off
// the host's path by their owner, 6 by a watcher.)
func TestAnOwnerDrawsHerUnitsAsWellAsAWatcher(t *testing.T) {
	link := condition.Config{Latency: 40 * time.Millisecond}
	hc := tandem.HostConfig{}
	hc.Replication.BitsPerSecond = 48_000
	r := tandemtest.New(t, zigzag(30), hc, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	bob := r.Join("bob", tandem.ClientConfig[Walk]{})
	// Where the host had each of ann's units, by frame.
	past := map[ecs.Frame]map[ecs.NetID]float64{}
	record := func() {
		r.Host.Do(func(w *tandem.World) {
			now := map[ecs.NetID]float64{}
			a := w.ECS.Arche()
			for _, e := range w.ECS.Owned(ann.Peer()) {
				if a.Has(e, w.ECS.IDs.HostMoved) {
					ni, _ := w.ECS.Identity(e)
					now[ni.ID] = ecs.Get[ecs.Transform](w.ECS, e).X
				}
			}
			past[w.ECS.Frame()] = now
		})
	}
	// off appends how far c draws each of ann's units from where the host
	// had it at c's render frame.
	off := func(c *tandem.Client[Walk], errs []float64) []float64 {
		c.View(r.Clock.Now(), func(v *tandem.View) {
			rf := v.Interpolator().Stats().RenderFrame
			lo, hi := past[ecs.Frame(math.Floor(rf))], past[ecs.Frame(math.Floor(rf))+1]
			q := v.World.ECS.Arche().Query(arche.All(v.World.ECS.IDs.NetworkIdentity))
			for q.Next() {
				e := q.Entity()
				ni := (*ecs.NetworkIdentity)(q.Get(v.World.ECS.IDs.NetworkIdentity))
				a, okA := lo[ni.ID]
				b, okB := hi[ni.ID]
				p, drawn := v.Pose(e)
				if !okA || !okB || !drawn {
					continue
				}
				host := a + (b-a)*(rf-math.Floor(rf))
				errs = append(errs, math.Abs(p.X-host))
			}
		})
		return errs
	}
	r.Step(120)
	var owner, watcher []float64
	for range 300 {
		r.Step(1)
		record()
		owner = off(ann, owner)
		watcher = off(bob, watcher)
	}
	p99 := func(errs []float64) float64 {
		slices.Sort(errs)
		return errs[len(errs)*99/100]
	}
	if len(owner) < 30*250 || len(watcher) < 30*250 {
		t.Fatalf("ann drew her units %d times, bob %d: want each of 30 nearly every frame", len(owner), len(watcher))
	}
	o, w := p99(owner), p99(watcher)
	t.Logf("ann draws her own units p99 %.2f units off the host's path, bob draws them %.2f", o, w)
	if o > 1.5*w+1 {
		t.Fatalf("ann draws her own walking units p99 %.1f units off the host's path, bob %.1f", o, w)
	}
}
