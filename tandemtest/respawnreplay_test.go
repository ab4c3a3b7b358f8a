package tandemtest_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// respawnX is where respawners make a player's new figure: far from the
// old, so the new one is told by its place.
const respawnX = 1000

// respawners is walkers (two units a step) whose host removes peer 1's
// figure at frame *at and makes her a new one at respawnX in the same
// step (a death and a respawn), and logs, by frame, where it has the new
// one at the end of each step.
func respawners(at *ecs.Frame, log map[ecs.Frame]float64) *tandem.Game[Walk] {
	g := *walkers
	g.Setup = func(w *tandem.World) {
		w.Schedule.Add("walk", ecs.SystemFunc(walkFigures))
		if w.Role == tandem.Joined {
			return
		}
		figures := generic.NewMap3[ecs.Transform, ecs.NetworkIdentity, tandem.Input[Walk]](w.ECS.Arche())
		w.Schedule.Add("respawn", ecs.SystemFunc(func(ew *ecs.World) {
			if ew.Frame() == *at {
				for _, e := range append([]arche.Entity(nil), ew.Owned(1)...) {
					ew.Arche().RemoveEntity(e)
				}
				figures.NewWith(&ecs.Transform{X: respawnX}, &ecs.NetworkIdentity{Owner: 1}, &tandem.Input[Walk]{})
			}
			for _, e := range ew.Owned(1) {
				if x := ecs.Get[ecs.Transform](ew, e).X; x >= respawnX {
					log[ew.Frame()] = x
				}
			}
		}))
	}
	return &g
}

// walkFigures walks every figure with Input two units a step its way: the
// game's system, and its replay.
func walkFigures(ew *ecs.World) {
	q := generic.NewFilter2[tandem.Input[Walk], ecs.Transform]().Query(ew.Arche())
	var moved []arche.Entity
	for q.Next() {
		in, pose := q.Get()
		if in.Value.X != 0 {
			pose.X += 2 * float64(in.Value.X)
			moved = append(moved, q.Entity())
		}
	}
	for _, e := range moved {
		ecs.MutateComponent(ew, e, ew.IDs.Transform)
	}
}

// A player walking on while the host removes her figure and makes her a
// new one (a respawn) predicts the new one, with ClientConfig.Replay, from
// the frame the host made it: the client replays from there with the
// inputs it gave since, so from its first frame it has the figure where the
// host has it at that frame, and draws it there. (It started where the
// host made it, the round trip and the lead behind, 20 units at 50 ms each
// way, 36 at 100, walking that far behind until the host's state of its
// first frame came back and corrected it.)
//
// Without Replay the client cannot step the figure through those frames:
// it records it, as it arrived, in them, and each of the host's states of
// them corrects it by what the host moved it since, so it catches up over
// the round trip at most a walk's step a frame faster than it walks. (It
// walked that far behind for a round trip, then was corrected by all of it
// at once, drawn moving 6 to 9 units in a frame.)
func TestARespawnedFigureIsPredictedFromItsMaking(t *testing.T) {
	for _, lat := range []time.Duration{50 * time.Millisecond, 100 * time.Millisecond} {
		t.Run(fmt.Sprint(lat), func(t *testing.T) { respawnReplayed(t, lat, false) })
		t.Run(fmt.Sprint(lat, " replayed by the Game"), func(t *testing.T) { respawnReplayed(t, lat, true) })
		t.Run(fmt.Sprint(lat, " correcting"), func(t *testing.T) { respawnCorrected(t, lat) })
	}
}

// respawnCorrected is the respawn of TestARespawnedFigureIsPredictedFromItsMaking
// on a client without Replay.
func respawnCorrected(t *testing.T, lat time.Duration) {
	var at ecs.Frame
	link := condition.Config{Latency: lat}
	r := tandemtest.New(t, respawners(&at, map[ecs.Frame]float64{}), tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	ann.SetInput(Walk{X: 1})
	r.Step(60)
	r.Host.Do(func(w *tandem.World) { at = w.ECS.Frame() + 10 })
	var drawn []float64
	for range 120 {
		r.Step(1)
		ann.View(r.Clock.Now(), func(v *tandem.View) {
			for _, e := range v.World.ECS.Owned(1) {
				if p, ok := v.Pose(e); ok && p.X >= respawnX {
					drawn = append(drawn, p.X)
				}
			}
		})
	}
	if len(drawn) < 60 {
		t.Fatalf("ann's new figure drawn %d frames", len(drawn))
	}
	worst := 0.0
	for i := 1; i < len(drawn); i++ {
		step := drawn[i] - drawn[i-1]
		if step < 0 {
			t.Fatalf("the new figure was drawn going back %.1f units at its drawn frame %d", -step, i)
		}
		worst = max(worst, step)
	}
	if worst > 4.5 || ann.NetStats().Predict.Adopted != 1 {
		t.Fatalf("the new figure, walking 2 units a frame, was drawn moving up to %.1f units in a frame (adopted %d): caught up at once, not a state at a time", worst, ann.NetStats().Predict.Adopted)
	}
}

// respawnReplayed is the respawn of TestARespawnedFigureIsPredictedFromItsMaking
// on a client with Replay: its ClientConfig's, or the Game's (byGame).
func respawnReplayed(t *testing.T, lat time.Duration, byGame bool) {
	var at ecs.Frame
	hostLog := map[ecs.Frame]float64{}
	link := condition.Config{Latency: lat}
	replay := func(w *tandem.World) { walkFigures(w.ECS) }
	g := respawners(&at, hostLog)
	var cfg tandem.ClientConfig[Walk]
	if byGame {
		g.Replay = replay
	} else {
		cfg.Replay = replay
	}
	r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", cfg)
	if ann.Peer() != 1 {
		t.Fatalf("ann is peer %d", ann.Peer())
	}
	ann.SetInput(Walk{X: 1})
	r.Step(60)
	r.Host.Do(func(w *tandem.World) { at = w.ECS.Frame() + 10 })
	clientLog := map[ecs.Frame]float64{}
	firstDrawn := -1.0
	var first ecs.Frame
	for range 120 {
		r.Step(1)
		ann.View(r.Clock.Now(), func(v *tandem.View) {
			w := v.World.ECS
			for _, e := range w.Owned(1) {
				x := ecs.Get[ecs.Transform](w, e).X
				if x < respawnX {
					continue
				}
				clientLog[w.Frame()] = x
				if first == 0 {
					first = w.Frame()
					p, _ := v.Pose(e)
					firstDrawn = p.X
				}
			}
		})
	}
	if first == 0 {
		t.Fatal("ann never had her new figure")
	}
	worst, compared := 0.0, 0
	for f, x := range clientLog {
		if hx, ok := hostLog[f]; ok {
			worst = max(worst, math.Abs(x-hx))
			compared++
		}
	}
	if compared < 60 {
		t.Fatalf("compared %d frames", compared)
	}
	st := ann.NetStats().Predict
	if worst > 0 || st.Adopted != 1 {
		t.Fatalf("ann's new figure, made at host frame %d, was first hers at frame %d, at x = %.0f where the host had it at %.0f; over %d frames she had it up to %.0f units from the host's at the same frame (adopted %d, not %d)",
			at, first, clientLog[first], hostLog[first], compared, worst, st.Adopted, st.NotAdopted)
	}
	if d := math.Abs(firstDrawn - clientLog[first]); d > 2 {
		t.Fatalf("the new figure was first drawn at x = %.1f, %.1f units from where ann had it (%.0f): drawn sliding from where the host made it", firstDrawn, d, clientLog[first])
	}
}
