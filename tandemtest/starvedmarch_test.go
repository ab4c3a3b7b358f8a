package tandemtest_test

import (
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// marchers is walkers with velocities on the wire, where each player is
// also given n units (HostMoved on both sides) in a column along y that
// stand until frame start, then walk along x at 2 units a frame, each with
// its Velocity.
func marchers(n int, start ecs.Frame) *tandem.Game[Walk] {
	g := *walkers
	g.Components = append(g.Components[:len(g.Components):len(g.Components)], tandem.Replicate(replicate.VelocityCodec(), tandem.PredictVelocity))
	g.Join = func(w *tandem.World, p tandem.Peer) error {
		if err := walkers.Join(w, p); err != nil {
			return err
		}
		m := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, Unit](w.ECS.Arche())
		for k := range n {
			e := m.NewWith(&ecs.Transform{X: 100, Y: 4 * float64(k)}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p.ID}, &Unit{})
			w.ECS.Arche().Add(e, w.ECS.IDs.HostMoved)
		}
		return nil
	}
	g.Setup = func(w *tandem.World) {
		walkers.Setup(w)
		if w.Role == tandem.Joined {
			return
		}
		march := generic.NewFilter3[ecs.Transform, ecs.Velocity, Unit]()
		var moved []arche.Entity
		w.Schedule.Add("march", ecs.SystemFunc(func(ew *ecs.World) {
			if ew.Frame() < start {
				return
			}
			moved = moved[:0]
			q := march.Query(ew.Arche())
			for q.Next() {
				t, v, _ := q.Get()
				t.X += 2
				v.X = 2 * 60
				moved = append(moved, q.Entity())
			}
			for _, e := range moved {
				ecs.MutateComponent(ew, e, ew.IDs.Transform)
				ecs.MutateComponent(ew, e, ew.IDs.Velocity)
			}
		}))
	}
	g.Arrived = func(w *tandem.World, e arche.Entity) {
		if a := w.ECS.Arche(); a.Has(e, arche.ComponentID[Unit](a)) {
			a.Add(e, w.ECS.IDs.HostMoved)
		}
	}
	return &g
}

// Units a budget far too small for them holds back, marching on at one
// speed, are drawn marching on by their owner and by a watcher, never moved
// back: the host says its budget holds changes back (Backlog), and the
// client's drawing takes a unit's silence for its turn not come, not for
// rest. (They were taken to rest after twice MaxDeferral and slid back to
// their last state, and a unit that set off in a silence was drawn still
// until MaxDeferral before its first state moving, then rushing to it and
// on past the host's: of 180,000 unit-frames each drew, the owner moved a
// unit back 5,008 times, by up to 12 units, and the watcher 22,939 times,
// by up to 80, drawing units up to 340 units ahead of the host.)
func TestUnitsAFullBudgetHoldsBackAreDrawnMarchingOn(t *testing.T) {
	const n = 300
	link := condition.Config{Latency: 40 * time.Millisecond}
	hc := tandem.HostConfig{}
	hc.Replication.BitsPerSecond = 24_000
	r := tandemtest.New(t, marchers(n, 120), hc, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	bob := r.Join("bob", tandem.ClientConfig[Walk]{})
	type drawn struct {
		last         map[ecs.NetID]float64
		back, frames int
		worst, ahead float64
		starved      bool
	}
	watch := func(c *tandem.Client[Walk], d *drawn) {
		hostX := map[ecs.NetID]float64{}
		r.Host.Do(func(w *tandem.World) {
			for _, e := range w.ECS.Owned(ann.Peer()) {
				if ni, _ := w.ECS.Identity(e); w.ECS.Arche().Has(e, w.ECS.IDs.HostMoved) {
					hostX[ni.ID] = ecs.Get[ecs.Transform](w.ECS, e).X
				}
			}
		})
		if c.NetStats().Backlog > 0 {
			d.starved = true
		}
		c.View(r.Clock.Now(), func(v *tandem.View) {
			for id, hx := range hostX {
				e, ok := v.World.ECS.EntityOf(id)
				if !ok {
					continue
				}
				p, ok := v.Pose(e)
				if !ok {
					continue
				}
				if l, ok := d.last[id]; ok && p.X < l-1e-6 {
					d.back++
					d.worst = max(d.worst, l-p.X)
				}
				d.ahead = max(d.ahead, p.X-hx) // drawn ahead of where the host has it now
				d.last[id] = p.X
				d.frames++
			}
		})
	}
	da := &drawn{last: map[ecs.NetID]float64{}}
	db := &drawn{last: map[ecs.NetID]float64{}}
	for range 600 {
		r.Step(1)
		watch(ann, da)
		watch(bob, db)
	}
	for name, d := range map[string]*drawn{"ann (the owner)": da, "bob (a watcher)": db} {
		switch {
		case !d.starved:
			t.Fatalf("%s: the budget never held changes back: the test does not starve it", name)
		case d.frames < 600*n/2:
			t.Fatalf("%s: %d unit-frames drawn", name, d.frames)
		case d.back > 0 || d.ahead > 1:
			t.Fatalf("%s: of %d unit-frames drawn, %d moved a unit back (%.2f units at most); drawn up to %.2f units ahead of the host", name, d.frames, d.back, d.worst, d.ahead)
		}
	}
}
