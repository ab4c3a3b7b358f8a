package tandem

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// drift is a kinematic ship's velocity of the game's own: it builds up
// frame after frame under input, and the host alone kicks it now and then.
type drift struct{ VX float64 }

var driftCodec = replicate.Codec[drift]{
	Name: "drift", Fields: 1,
	Quantize:   func(v *drift, q []int32) { q[0] = int32(math.Round(v.VX * 64)) },
	Dequantize: func(q []int32, v *drift) { v.VX = float64(q[0]) / 64 },
	Equal:      func(a, b *drift) bool { return math.Abs(a.VX-b.VX) <= 2.0/64 },
}

// ships is a world's query of the ships. Each world has its own: an arche
// generic filter keeps the component ids of the first world it queries,
// and a client's ids need not be the host's.
type ships struct {
	q *generic.Filter3[Input[push], ecs.Transform, drift]
}

func addShips(w *World) {
	ecs.AddResource(w.ECS, &ships{q: generic.NewFilter3[Input[push], ecs.Transform, drift]()})
}

// steerShips moves every ship with an Input: the game's step, and its
// replay.
func steerShips(w *World) {
	a := w.ECS.Arche()
	tid, did := w.ECS.IDs.Transform, arche.ComponentID[drift](a)
	dt := time.Second.Seconds() / 60
	q := ecs.Resource[ships](w.ECS).q.Query(a)
	for q.Next() {
		in, t, d := q.Get()
		d.VX += float64(in.Value.X)*40*dt - d.VX*0.5*dt
		t.X += d.VX * dt
		ecs.MutateComponent(w.ECS, q.Entity(), tid)
		ecs.MutateComponent(w.ECS, q.Entity(), did)
	}
}

// kinematicGame is a ship per player, moved by steerShips; the host kicks
// every ship's drift by kick once a second, which no client predicts.
func kinematicGame(kick float64) *Game[push] {
	return &Game[push]{
		Components: []Component{
			Replicate(replicate.TransformCodec(), PredictPose),
			Replicate(driftCodec, HostValue),
		},
		Setup: func(w *World) {
			addShips(w)
			w.Schedule.Add("steer", ecs.SystemFunc(func(*ecs.World) { steerShips(w) }))
			if w.Role != Hosting || kick == 0 {
				return
			}
			w.Schedule.Add("kick", ecs.SystemFunc(func(ew *ecs.World) {
				if ew.Frame()%60 != 30 {
					return
				}
				q := ecs.Resource[ships](ew).q.Query(ew.Arche())
				for q.Next() {
					_, _, d := q.Get()
					d.VX += kick
					ecs.MutateComponent(ew, q.Entity(), arche.ComponentID[drift](ew.Arche()))
				}
			}))
		},
		Input: pushCodec,
		Join: func(w *World, p Peer) error {
			m := generic.NewMap4[ecs.Transform, drift, ecs.NetworkIdentity, Input[push]](w.ECS.Arche())
			m.NewWith(&ecs.Transform{}, &drift{}, &ecs.NetworkIdentity{Owner: p.ID}, &Input[push]{})
			return nil
		},
	}
}

// With ClientConfig.Replay a client predicting a velocity of the game's own
// takes each host kick as one replay and predicts on in step with the host,
// each replayed frame with the input it had; reconciled by correction, the
// host's past drift carried into the present differs at the next state
// again, and it is corrected for the rest of the run. Same link, same
// inputs (turning every 7 frames), same kicks.
func TestReplayReconcilesAValueThatBuildsUp(t *testing.T) {
	turning := func(w *World) push { return push{X: int8(1 - 2*(w.ECS.Frame()/7%2))} }
	stepped := map[ecs.Frame]push{} // the input each frame had when it was stepped
	replayedWith := 0
	inputOf := func(w *World) (push, bool) {
		e, ok := Driven[push](w, w.Peer)
		if !ok {
			return push{}, false
		}
		return (*Input[push])(w.ECS.Arche().Get(e, arche.ComponentID[Input[push]](w.ECS.Arche()))).Value, true
	}
	run := func(replay bool) NetStats {
		cfg := ClientConfig[push]{Input: turning}
		cg := kinematicGame(5)
		if replay {
			cfg.Replay = func(w *World) {
				if in, ok := inputOf(w); ok {
					if want, seen := stepped[w.ECS.Frame()]; seen && in != want {
						t.Errorf("frame %d replayed with %v, stepped with %v", w.ECS.Frame(), in, want)
					}
					replayedWith++
				}
				steerShips(w)
			}
			setup := cg.Setup
			cg.Setup = func(w *World) {
				setup(w)
				w.Schedule.Add("record", ecs.SystemFunc(func(*ecs.World) {
					if in, ok := inputOf(w); ok {
						stepped[w.ECS.Frame()] = in
					}
				}))
			}
		}
		link := condition.Config{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05, Seed: 7}
		p := newPairConfigured(t, kinematicGame(5), cg, link, HostConfig{}, cfg)
		defer p.client.Close()
		p.run(8 * time.Second)
		if !p.client.Joined() {
			t.Fatalf("the client did not join: %v", p.client.Err())
		}
		return p.client.NetStats()
	}
	corrected, replayed := run(false), run(true)
	t.Logf("by correction: %d pose, %d value corrections; by replay: %d pose, %d value corrections, %d replays",
		corrected.Corrections.Count, corrected.Predict.ValueCorrections,
		replayed.Corrections.Count, replayed.Predict.ValueCorrections, replayed.Predict.Replays)
	if replayed.Predict.Replays == 0 || replayedWith < int(replayed.Predict.Replays) {
		t.Fatalf("Replay set: %d replays, %d frames replayed", replayed.Predict.Replays, replayedWith)
	}
	fixes := func(s NetStats) uint64 { return s.Corrections.Count + s.Predict.ValueCorrections }
	if fixes(corrected) < 50 || fixes(replayed) > fixes(corrected)/5 {
		t.Fatalf("corrections %d by correction, %d with Replay: want many, then a fifth of that at most", fixes(corrected), fixes(replayed))
	}
}

