package tandem

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// swarmGame is a world of n entities the host moves, each 40 units a step
// along x, until frame stop.
func swarmGame(n int, stop ecs.Frame) *Game[push] {
	return &Game[push]{
		Components: []Component{Replicate(replicate.TransformCodec(), PredictPose)},
		Input:      pushCodec,
		Setup: func(w *World) {
			if w.Role == Joined {
				return
			}
			m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.ECS.Arche())
			ents := make([]arche.Entity, n)
			for i := range ents {
				ents[i] = m.NewWith(&ecs.Transform{Y: float64(10 * i)}, &ecs.NetworkIdentity{})
			}
			w.Schedule.Add("swarm", ecs.SystemFunc(func(ew *ecs.World) {
				if ew.Frame() > stop {
					return
				}
				for _, e := range ents {
					(*ecs.Transform)(ew.Arche().Get(e, ew.IDs.Transform)).X += 40
					ecs.MutateComponent(ew, e, ew.IDs.Transform)
				}
			}))
		},
		Join: func(*World, Peer) error { return nil },
	}
}

// A client whose host's budget for it is full says so: NetStats.Backlog
// is what the host held back and Budget the budget, while the swarm moves;
// both are 0 again soon after it stops, and the host's figures for the
// peer agree with its client's. The host's log warns once, five seconds
// into it.
func TestClientSeesItsBudgetFull(t *testing.T) {
	const stop = 8 * 60
	var log bytes.Buffer
	cfg := HostConfig{Replication: replicate.HostConfig{BitsPerSecond: 48_000}, Logger: slog.New(slog.NewTextHandler(&log, nil))}
	p := newPairWith(t, swarmGame(200, stop), swarmGame(200, stop), condition.Config{Latency: 20 * time.Millisecond}, cfg)
	p.run(3 * time.Second)
	st := p.client.NetStats()
	if st.Backlog == 0 || st.Budget != 48 {
		t.Fatalf("with 200 entities moving on 48 kbit/s: Backlog %d, Budget %d; want some held back, 48", st.Backlog, st.Budget)
	}
	var peers []PeerStats
	p.host.Do(func(*World) { peers = p.host.AppendPeerStats(peers) })
	if len(peers) != 1 || peers[0].Replication.Backlog == 0 || peers[0].Replication.Backlogs == 0 {
		t.Fatalf("the host's figures for the peer: %+v", peers)
	}
	if log.Len() != 0 {
		t.Fatalf("three seconds into it the host's log says:\n%s", log.String())
	}
	p.run(4 * time.Second)
	if n := strings.Count(log.String(), "state budget has been full"); n != 1 || !strings.Contains(log.String(), "held=") || !strings.Contains(log.String(), "kbit/s=48") {
		t.Fatalf("seven seconds into it the host warned %d times:\n%s", n, log.String())
	}
	p.run(4 * time.Second)
	st = p.client.NetStats()
	if st.Backlog != 0 || st.Budget != 0 {
		t.Fatalf("two seconds after the swarm stopped: Backlog %d, Budget %d; want 0, 0", st.Backlog, st.Budget)
	}
	peers = peers[:0]
	p.host.Do(func(*World) { peers = p.host.AppendPeerStats(peers) })
	if got, sent := st.Replication.Backlogs, peers[0].Replication.Backlogs; got != sent {
		t.Fatalf("the client applied %d Backlogs, the host sent %d, on a link that loses none", got, sent)
	}
}
