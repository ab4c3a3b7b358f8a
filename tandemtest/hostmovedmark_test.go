package tandemtest_test

import (
	"math"
	"sync/atomic"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// hostOnly is the units game with its units marked HostMoved on the host
// and not on the client (which would predict them): a game that marks
// them on one side.
func hostOnly() *tandem.Game[Walk] {
	g := units(true)
	g.Arrived = nil // the client leaves its units unmarked
	return g
}

// ownUnit returns peer's unit in w: its entity no Input drives.
func ownUnit(w *tandem.World, peer ecs.PeerID) (arche.Entity, bool) {
	a := w.ECS.Arche()
	for _, e := range w.ECS.Owned(peer) {
		if !a.Has(e, arche.ComponentID[tandem.Input[Walk]](a)) {
			return e, true
		}
	}
	return arche.Entity{}, false
}

// A unit only the host marks HostMoved (a game that marks it on one side)
// comes to its owner in States: the first marks it on the client too, and
// the client draws it from the host's states since, where the host had it,
// never corrected. (It was written straight into the entity the client
// predicted, which ran it on from each state.)
func TestAUnitOnlyTheHostMarksIsMarkedByItsStates(t *testing.T) {
	link := condition.Config{Latency: 40 * time.Millisecond}
	r := tandemtest.New(t, hostOnly(), tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	r.Step(30)
	before := ann.NetStats().Predict.PoseCorrections
	worst, drawn := 0.0, 0
	for range 90 {
		r.Step(1)
		ann.View(r.Clock.Now(), func(v *tandem.View) {
			e, ok := ownUnit(v.World, ann.Peer())
			if !ok || !v.Interpolator().Remote(e) {
				return
			}
			if p, ok := v.Pose(e); ok {
				worst = max(worst, math.Abs(p.X-unitAt(r, ann, v.Interpolator().Stats().RenderFrame)))
				drawn++
			}
		})
	}
	st := ann.NetStats()
	if st.Replication.MarkedByHost != 1 || drawn != 90 || worst > 0.5 || st.Predict.PoseCorrections != before {
		t.Fatalf("%d units marked by the host's States (want 1); drawn from states %d of 90 frames, up to %.2f units from where the host had it; %d pose corrections",
			st.Replication.MarkedByHost, drawn, worst, st.Predict.PoseCorrections-before)
	}
}

// A unit the player takes over (the mark goes on both sides) while it
// stands still is drawn as what the client predicts from then on, not from
// its old states: the Observer hears that the unit drawn from its States
// is predicted again. (Only an AuthState's state told it so, and the host
// no longer sends such a unit in any: it was drawn frozen.)
func TestAUnitTakenOverIsDrawnPredicted(t *testing.T) {
	var still atomic.Bool
	link := condition.Config{Latency: 40 * time.Millisecond}
	g := resting(true, 1, func(ecs.Frame) bool { return still.Load() })
	r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	r.Step(90)
	still.Store(true)
	r.Step(60) // the unit's last States arrive; none follows
	remote := func() (remote, ok bool) {
		ann.View(r.Clock.Now(), func(v *tandem.View) {
			var e arche.Entity
			if e, ok = ownUnit(v.World, ann.Peer()); ok {
				remote = v.Interpolator().Remote(e)
			}
		})
		return
	}
	if rm, ok := remote(); !ok || !rm {
		t.Fatalf("setup: ann's HostMoved unit should be drawn from states (found %v, Remote %v)", ok, rm)
	}
	// The player takes the unit over: the mark goes on both sides.
	ann.Do(func(w *tandem.World) {
		if e, ok := ownUnit(w, ann.Peer()); ok {
			w.ECS.Arche().Remove(e, w.ECS.IDs.HostMoved)
		}
	})
	r.Host.Do(func(w *tandem.World) {
		if e, ok := ownUnit(w, ann.Peer()); ok {
			w.ECS.Arche().Remove(e, w.ECS.IDs.HostMoved)
		}
	})
	r.Step(120)
	if rm, _ := remote(); rm {
		t.Fatalf("unmarked on both sides and predicted for 120 frames, ann's unit is still drawn from its old states (Interpolator.Remote): the Observer was never told (unmarked found no markMoved)")
	}
}

// A player takes a walking unit over on her client first, and the host
// takes its mark away a moment later: the States that still come meanwhile
// do not mark it again on her client, which predicts it from then on.
func TestAUnitTakenOverOnTheClientFirstStaysHers(t *testing.T) {
	link := condition.Config{Latency: 40 * time.Millisecond}
	r := tandemtest.New(t, units(true), tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	r.Step(90)
	unmark := func(w *tandem.World) {
		if e, ok := ownUnit(w, ann.Peer()); ok {
			w.ECS.Arche().Remove(e, w.ECS.IDs.HostMoved)
		}
	}
	ann.Do(unmark)
	r.Step(30) // the host still marks it, and sends it in States
	r.Host.Do(unmark)
	r.Step(60)
	marked, remote := false, false
	ann.View(r.Clock.Now(), func(v *tandem.View) {
		if e, ok := ownUnit(v.World, ann.Peer()); ok {
			marked = v.World.ECS.Arche().Has(e, v.World.ECS.IDs.HostMoved)
			remote = v.Interpolator().Remote(e)
		}
	})
	if marked || remote || ann.NetStats().Replication.MarkedByHost != 0 {
		t.Fatalf("ann took her unit over: marked HostMoved again %v (MarkedByHost %d), drawn from states %v", marked, ann.NetStats().Replication.MarkedByHost, remote)
	}
}

// A game that marks its units on the host only keeps its client through a
// resume: the rejoin's page of a unit is its baseline. (A client that did
// not mark it forgot the page, and each State of it missed its baseline:
// malformed, the client dropped.)
func TestAUnitOnlyTheHostMarksSurvivesAResume(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		link := condition.Config{Latency: 50 * time.Millisecond}
		r := tandemtest.New(t, hostOnly(), tandem.HostConfig{}, tandemtest.Config{Bubble: true, Link: mem.Config{ToHost: link, ToClient: link}})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		r.Step(90)
		first := r.Conn(ann)
		r.Cut(ann)
		resumed := false
		for i := 0; i < 60*60 && !resumed; i++ {
			r.Step(1)
			resumed = r.Conn(ann) != first && ann.State() == tandem.Playing
		}
		if !resumed {
			t.Fatalf("ann did not resume: %v (%v)", ann.State(), ann.Err())
		}
		r.Step(60)
		st := ann.NetStats()
		if st.State != tandem.Playing || st.Replication.DeltaMisses != 0 || st.Replication.Malformed != 0 {
			t.Fatalf("after the resume: %v, %d states of ann's unit coded against what she did not keep, %d malformed", st.State, st.Replication.DeltaMisses, st.Replication.Malformed)
		}
	})
}
