package tandemtest_test

import (
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// carAndGlider is the cars game with a crate of the host's gliding along x
// far away, forever (no friction, no damping).
var carAndGlider = &tandem.Game[Pedal]{
	Physics:    cars.Physics,
	Components: cars.Components,
	Input:      pedalCodec,
	Setup: func(w *tandem.World) {
		cars.Setup(w)
		if w.Role == tandem.Joined || w.Restoring {
			return
		}
		m := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated](w.ECS.Arche())
		p := ecs.Transform{X: -3000, Y: -3000}
		e := m.NewWith(&p, &ecs.Velocity{X: 120}, &ecs.NetworkIdentity{Owner: ecs.HostPeer}, &ecs.Interpolated{Prev: p})
		w.Physics.AttachBox(e, 40, 20, 2, carBody)
	},
	Join:    cars.Join,
	Arrived: cars.Arrived,
}

// gliderX is the Transform x of the client's remote entities (the glider).
func gliderX(w *tandem.World, me ecs.PeerID) (x float64) {
	q := generic.NewFilter2[ecs.NetworkIdentity, ecs.Transform]().Query(w.ECS.Arche())
	for q.Next() {
		id, t := q.Get()
		if id.Owner != me {
			x = t.X
		}
	}
	return x
}

// Between steps a remote entity's Transform holds the host's newest state,
// which the game's systems read (netphys.go); so it does between a replay's
// steps: each call of the game's Replay sees the same host state. (The
// replayed physics step left the body's pose, carried forward and stepped,
// in the Transform the next frame's Replay read.)
func TestAReplaySeesRemoteEntitiesAtTheHostsState(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		var ann *tandem.Client[Pedal]
		var seen []float64
		replay := func(w *tandem.World) {
			seen = append(seen, gliderX(w, ann.Peer()))
			drive(w)
		}
		link := condition.Config{Latency: 100 * time.Millisecond}
		r := tandemtest.New(t, carAndGlider, tandem.HostConfig{}, tandemtest.Config{Bubble: true, Link: mem.Config{ToHost: link, ToClient: link}})
		ann = r.JoinOver("ann", tandem.ClientConfig[Pedal]{Replay: replay}, link, link)
		r.Step(60)
		r.Host.Do(func(w *tandem.World) {
			e := w.ECS.Owned(ann.Peer())[0]
			w.Physics.SetVelocity(e, ecs.Velocity{Y: 120})
		})
		for range 60 {
			seen = seen[:0]
			var host float64
			ann.Do(func(w *tandem.World) { host = gliderX(w, ann.Peer()) })
			r.Step(1)
			if len(seen) < 2 {
				continue
			}
			for i, x := range seen {
				if x != seen[0] {
					t.Fatalf("one replay of %d frames saw the remote glider's Transform x at %.2f in its first frame and %.2f in frame %d (the host's newest, between steps: %.2f)", len(seen), seen[0], x, i+1, host)
				}
			}
			return
		}
		t.Fatal("no replay")
	})
}
