package replicate

import (
	"fmt"
	"math"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// A peer whose States are in flight when the next goes (a link with
// latency: here each is delivered three send ticks after it went) has its
// moving entities coded against the image of the newest State it
// acknowledged, and the messages name that image as their common base: an
// item of a body moving at every send tick takes the one-bit common head,
// not an explicit head with a kind, an age and a mask (they took 2.3 times
// the bytes of a link without latency). The client ends with every body
// where the host has it, no baseline missed.
func TestAMoverOverLatencyHasTheCommonHead(t *testing.T) {
	perItem := map[int]float64{}
	for _, delay := range []int{0, 3} {
		t.Run(fmt.Sprintf("delivered-%d-sends-later", delay), func(t *testing.T) {
			r := newRig(t, HostConfig{BitsPerSecond: 1 << 30})
			var bodies []arche.Entity
			for i := range 40 {
				bodies = append(bodies, r.m.NewWith(&ecs.Transform{X: float64(i) * 50}, &ecs.Velocity{X: 300}, &ecs.NetworkIdentity{}))
			}
			r.settle()
			p := r.h.Peer(1)
			var inFlight [][]int
			aged, items, bytes := 0, uint64(0), uint64(0)
			for step := range 120 {
				for _, e := range bodies {
					r.move(e, 5) // 300 units/s
				}
				st := p.Stats()
				r.s.Step()
				if p.base.age != 0 {
					aged++
				}
				if step >= 20 {
					items += p.Stats().Items - st.Items
					bytes += p.Stats().Bytes - st.Bytes
				}
				inFlight = append(inFlight, r.next())
				if len(inFlight) > delay {
					for _, i := range inFlight[0] {
						r.deliver(i)
					}
					inFlight = inFlight[1:]
				}
			}
			for _, sent := range inFlight {
				for _, i := range sent {
					r.deliver(i)
				}
			}
			r.settle()
			for _, e := range bodies {
				if got, want := r.clientX(e), r.tf.Get(e).X; math.Abs(got-want) > 1.0/PositionScale {
					t.Fatalf("the client holds x %v of a body the host has at %v", got, want)
				}
			}
			if st := r.c.Stats(); st.DeltaMisses != 0 || st.Malformed != 0 {
				t.Fatalf("client %+v: baselines missed or messages refused", st)
			}
			perItem[delay] = float64(bytes) / float64(items)
			t.Logf("%d send ticks of 120 with an aged common base; %.2f bytes an item", aged, perItem[delay])
			if delay > 0 && aged < 100 {
				t.Fatalf("%d send ticks of 120 had the acked State's image as their common base, want nearly all", aged)
			}
			if delay == 0 && aged != 0 {
				t.Fatalf("%d send ticks had an aged common base on a link that acknowledges each State before the next", aged)
			}
		})
	}
	if perItem[3] > 1.1*perItem[0] {
		t.Fatalf("an item took %.2f bytes with States delivered three send ticks late, %.2f without: latency should cost no head", perItem[3], perItem[0])
	}
}
