package session

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/ecs"
)

func BenchmarkMeHostTickClock(b *testing.B) {
	k := 1000
	p := newGroup(b, 20000, 1, HostConfig{})
	p.hsched.Add("change", ecs.SystemFunc(func(*ecs.World) {}))
	round := 0
	for range 20000/k + 1100 {
		p.change(k, round)
		round++
		p.step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	var host time.Duration
	for b.Loop() {
		p.clk.Advance(ecs.DefaultStep)
		t0 := time.Now()
		p.change(k, round)
		round++
		p.hsched.Step()
		host += time.Since(t0)
		p.stepClients()
	}
	b.ReportMetric(float64(host.Nanoseconds())/float64(b.N), "host-ns/op")
}
