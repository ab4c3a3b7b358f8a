package tandemtest_test

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/physics"
)

// A crate the client predicts (ecs.Predicted) that the host knocks away, a
// knock the client cannot foresee, is put on the host's state carried
// forward as the host's steps slow it (its ground friction), once, where
// the host has it, not in a straight line past it.
func TestAPredictedCrateTheHostKnocksIsPutWhereItSlides(t *testing.T) {
	for _, lat := range []time.Duration{50 * time.Millisecond, 100 * time.Millisecond} {
		var knockAt ecs.Frame
		hostX := map[ecs.Frame]float64{}
		g := knockedCrate(tandem.NetPhysics{}, slowing, &knockAt, ecs.Velocity{X: 500}, hostX)
		arrived := g.Arrived
		g.Arrived = func(w *tandem.World, e arche.Entity) {
			arrived(w, e)
			if id, _ := w.ECS.Identity(e); id.Owner == ecs.HostPeer {
				w.ECS.Arche().Add(e, w.ECS.IDs.Predicted)
			}
		}
		r, ann := crateRigOver(t, g, lat)
		annX := knockAndTrace(r, ann, &knockAt, 150)
		corrected := ann.Stats().Bodies.Corrected
		past, compared, far, moved := 0.0, 0, 0, false
		for f, x := range annX {
			hx, ok := hostX[f]
			if !ok || f <= knockAt {
				continue
			}
			if x > 1101 {
				moved = true
			}
			if x > 1101 || f > knockAt+60 {
				compared++
				past = max(past, math.Abs(x-hx))
				if math.Abs(x-hx) > 1 {
					far++
				}
			}
		}
		t.Logf("%v each way: %d corrections; ann's crate up to %.1f units from the host's, %d of %d frames over a unit", lat, corrected, past, far, compared)
		if !moved || compared < 60 || hostX[knockAt+60] < 1200 {
			t.Fatalf("%v: ann's crate moved %v, %d frames compared; the host's crate at %.0f a second after the knock", lat, moved, compared, hostX[knockAt+60])
		}
		if far > 0 || corrected > 2 {
			t.Errorf("%v each way: ann's predicted crate, knocked by the host, was off where the host had it in %d frames, up to %.1f units, corrected %d times", lat, far, past, corrected)
		}
	}
}

// A crate the client predicts, that its physics slows more than the host's
// (another ground friction: a game whose client and host disagree), stops
// short of where the host's rests after the host knocks it; once both have
// rested half a second, it is put where the host's is. (The host's state
// that stopped it, its velocity zero as the client's already was, was not
// told from the client's own value: the host's moving velocity stayed the
// newest, and the crate rested 5.5 units off for good.)
func TestAPredictedCrateRestsWhereTheHostsRests(t *testing.T) {
	var knockAt ecs.Frame
	hostX := map[ecs.Frame]float64{}
	g := knockedCrate(tandem.NetPhysics{}, slowing, &knockAt, ecs.Velocity{X: 500}, hostX)
	arrived := g.Arrived
	g.Arrived = func(w *tandem.World, e arche.Entity) {
		if id, _ := w.ECS.Identity(e); id.Owner == ecs.HostPeer {
			w.Physics.AttachBox(e, 40, 20, 2, physics.Material{Mass: 4, Velocity: physics.GroundFriction(450)})
			w.ECS.Arche().Add(e, w.ECS.IDs.Predicted)
			return
		}
		arrived(w, e)
	}
	r, ann := crateRigOver(t, g, 50*time.Millisecond)
	var id ecs.NetID
	r.Host.Do(func(w *tandem.World) { _, id = hostsOwn(w) })
	r.Step(30)
	r.Host.Do(func(w *tandem.World) { knockAt = w.ECS.Frame() + 1 })
	annX := func() (x float64) {
		ann.Do(func(w *tandem.World) {
			e, _ := w.ECS.EntityOf(id)
			x = w.Physics.BodyOf(e).Position().X
		})
		return x
	}
	off := 0.0
	r.Step(150) // both stopped: the host's crate 1.7 s after the knock
	for range 90 {
		r.Step(1)
		off = max(off, math.Abs(annX()-hostX[knockAt+150]))
	}
	rested := hostX[knockAt+238]
	t.Logf("the host's crate rested at %.1f; ann's at %.1f, up to %.1f off in the last 1.5 s; %d corrections", rested, annX(), off, ann.Stats().Bodies.Corrected)
	if rested < 1400 || rested != hostX[knockAt+150] {
		t.Fatalf("the host's crate at %.1f 2.5 s after the knock, %.1f a second before", rested, hostX[knockAt+150])
	}
	if math.Abs(annX()-rested) > 0.5 {
		t.Errorf("ann's predicted crate rests at %.1f, the host's at %.1f, 4 s after the knock", annX(), rested)
	}
}
