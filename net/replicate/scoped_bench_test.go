package replicate

import (
	"math"
	"math/rand/v2"
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// BenchmarkHostReplicateScoped measures the replicator alone (no
// connection) in the world of the session's BenchmarkHostLoad: 100,000 still
// props and 1,000 wandering bodies over 40,000 units square, and 64 peers
// that each own a moving player, so each has a scope of its own (the default
// interest) and is packed in full, acknowledging everything before the next
// step. An op is one step at the default send rate (every other step sends).
func BenchmarkHostReplicateScoped(b *testing.B) {
	b.Run("peers-64/entities-100000", func(b *testing.B) {
		const side, props, bodies, peers = 40_000.0, 100_000, 1000, 64
		rng := rand.New(rand.NewPCG(1, 2))
		w := ecs.NewWorld()
		reg := NewRegistry(w)
		m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
		scatter(&m, rng, props, side)
		var moving []arche.Entity
		for range bodies {
			moving = append(moving, m.NewWith(&ecs.Transform{X: rng.Float64() * side, Y: rng.Float64() * side}, &ecs.Velocity{}, &ecs.NetworkIdentity{}))
		}
		// The players walk as the load test's bots steer them: a steady
		// direction, at most a unit a step.
		var players []arche.Entity
		var dirs [][2]float64
		for i := range peers {
			players = append(players, m.NewWith(&ecs.Transform{X: rng.Float64() * side, Y: rng.Float64() * side}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: ecs.PeerID(i + 1)}))
			dirs = append(dirs, [2]float64{float64(rng.IntN(17)-8) / 8, float64(rng.IntN(17)-8) / 8})
		}
		tf := generic.NewMap[ecs.Transform](w.Arche())
		h := NewHost(reg, HostConfig{})
		s := ecs.NewSchedule(w, nil, 0)
		s.Add("move", ecs.SystemFunc(func(w *ecs.World) {
			wander(w, tf, moving)
			for i, e := range players {
				t := tf.Get(e)
				t.X = min(max(t.X+dirs[i][0], 0), side)
				t.Y = min(max(t.Y+dirs[i][1], 0), side)
				ecs.MutateComponent(w, e, w.IDs.Transform)
			}
		}))
		s.Add("replicate", h)
		step := ackingPeers(h, s, peers)
		for h.Peer(peers).Joining() {
			step()
		}
		for range 600 {
			step()
		}
		measureSteps(b, h, step)
	})
}

// wander moves each of ents a step of its wander (triangle waves of its
// own phase, up to 3 units along each axis) and reports it.
func wander(w *ecs.World, tf generic.Map[ecs.Transform], ents []arche.Entity) {
	for i, e := range ents {
		t := tf.Get(e)
		a := float64(i) + float64(w.Frame())/120
		t.X += 3 * triangle(a)
		t.Y += 3 * triangle(a+1.5)
		ecs.MutateComponent(w, e, w.IDs.Transform)
	}
}

// triangle is a cheap periodic wander: a triangle wave in [-1, 1].
func triangle(a float64) float64 {
	x := a/6.283185307179586 - float64(int(a/6.283185307179586))
	if x < 0 {
		x++
	}
	return 4*math.Abs(x-0.5) - 1
}
