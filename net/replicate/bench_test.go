package replicate

import (
	"runtime"
	"testing"

	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// sink is an Out whose join lane drains a fixed number of bytes per step into
// nothing, so only the host's memory is measured.
type sink struct {
	queued  int
	rate    int
	pages   int
	final   bool
	maxHeld int
}

func (s *sink) QueueDatagram(wire.Kind, []byte, uint32) error { return nil }
func (s *sink) SendLane(_ transport.Lane, msg []byte) error {
	s.queued += len(msg)
	s.maxHeld = max(s.maxHeld, s.queued)
	s.pages++
	if wire.Kind(msg[0]) == wire.KindJoinFinal {
		s.final = true
	}
	return nil
}
func (s *sink) LaneBuffered(transport.Lane) int { return s.queued }
func (s *sink) drain()                          { s.queued = max(0, s.queued-s.rate) }

func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkJoin measures the host memory held for one joining peer of a world
// of a million entities (B/entity), while a thousand of them change every
// tick.
func BenchmarkJoin(b *testing.B) {
	b.Run("entities-1000000", func(b *testing.B) {
		const n = 1_000_000
		w, reg, sched := bigWorld(n, 1000)
		h := NewHost(reg, HostConfig{})
		sched.Add("replicate", h)
		base := heap()
		var peak uint64
		var steps int
		for b.Loop() {
			s := &sink{rate: 4 << 20}
			p := h.AddPeer(1, s)
			for steps = 0; !s.final; steps++ {
				sched.Step()
				s.drain()
				if steps%16 == 0 {
					peak = max(peak, heap()-min(base, heap()))
				}
				if p.Err() != nil {
					b.Fatal(p.Err())
				}
			}
			peak = max(peak, heap()-min(base, heap()))
			h.RemovePeer(1)
		}
		_ = w
		b.ReportMetric(float64(peak)/n, "B/entity")
		b.ReportMetric(float64(steps), "ticks")
	})
}