// sprite is a component of a client's own (drawing, sound), its arche id
// made before the game's replicated components are registered.
type sprite struct{}

// A client's arche component ids need not be in the host's order: one that
// makes a component of its own and the engine's mark first (in Setup,
// before the game's components are registered) predicts, replays and
// corrects as one whose ids match the host's. Same link, inputs and kicks as
// TestReplayReconcilesAValueThatBuildsUp, by correction and by replay, and
// without the kicks (where a correction is rare at most).
func TestPredictionIgnoresComponentIDOrder(t *testing.T) {
	turning := func(w *World) push { return push{X: int8(1 - 2*(w.ECS.Frame()/7%2))} }
	run := func(shifted, replay, kicks bool) NetStats {
		kick := 0.0
		if kicks {
			kick = 5
		}
		hg, cg := kinematicGame(kick), kinematicGame(kick)
		if shifted {
			setup := cg.Setup
			cg.Setup = func(w *World) {
				a := w.ECS.Arche()
				arche.ComponentID[sprite](a)
				arche.ComponentID[drivenMark](a) // before the game's, where the host makes it after
				setup(w)
			}
		}
		cfg := ClientConfig[push]{Input: turning}
		if replay {
			cfg.Replay = steerShips
		}
		link := condition.Config{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05, Seed: 7}
		p := newPairConfigured(t, hg, cg, link, HostConfig{}, cfg)
		defer p.client.Close()
		ha, ca := p.host.w.ECS.Arche(), p.client.w.ECS.Arche()
		if same := arche.ComponentID[drift](ha) == arche.ComponentID[drift](ca); same == shifted {
			t.Fatalf("shifted %v: drift's id is the host's: %v", shifted, same)
		}
		p.run(8 * time.Second)
		if !p.client.Joined() {
			t.Fatalf("the client did not join: %v", p.client.Err())
		}
		return p.client.NetStats()
	}
	fixes := func(s NetStats) uint64 { return s.Corrections.Count + s.Predict.ValueCorrections }
	near := func(got, want uint64) bool { return got <= want+2+want/10 && want <= got+2+got/10 }
	for _, c := range []struct {
		name          string
		replay, kicks bool
	}{{"correct", false, true}, {"replay", true, true}, {"correct/no kicks", false, false}, {"replay/no kicks", true, false}} {
		t.Run(c.name, func(t *testing.T) {
			same, shifted := run(false, c.replay, c.kicks), run(true, c.replay, c.kicks)
			t.Logf("ids as the host's: %d corrections, %d replays; shifted: %d corrections, %d replays",
				fixes(same), same.Predict.Replays, fixes(shifted), shifted.Predict.Replays)
			if !near(fixes(shifted), fixes(same)) || !near(shifted.Predict.Replays, same.Predict.Replays) {
				t.Errorf("ids in another order: %d corrections, %d replays; in the host's: %d, %d",
					fixes(shifted), shifted.Predict.Replays, fixes(same), same.Predict.Replays)
			}
			if !c.kicks && fixes(same) > 5 {
				t.Errorf("nothing but the client's own input moves the ships, and %d corrections", fixes(same))
			}
		})
	}
}
