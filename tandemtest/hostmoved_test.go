package tandemtest_test

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// Unit marks a strategy game's unit: its player owns it, the host alone
// walks it.
type Unit struct{}

// units is walkers where each player is also given a unit at x = 100 that
// the host walks 3 units a frame; with mark set, the host marks the units
// HostMoved where it makes them and each client in Arrived.
func units(mark bool) *tandem.Game[Walk] { return army(mark, 1) }

// army is units with n units a player, the k-th at y = k.
func army(mark bool, n int) *tandem.Game[Walk] { return resting(mark, n, nil) }

// resting is army whose units stand still while still, if set, says so.
func resting(mark bool, n int, still func(ecs.Frame) bool) *tandem.Game[Walk] {
	return drilled(mark, n, 1, func(f ecs.Frame, t *ecs.Transform) bool {
		if still != nil && still(f) {
			return false
		}
		t.X += 3
		return true
	})
}

// drilled is walkers where each player is also given n units, the k-th at
// x = 100, y = gap·k, that the host moves by move at each frame (false:
// left as it was); with mark set, the host marks the units HostMoved where
// it makes them and each client in Arrived.
func drilled(mark bool, n int, gap float64, move func(f ecs.Frame, t *ecs.Transform) bool) *tandem.Game[Walk] {
	g := *walkers
	g.Join = func(w *tandem.World, p tandem.Peer) error {
		if err := walkers.Join(w, p); err != nil {
			return err
		}
		m := generic.NewMap3[ecs.Transform, ecs.NetworkIdentity, Unit](w.ECS.Arche())
		for k := range n {
			e := m.NewWith(&ecs.Transform{X: 100, Y: gap * float64(k)}, &ecs.NetworkIdentity{Owner: p.ID}, &Unit{})
			if mark {
				w.ECS.Arche().Add(e, w.ECS.IDs.HostMoved) // and on the host, where it is made
			}
		}
		return nil
	}
	g.Setup = func(w *tandem.World) {
		walkers.Setup(w)
		if w.Role == tandem.Joined {
			return
		}
		walk := generic.NewFilter2[ecs.Transform, Unit]()
		w.Schedule.Add("units", ecs.SystemFunc(func(ew *ecs.World) {
			q := walk.Query(ew.Arche())
			var moved []arche.Entity
			for q.Next() {
				if t, _ := q.Get(); move(ew.Frame(), t) {
					moved = append(moved, q.Entity())
				}
			}
			for _, e := range moved {
				ecs.MutateComponent(ew, e, ew.IDs.Transform)
			}
		}))
	}
	g.Arrived = func(w *tandem.World, e arche.Entity) {
		a := w.ECS.Arche()
		if mark && !a.Has(e, arche.ComponentID[tandem.Input[Walk]](a)) {
			a.Add(e, w.ECS.IDs.HostMoved) // an entity no one drives: a unit, whoever owns it
		}
	}
	return &g
}

