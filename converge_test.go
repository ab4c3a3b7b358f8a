package tandem

import (
	"context"
	"fmt"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// badge is a component a host adds to and removes from a crate.
type badge struct{ N int32 }

var badgeCodec = replicate.IntegerCodec[badge]("badge")

// stepperGame: each player's figure steps 2 units a frame along its input; a
// badge may come and go on any entity.
func stepperGame() *Game[push] {
	return &Game[push]{
		Components: []Component{Replicate(replicate.TransformCodec(), PredictPose), Replicate(badgeCodec, HostValue)},
		Input:      pushCodec,
		Setup: func(w *World) {
			f := generic.NewFilter2[Input[push], ecs.Transform]()
			w.Schedule.Add("walk", ecs.SystemFunc(func(ew *ecs.World) {
				q := f.Query(ew.Arche())
				for q.Next() {
					if in, pose := q.Get(); in.Value.X != 0 {
						pose.X += 2 * float64(in.Value.X)
						ecs.MutateComponent(ew, q.Entity(), ew.IDs.Transform)
					}
				}
			}))
		},
		Join: func(w *World, p Peer) error {
			m := generic.NewMap3[ecs.Transform, ecs.NetworkIdentity, Input[push]](w.ECS.Arche())
			m.NewWith(&ecs.Transform{}, &ecs.NetworkIdentity{Owner: p.ID}, &Input[push]{})
			return nil
		},
	}
}

// joinWalker connects a client of stepperGame to p, with input, and runs 2 s.
func (p *resumePair) joinWalker(input func(*World) push) *rclient {
	p.t.Helper()
	tc, _ := p.net.Dial(context.Background(), "host")
	c, err := NewClient(stepperGame(), tc, ClientConfig[push]{Clock: p.clk, Input: input})
	if err != nil {
		p.t.Fatal(err)
	}
	rc := &rclient{Client: c}
	p.clients = append(p.clients, rc)
	p.run(2 * time.Second)
	return rc
}

// crateOf returns the x and the badge (whether it has one) of crate in w.
func crateOf(w *World, crate ecs.NetID) (x float64, n int32, has bool) {
	a := w.ECS.Arche()
	e, ok := w.ECS.EntityOf(crate)
	if !ok {
		return 0, 0, false
	}
	x = (*ecs.Transform)(a.Get(e, w.ECS.IDs.Transform)).X
	if id := arche.ComponentID[badge](a); a.Has(e, id) {
		return x, (*badge)(a.Get(e, id)).N, true
	}
	return x, 0, false
}

// A host crate whose badge comes and goes, over a link that reorders (40 ms
// ± 35 ms), ends on the client as on the host: a badge added and removed
// in the first frames of a new crate, whose spawns came out of order, is
// not added back by the older one (the spawn that made the crate here says
// which components it lacks as of its frame); a badge added to a crate held
// long, whose update was overtaken by the next (a move) and so could not be
// decoded against its baseline, still arrives (a component that is not
// delta-coded travels whole).
func TestBadgeOfACrateConverges(t *testing.T) {
	type change struct {
		badge int32 // > 0: given; 0: removed; < 0: none
		x     float64
	}
	for _, sc := range []struct {
		name   string
		settle time.Duration
		script []change
	}{
		{"added-and-removed-on-a-new-crate", 0, []change{{15, 0}, {0, 0}, {-1, 96}}},
		{"added-then-overtaken-by-a-move", time.Second, []change{{17, 0}, {-1, 0}, {-1, 112}}},
	} {
		for seed := range uint64(20) {
			t.Run(fmt.Sprintf("%s/%d", sc.name, seed), func(t *testing.T) {
				bubble.Test(t, func(t *testing.T) {
					link := condition.Config{Latency: 40 * time.Millisecond, Jitter: 35 * time.Millisecond, Seed: seed}
					p := newResumePairOf(t, stepperGame, link, HostConfig{})
					c := p.joinWalker(nil)
					var crate ecs.NetID
					var ce arche.Entity
					p.host.Do(func(w *World) {
						m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.ECS.Arche())
						ce = m.NewWith(&ecs.Transform{X: 100}, &ecs.NetworkIdentity{})
						ni, _ := w.ECS.Identity(ce)
						crate = ni.ID
					})
					p.run(sc.settle)
					for _, ch := range sc.script {
						p.run(time.Second / 60)
						p.host.Do(func(w *World) {
							a := w.ECS.Arche()
							id := arche.ComponentID[badge](a)
							switch {
							case ch.badge == 0:
								a.Remove(ce, id)
								ecs.MutateComponent(w.ECS, ce, id)
							case ch.badge > 0:
								a.Add(ce, id)
								(*badge)(a.Get(ce, id)).N = ch.badge
								ecs.MutateComponent(w.ECS, ce, id)
							}
							if ch.x != 0 {
								ecs.Mutate[ecs.Transform](w.ECS, ce).X = ch.x
							}
						})
					}
					p.run(5 * time.Second)
					var hx, cx float64
					var hn, cn int32
					var hh, ch bool
					p.host.Do(func(w *World) { hx, hn, hh = crateOf(w, crate) })
					c.Do(func(w *World) { cx, cn, ch = crateOf(w, crate) })
					if hx != cx || hn != cn || hh != ch {
						t.Fatalf("5 s later: host crate x %.0f badge %v (%d); client x %.0f badge %v (%d)", hx, hh, hn, cx, ch, cn)
					}
				})
			})
		}
	}
}

