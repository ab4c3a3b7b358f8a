package netplay

import (
	"fmt"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// BenchmarkMatchFrame is one frame of a whole networked match in one
// process: the host with three bot clients stepping, replicating, predicting
// and interpolating (one drawn frame each) over in-memory links of 75 ms each
// way. Steady state: the joins are over.
func BenchmarkMatchFrame(b *testing.B) {
	r := newRig(b, condition.Config{Latency: 75 * time.Millisecond}, 30)
	for i := range 3 {
		r.join(fmt.Sprintf("bot%d", i), steer(0))
	}
	r.tick = r.hg.Config.Step
	nothing := func(*tandem.View) {}
	draw := func(c *client, now time.Time) { c.View(now, nothing) }
	r.run(20*time.Second, draw)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r.run(r.tick, draw)
	}
}