// A unit its player owns and the host alone walks, marked HostMoved on the
// player's client, is drawn there as the other players draw it, from the
// host's states, where the host had it at the drawn time, and is never
// corrected; unmarked, the client predicts it standing still and corrects
// it at every state.
func TestAUnitTheHostMovesIsDrawnFromItsStates(t *testing.T) {
	link := condition.Config{Latency: 40 * time.Millisecond}
	for _, mark := range []bool{true, false} {
		r := tandemtest.New(t, units(mark), tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		before := ann.NetStats().Predict.PoseCorrections
		worst := 0.0
		drawn := 0
		for range 120 {
			r.Step(1)
			ann.View(r.Clock.Now(), func(v *tandem.View) {
				a := v.World.ECS.Arche()
				for _, e := range v.World.ECS.Owned(ann.Peer()) {
					if a.Has(e, arche.ComponentID[tandem.Input[Walk]](a)) {
						continue // her figure
					}
					p, ok := v.Pose(e)
					if !ok {
						t.Fatal("ann does not draw her unit")
					}
					if !v.Interpolator().Remote(e) {
						continue // predicted
					}
					rf := v.Interpolator().Stats().RenderFrame
					worst = max(worst, math.Abs(p.X-unitAt(r, ann, rf)))
					drawn++
				}
			})
		}
		corrections := ann.NetStats().Predict.PoseCorrections - before
		switch {
		case mark && (drawn < 100 || corrections != 0 || worst > 0.5):
			t.Fatalf("marked HostMoved: drawn from states %d times, %d pose corrections, up to %.2f units from where the host had it", drawn, corrections, worst)
		case !mark && (drawn != 0 || corrections < 30):
			t.Fatalf("unmarked: drawn from states %d times (want 0: predicted), %d pose corrections (want many)", drawn, corrections)
		}
		t.Logf("HostMoved %v: drawn from states %d times, %d pose corrections, up to %.2f units off", mark, drawn, corrections, worst)
	}
}

// unitAt returns where the host had peer c's unit at host frame f: 3 units
// a frame on from where it is now.
func unitAt(r *tandemtest.Rig[Walk], c *tandem.Client[Walk], f float64) (x float64) {
	r.Host.Do(func(w *tandem.World) {
		a := w.ECS.Arche()
		for _, e := range w.ECS.Owned(c.Peer()) {
			if a.Has(e, arche.ComponentID[Unit](a)) {
				x = (*ecs.Transform)(a.Get(e, w.ECS.IDs.Transform)).X - 3*(float64(w.ECS.Frame())-f)
			}
		}
	})
	return x
}

// A client whose only moving entities are its own units, marked HostMoved,
// gets their states in States, as others' entities' come: its
// NetStats.HostFrame follows them: the order's effect comes in a state of
// the receipt's frame or later, so not before HostFrame reaches it (a game
// waits for the change itself: another client's copy of the units may come
// a send tick or more later).
func TestHostFrameFollowsHostMovedUnits(t *testing.T) {
	link := condition.Config{Latency: 30 * time.Millisecond}
	r := tandemtest.New(t, units(true), tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	r.Step(60)
	start := ann.NetStats().HostFrame
	r.Step(120)
	var host ecs.Frame
	r.Host.Do(func(w *tandem.World) { host = w.ECS.Frame() })
	got := ann.NetStats().HostFrame
	// Two 30 ms legs and a send interval: the newest state is a few frames old.
	if got < start+100 || got > host || host-got > 10 {
		t.Fatalf("HostFrame %d (%d 120 frames before), the host's frame %d: want it following the unit's states, within 10 frames", got, start, host)
	}
}

// A player's unit marked HostMoved, drawn from its states, is drawn forward
// through a resume, never back where it was made: between the resume (which
// forgets what was drawn) and the unit's first state of the new connection
// it is drawn at its newest received pose, not blended from a Prev that no
// step of the client keeps for it.
func TestAHostMovedUnitIsNotDrawnBackAtAResume(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		link := condition.Config{Latency: 50 * time.Millisecond}
		r := tandemtest.New(t, units(true), tandem.HostConfig{}, tandemtest.Config{Bubble: true, Link: mem.Config{ToHost: link, ToClient: link}})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		r.Step(60)
		furthest, back, drawn := 0.0, 0.0, 0
		draw := func() {
			ann.View(r.Clock.Now(), func(v *tandem.View) {
				a := v.World.ECS.Arche()
				for _, e := range v.World.ECS.Owned(ann.Peer()) {
					if !a.Has(e, v.World.ECS.IDs.HostMoved) {
						continue
					}
					if p, ok := v.Pose(e); ok {
						drawn++
						back = max(back, furthest-p.X)
						furthest = max(furthest, p.X)
					}
				}
			})
		}
		for range 30 {
			r.Step(1)
			draw()
		}
		first := r.Conn(ann)
		r.Cut(ann)
		resumed := false
		for i := 0; i < 60*60 && !resumed; i++ {
			r.Step(1)
			draw()
			resumed = r.Conn(ann) != first && ann.State() == tandem.Playing
		}
		if !resumed {
			t.Fatalf("ann did not resume: %v (%v)", ann.State(), ann.Err())
		}
		for range 60 {
			r.Step(1)
			draw()
		}
		// The unit walks 3 units a frame: extrapolation while states stop
		// may draw it a few frames ahead, then back (MaxExtrapolation).
		if drawn == 0 || back > 20 {
			t.Fatalf("the unit was drawn %.1f units back of where it had been drawn (furthest x %.1f, %d poses drawn)", back, furthest, drawn)
		}
		// Its States after the resume are coded against the join's page of
		// it, which the client keeps though it owns the unit. (It did not:
		// every State of it missed its baseline, and a trial's client with
		// an army of such units was dropped as malformed.)
		if st := ann.NetStats(); st.State != tandem.Playing || st.Replication.DeltaMisses != 0 || st.Replication.Malformed != 0 {
			t.Fatalf("after the resume: %v, %d states coded against what ann did not hold, %d malformed", st.State, st.Replication.DeltaMisses, st.Replication.Malformed)
		}
		var x float64
		ann.Do(func(w *tandem.World) {
			a := w.ECS.Arche()
			for _, e := range w.ECS.Owned(ann.Peer()) {
				if a.Has(e, w.ECS.IDs.HostMoved) {
					x = ecs.Get[ecs.Transform](w.ECS, e).X
				}
			}
		})
		if host := unitAt(r, ann, float64(ann.NetStats().HostFrame)); x != host {
			t.Fatalf("after the resume ann holds her unit at x = %.1f, the host had it at %.1f at the frame of her newest state", x, host)
		}
	})
}