// A figure the host takes back from its player while the player holds a
// key stops on the player's screen too: the Input it keeps there gets the
// zero input (it kept the last one, and walked on for good).
func TestFigureTakenFromItsPlayerStops(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p := newResumePairOf(t, stepperGame, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{})
		var right bool
		c := p.joinWalker(func(*World) push {
			if right {
				return push{X: 1}
			}
			return push{}
		})
		var fig ecs.NetID
		var fe arche.Entity
		p.host.Do(func(w *World) {
			fe = w.ECS.Owned(c.Peer())[0]
			ni, _ := w.ECS.Identity(fe)
			fig = ni.ID
		})
		right = true
		p.run(time.Second / 2)
		p.host.Do(func(w *World) { ecs.SetOwner(w.ECS, fe, ecs.HostPeer) })
		p.run(time.Second / 4)
		right = false
		p.run(3 * time.Second)
		var hx, cx float64
		p.host.Do(func(w *World) { hx, _, _ = crateOf(w, fig) })
		c.Do(func(w *World) { cx, _, _ = crateOf(w, fig) })
		if hx != cx {
			t.Fatalf("the figure the host took: host x %.0f, client x %.0f", hx, cx)
		}
	})
}

// A client gives Input to the entities it owns that the host's world gives
// Input, and to no other: a flag the player owns but does not drive stays
// put on its screen while it walks; a crate the host gives it later with
// Input gets it; a figure whose Input the host takes away loses it.
func TestOnlyDrivenEntitiesGetInput(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		p := newResumePairOf(t, stepperGame, condition.Config{Latency: 20 * time.Millisecond}, HostConfig{})
		right := false
		c := p.joinWalker(func(*World) push {
			if right {
				return push{X: 1}
			}
			return push{}
		})
		peer := c.Peer()
		var flag, crate, fig ecs.NetID
		var ce, fe arche.Entity
		p.host.Do(func(w *World) {
			a := w.ECS.Arche()
			fe = w.ECS.Owned(peer)[0]
			m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](a)
			fl := m.NewWith(&ecs.Transform{X: 300}, &ecs.NetworkIdentity{Owner: peer})
			ce = m.NewWith(&ecs.Transform{X: 500}, &ecs.NetworkIdentity{})
			a.Add(ce, arche.ComponentID[Input[push]](a))
			for e, id := range map[arche.Entity]*ecs.NetID{fl: &flag, ce: &crate, fe: &fig} {
				ni, _ := w.ECS.Identity(e)
				*id = ni.ID
			}
		})
		right = true
		p.run(time.Second)
		hasInput := func(w *World, id ecs.NetID) bool {
			e, ok := w.ECS.EntityOf(id)
			return ok && w.ECS.Arche().Has(e, arche.ComponentID[Input[push]](w.ECS.Arche()))
		}
		c.Do(func(w *World) {
			if hasInput(w, flag) || hasInput(w, crate) || !hasInput(w, fig) {
				t.Fatalf("Input on the flag %v, the host's crate %v, the figure %v; want the figure's alone", hasInput(w, flag), hasInput(w, crate), hasInput(w, fig))
			}
			if x, _, _ := crateOf(w, flag); x != 300 {
				t.Fatalf("the flag moved to x %.0f on its owner's screen", x)
			}
		})
		right = false
		p.host.Do(func(w *World) {
			ecs.SetOwner(w.ECS, ce, peer)
			w.ECS.Arche().Remove(fe, arche.ComponentID[Input[push]](w.ECS.Arche()))
		})
		p.run(time.Second)
		c.Do(func(w *World) {
			if !hasInput(w, crate) || hasInput(w, fig) {
				t.Fatalf("Input on the crate given %v, the figure taken %v; want the crate's alone", hasInput(w, crate), hasInput(w, fig))
			}
		})
	})
}
