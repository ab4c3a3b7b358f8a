package tandem

import (
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// A value only the host changes on a client's own entity (a lap count) is
// taken as it comes: with HostOnly each change reaches the client and
// counts as a host update, none as a correction, and with Replay set asks
// for no replay; the same component as HostValue counts each change as a
// correction, and replays from it.
func TestHostOnlyValuesAreNoCorrections(t *testing.T) {
	for _, c := range []struct {
		p      Prediction
		replay bool
	}{{HostOnly, false}, {HostValue, false}, {HostOnly, true}, {HostValue, true}} {
		name := c.p.String()
		if c.replay {
			name += "/replay"
		}
		t.Run(name, func(t *testing.T) {
			g := testGame()
			g.Components[2] = Replicate(labelCodec, c.p)
			var cc ClientConfig[push]
			if c.replay {
				cc.Replay = func(*World) {} // nothing moves while the player stands
			}
			pr := newPairConfigured(t, g, g, condition.Config{Latency: 40 * time.Millisecond}, HostConfig{}, cc)
			pr.run(time.Second)
			e, ok := pr.client.Local()
			if !ok {
				t.Fatal("the client has no disc")
			}
			before := pr.client.NetStats().Predict
			for lap := int32(2); lap <= 6; lap++ {
				pr.setLap(lap)
				pr.run(time.Second / 2)
				var got int32
				pr.client.Do(func(w *World) { got = (*label)(w.ECS.Arche().Get(e, arche.ComponentID[label](w.ECS.Arche()))).N })
				if got != lap {
					t.Fatalf("lap %d reached the client as %d", lap, got)
				}
			}
			st := pr.client.NetStats().Predict
			updates, values, all := st.HostUpdates-before.HostUpdates, st.ValueCorrections-before.ValueCorrections, st.Corrections-before.Corrections
			replays := st.Replays - before.Replays
			switch {
			case c.p == HostOnly && (updates != 5 || values != 0 || all != 0 || replays != 0):
				t.Fatalf("5 laps as HostOnly: %d host updates, %d value corrections, %d corrections, %d replays; want 5, 0, 0, 0", updates, values, all, replays)
			case c.p == HostValue && (updates != 0 || values != 5):
				t.Fatalf("5 laps as HostValue: %d host updates, %d value corrections; want 0, 5", updates, values)
			case c.p == HostValue && c.replay && replays < 5:
				t.Fatalf("5 laps as HostValue with Replay: %d replays, want one a lap", replays)
			}
		})
	}
}

// A value only the host changes (a lap count) never goes back on its
// owner's client: a replay from a frame after the host's change (the host
// moved the player a little later) puts it back as the host has it. It
// put back the value recorded at that frame, before the change reached the
// client: the lap went back until the next state, and that state counted
// the same lap again (a racing trial saw its own lap count go back 15
// times in 45 s).
func TestAHostOnlyValueNeverGoesBackInAReplay(t *testing.T) {
	g := testGame()
	g.Components[2] = Replicate(labelCodec, HostOnly)
	cg := testGame()
	cg.Components[2] = Replicate(labelCodec, HostOnly)
	var seen []int32 // the client's lap at the end of each step
	setup := cg.Setup
	cg.Setup = func(w *World) {
		setup(w)
		laps := generic.NewFilter1[label]()
		w.Schedule.AddTo(ecs.StageOutput, "lap", ecs.SystemFunc(func(ew *ecs.World) {
			q := laps.Query(ew.Arche()) // the player's disc alone
			for q.Next() {
				seen = append(seen, q.Get().N)
			}
		}))
	}
	cc := ClientConfig[push]{Replay: func(*World) {}}
	pr := newPairConfigured(t, g, cg, condition.Config{Latency: 40 * time.Millisecond}, HostConfig{}, cc)
	pr.run(time.Second)
	before := pr.client.NetStats().Predict
	for lap := int32(2); lap <= 4; lap++ {
		pr.setLap(lap)
		pr.run(50 * time.Millisecond)
		pr.host.Do(func(w *World) {
			he := w.ECS.Owned(pr.client.Peer())[0]
			w.Physics.SetVelocity(he, ecs.Velocity{X: 30 * float64(lap)})
		})
		pr.run(time.Second)
	}
	st := pr.client.NetStats().Predict
	back := 0
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			back++
		}
	}
	t.Logf("3 laps: %d host updates, %d replays, the lap went back %d times in %d steps", st.HostUpdates-before.HostUpdates, st.Replays-before.Replays, back, len(seen))
	if st.Replays == before.Replays {
		t.Fatal("the host's moves made no replay: the test shows nothing")
	}
	if back > 0 || seen[len(seen)-1] != 4 || st.HostUpdates-before.HostUpdates != 3 {
		t.Errorf("the lap went back %d times and ended at %d, with %d host updates; want never, 4 and 3", back, seen[len(seen)-1], st.HostUpdates-before.HostUpdates)
	}
}

// setLap sets the label of the client's player to lap on the host.
func (pr *pairOf[I]) setLap(lap int32) {
	pr.host.Do(func(w *World) {
		hw := w.ECS
		he := hw.Owned(pr.client.Peer())[0]
		id := arche.ComponentID[label](hw.Arche())
		(*label)(hw.Arche().Get(he, id)).N = lap
		ecs.MutateComponent(hw, he, id)
	})
}
