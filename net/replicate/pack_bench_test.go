package replicate

import (
	"fmt"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/wire"
)

// ackOut is an Out that remembers the tokens of a step's datagrams, for
// acknowledging them all before the next step: a perfect link.
type ackOut struct {
	tokens []uint32
	bytes  int
}

func (o *ackOut) QueueDatagram(_ wire.Kind, p []byte, token uint32) error {
	o.tokens = append(o.tokens, token)
	o.bytes += len(p)
	return nil
}
func (o *ackOut) SendLane(transport.Lane, []byte) error { return nil }
func (o *ackOut) LaneBuffered(transport.Lane) int       { return 0 }

// ackingPeers adds n peers (ids 1 … n) to h over perfect links and returns a
// step: s's step, then every datagram of it acknowledged.
func ackingPeers(h *HostReplicator, s *ecs.Schedule, n int) (step func()) {
	outs := make([]*ackOut, n)
	for i := range outs {
		outs[i] = &ackOut{}
		h.AddPeer(ecs.PeerID(i+1), outs[i])
	}
	return func() {
		s.Step()
		for i, o := range outs {
			for _, t := range o.tokens {
				h.Delivered(ecs.PeerID(i+1), t)
			}
			o.tokens = o.tokens[:0]
		}
	}
}

// measureSteps times step, b.N times, and reports the items peer 1 was
// sent a step.
func measureSteps(b *testing.B, h *HostReplicator, step func()) {
	items := h.Peer(1).Stats().Items
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		step()
	}
	b.ReportMetric(float64(h.Peer(1).Stats().Items-items)/float64(b.N), "items/op")
}

// BenchmarkHostReplicate measures the replicator alone (no connection) for
// k changes a step in a world of 20,000 entities, with n peers that
// acknowledge everything before the next step.
func BenchmarkHostReplicate(b *testing.B) {
	for _, n := range []int{1, 64} {
		b.Run(fmt.Sprintf("peers-%d/changes-1000", n), func(b *testing.B) {
			const size, k = 20000, 1000
			w := ecs.NewWorld()
			reg := NewRegistry(w)
			m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
			q := m.NewBatchQ(size)
			var ents []arche.Entity
			for i := 0; q.Next(); i++ {
				t, _, _ := q.Get()
				t.X, t.Y = float64(i%1000), float64(i/1000)
				ents = append(ents, q.Entity())
			}
			tf := generic.NewMap[ecs.Transform](w.Arche())
			h := NewHost(reg, HostConfig{SendEvery: 1, BitsPerSecond: 1 << 30})
			s := ecs.NewSchedule(w, nil, 0)
			round := 0
			s.Add("change", ecs.SystemFunc(func(w *ecs.World) {
				for i := range k {
					e := ents[(round*k+i)%size]
					tf.Get(e).X++
					ecs.MutateComponent(w, e, w.IDs.Transform)
				}
				round++
			}))
			s.Add("replicate", h)
			step := ackingPeers(h, s, n)
			for range size/k + 1100 {
				step()
			}
			measureSteps(b, h, step)
		})
	}
}
