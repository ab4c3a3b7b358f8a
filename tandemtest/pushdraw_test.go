package tandemtest_test

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/physics"
	"github.com/tandem-go/tandem/tandemtest"
)

// carAndCrate is the cars game with a crate of the host's, of material
// crate, just ahead of the car, in its way.
func carAndCrate(net tandem.NetPhysics, crate physics.Material) *tandem.Game[Pedal] {
	return carAndBoxes(net, crate, 40, 20, 2, ecs.Transform{X: 1100, Y: 1000})
}

// carAndBoxes is the cars game with boxes of the host's, w by h with
// corners rounded by radius, of material m, at poses.
func carAndBoxes(net tandem.NetPhysics, m physics.Material, w, h, radius float64, poses ...ecs.Transform) *tandem.Game[Pedal] {
	g := *cars
	g.Net = net
	g.Setup = func(wd *tandem.World) {
		cars.Setup(wd)
		if wd.Role == tandem.Joined || wd.Restoring {
			return
		}
		made := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated](wd.ECS.Arche())
		for _, p := range poses {
			e := made.NewWith(&p, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: ecs.HostPeer}, &ecs.Interpolated{Prev: p})
			wd.Physics.AttachBox(e, w, h, radius, m)
		}
	}
	g.Arrived = func(wd *tandem.World, e arche.Entity) {
		if id, _ := wd.ECS.Identity(e); id.Owner == ecs.HostPeer {
			wd.Physics.AttachBox(e, w, h, radius, m)
			return
		}
		cars.Arrived(wd, e)
	}
	return &g
}

// hostsOwn returns the entity of the host's own in w (the crate, the
// door: the one each of these games has) and its network id.
func hostsOwn(w *tandem.World) (e arche.Entity, id ecs.NetID) {
	q := generic.NewFilter1[ecs.NetworkIdentity]().Query(w.ECS.Arche())
	for q.Next() {
		if q.Get().Owner == ecs.HostPeer {
			e, id = q.Entity(), q.Get().ID
		}
	}
	return e, id
}

// crateRig is a rig of g with ann joined, over a 100 ms round trip.
func crateRig(t *testing.T, g *tandem.Game[Pedal]) (*tandemtest.Rig[Pedal], *tandem.Client[Pedal]) {
	return crateRigOver(t, g, 50*time.Millisecond)
}

// crateRigOver is crateRig over a link of latency lat each way.
func crateRigOver(t *testing.T, g *tandem.Game[Pedal], lat time.Duration) (*tandemtest.Rig[Pedal], *tandem.Client[Pedal]) {
	link := condition.Config{Latency: lat}
	r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	return r, r.JoinOver("ann", tandem.ClientConfig[Pedal]{}, link, link)
}

// slowing is a crate whose friction on the ground stops it.
var slowing = physics.Material{Mass: 4, Velocity: physics.GroundFriction(300)}

// pushedAndLeft is a rig whose crate, slowing, is drawn ahead: ann drives
// into it for a second, backs away for back frames and stops.
func pushedAndLeft(t *testing.T, back int) (*tandemtest.Rig[Pedal], *tandem.Client[Pedal]) {
	r, ann := crateRig(t, carAndCrate(tandem.NetPhysics{DrawHeldAhead: true}, slowing))
	ann.SetInput(Pedal{Throttle: 1})
	r.Step(60)
	ann.SetInput(Pedal{Throttle: -1})
	r.Step(back)
	ann.SetInput(Pedal{})
	return r, ann
}

// pushing drives ann's car into the crate and on, over a 100 ms round trip,
// and returns the least distance between the crate's centre and the car's
// as each machine draws them once the car met the crate, and the largest
// step of the crate between two frames ann drew, and the host's.
func pushing(t *testing.T, net tandem.NetPhysics) (host, ann, annStep, hostStep float64) {
	host, ann, annStep, hostStep, _ = pushingOver(t, net, 50*time.Millisecond)
	return host, ann, annStep, hostStep
}

// pushingOver is pushing over a link of latency lat each way; puts is how
// many times ann's client put the crate back on the host's state.
func pushingOver(t *testing.T, net tandem.NetPhysics, lat time.Duration) (host, ann, annStep, hostStep float64, puts uint64) {
	r, c := crateRigOver(t, carAndCrate(net, carBody), lat)
	crate := func(w *tandem.World) ecs.NetID {
		_, id := hostsOwn(w)
		return id
	}
	gaps := func(m interface {
		View(time.Time, func(*tandem.View))
	}, me ecs.PeerID, last *ecs.Transform, step *float64) (gap float64) {
		gap = math.Inf(1)
		m.View(r.Clock.Now(), func(v *tandem.View) {
			e, ok := v.World.ECS.EntityOf(crate(v.World))
			car := v.World.ECS.Owned(me)
			if !ok || len(car) == 0 {
				return
			}
			cp, _ := v.Pose(e)
			mp, _ := v.Pose(car[0])
			gap = cp.X - mp.X
			if *last != (ecs.Transform{}) {
				*step = max(*step, math.Hypot(cp.X-last.X, cp.Y-last.Y))
			}
			*last = cp
		})
		return gap
	}
	host, ann = math.Inf(1), math.Inf(1)
	var lastAnn, lastHost ecs.Transform
	c.SetInput(Pedal{Throttle: 1})
	for range 150 {
		r.Step(1)
		host = min(host, gaps(r.Host, c.Peer(), &lastHost, &hostStep))
		ann = min(ann, gaps(c, c.Peer(), &lastAnn, &annStep))
	}
	st := c.NetStats().Bodies
	if st.Holds == 0 {
		t.Fatal("ann's car never held the crate")
	}
	return host, ann, annStep, hostStep, st.Put
}

// With NetPhysics.DrawHeldAhead, a crate the player pushes is drawn on her
// screen where her physics has it, in the present beside her car, not in
// the past behind it: her car is not
// drawn through the crate, and the crate slides into the present rather
// than jumping, nor when its body is put back on the host's state. (Drawn
// in the past, the car was drawn 70 units into it: their centres 30 units
// apart the wrong way, where the host draws them 41.5 apart.)
func TestAPushedCrateIsDrawnAhead(t *testing.T) {
	host, ann, annStep, hostStep := pushing(t, tandem.NetPhysics{DrawHeldAhead: true})
	t.Logf("least centre distance drawn: host %.1f, ann %.1f; the crate's largest step drawn: ann %.1f, host %.1f", host, ann, annStep, hostStep)
	if ann < host-3 {
		t.Errorf("ann's car is drawn %.1f units into the crate it pushes (the host draws them %.1f apart)", host-ann, host)
	}
	if annStep > 1.5*hostStep+1 {
		t.Errorf("the crate jumps %.1f units between two frames ann draws (the host's largest step %.1f)", annStep, hostStep)
	}
	_, past, _, _ := pushing(t, tandem.NetPhysics{})
	t.Logf("drawn in the past (the default): least centre distance %.1f", past)
	if past > host-4 {
		t.Errorf("by default the crate is drawn %.1f from the car, the host %.1f: the test no longer shows what drawing ahead fixes", past, host)
	}
}

// Over longer links too, a crate pushed on and on is drawn beside the car
// pushing it: the host's states of the frames the client simulated it in
// agree with what the client did, so the hold goes on, and a body put back
// is carried as far as the client's present is past the host's newest
// state, however far that is. (Held from the first touch for MaxHold
// frames, it was put back every 20 frames, carried at most MaxAhead, 250
// ms, where a 100 ms link's client is 300 ms past the host's state: into
// the car.)
func TestAPushedCrateIsDrawnAheadOverALongLink(t *testing.T) {
	for _, lat := range []time.Duration{100 * time.Millisecond, 150 * time.Millisecond} {
		host, ann, _, _, puts := pushingOver(t, tandem.NetPhysics{DrawHeldAhead: true}, lat)
		t.Logf("%v each way: least centre distance drawn: host %.1f, ann %.1f; put back %d times", lat, host, ann, puts)
		if ann < host-3 || puts > 2 {
			t.Errorf("%v each way: ann's car is drawn %.1f units into the crate it pushes (the host draws them %.1f apart), put back %d times in 150 frames of pushing", lat, host-ann, host, puts)
		}
	}
}

// Once the pushed crate comes to rest (slowed by its friction on the
// ground), the client draws it from the host's
// states again (View.Held false), where the host has it, and it does not
// jump on the way: it is handed back at rest, where the present and the
// past agree.
func TestAPushedCrateAtRestIsDrawnFromTheHostAgain(t *testing.T) {
	r, ann := pushedAndLeft(t, 30)
	var id ecs.NetID
	r.Host.Do(func(w *tandem.World) { _, id = hostsOwn(w) })
	var last ecs.Transform
	held, wasHeld, step := false, false, 0.0
	drawn := func() (p ecs.Transform) {
		ann.View(r.Clock.Now(), func(v *tandem.View) {
			e, ok := v.World.ECS.EntityOf(id)
			if !ok {
				t.Fatal("ann lost the crate")
			}
			p, _ = v.Pose(e)
			held = v.Held(e)
		})
		return p
	}
	for range 60 * 20 {
		r.Step(1)
		p := drawn()
		wasHeld = wasHeld || held
		if last != (ecs.Transform{}) {
			step = max(step, math.Hypot(p.X-last.X, p.Y-last.Y))
		}
		last = p
		if wasHeld && !held {
			break
		}
	}
	if !wasHeld || held {
		t.Fatalf("the crate was drawn ahead %v, and still is %v after 20 s at rest", wasHeld, held)
	}
	r.Step(60)
	p := drawn()
	var h ecs.Transform
	r.Host.View(r.Clock.Now(), func(v *tandem.View) {
		e, _ := v.World.ECS.EntityOf(id)
		h, _ = v.Pose(e)
	})
	t.Logf("the crate's largest drawn step %.2f; at rest ann draws it at %+v, the host at %+v", step, p, h)
	if step > 3 || math.Hypot(p.X-h.X, p.Y-h.Y) > 0.01 {
		t.Errorf("handed back, the crate stepped up to %.2f units in a frame, and is drawn %.3f from the host's", step, math.Hypot(p.X-h.X, p.Y-h.Y))
	}
}

// A crate drawn ahead that the host teleports is drawn jumping there, not
// sliding across the floor.
func TestATeleportOfACrateDrawnAheadIsAJump(t *testing.T) {
	r, ann := pushedAndLeft(t, 20)
	var id ecs.NetID
	r.Host.Do(func(w *tandem.World) {
		var crate arche.Entity
		crate, id = hostsOwn(w)
		w.Physics.SetPose(crate, ecs.Transform{X: 3000, Y: 1000})
		w.Physics.SetVelocity(crate, ecs.Velocity{})
	})
	held, between := false, 0
	for range 90 {
		r.Step(1)
		ann.View(r.Clock.Now(), func(v *tandem.View) {
			e, _ := v.World.ECS.EntityOf(id)
			p, _ := v.Pose(e)
			held = held || v.Held(e)
			if p.X > 1500 && p.X < 2950 {
				between++
			}
		})
	}
	if !held {
		t.Fatal("the crate was not drawn ahead when the host teleported it")
	}
	if between > 0 {
		t.Errorf("the teleported crate was drawn %d frames between where it was and where it went: a slide", between)
	}
}

// A crate the player is pushing (held: her physics simulates it) that the
// host teleports goes there in her physics too, whenever in a hold the
// teleport comes: it ends the hold. (Ignored within a hold, with no state
// of the crate at rest after it, it stayed where she pushed it, 149 units
// away in a trial, for as long as she pushed.)
func TestATeleportEndsAHold(t *testing.T) {
	for at := 40; at < 62; at += 3 {
		r, ann := crateRig(t, carAndCrate(tandem.NetPhysics{}, carBody))
		ann.SetInput(Pedal{Throttle: 1})
		r.Step(at)
		var id ecs.NetID
		r.Host.Do(func(w *tandem.World) {
			var crate arche.Entity
			crate, id = hostsOwn(w)
			w.Physics.SetPose(crate, ecs.Transform{X: 5000, Y: 1000})
			w.Physics.SetVelocity(crate, ecs.Velocity{})
		})
		holds := ann.NetStats().Bodies.Holds
		r.Step(30)
		var x float64
		ann.Do(func(w *tandem.World) {
			e, _ := w.ECS.EntityOf(id)
			x = w.Physics.BodyOf(e).Position().X
		})
		if holds == 0 || math.Abs(x-5000) > 1 {
			t.Fatalf("teleported after %d steps of pushing (%d holds): half a second later ann's physics has the crate at x %.1f, the host at 5000", at, holds, x)
		}
	}
}

// A touch the host never had (it sent the car back just before the crate)
// is let go after MaxHold: the crate, at rest on the host, sends no state
// that would end the hold, and the client's physics puts it back on the
// host's state all the same. (It stayed 1,624 units away for good.)
func TestATouchTheHostNeverHadIsLetGo(t *testing.T) {
	r, ann := crateRig(t, carAndCrate(tandem.NetPhysics{}, carBody))
	var id ecs.NetID
	r.Host.Do(func(w *tandem.World) { _, id = hostsOwn(w) })
	ann.SetInput(Pedal{Throttle: 1})
	done := false
	for i := range 600 {
		if i == 40 {
			ann.SetInput(Pedal{Throttle: -1})
		}
		if i == 70 {
			ann.SetInput(Pedal{})
		}
		r.Step(1)
		if !done {
			r.Host.Do(func(w *tandem.World) {
				e := w.ECS.Owned(ann.Peer())[0]
				if w.Physics.BodyOf(e).Position().X >= 1040 {
					w.Physics.SetPose(e, ecs.Transform{X: 600, Y: 1000})
					w.Physics.SetVelocity(e, ecs.Velocity{})
					done = true
				}
			})
		}
	}
	var host, mine, drawn ecs.Transform
	var held bool
	r.Host.Do(func(w *tandem.World) {
		e, _ := w.ECS.EntityOf(id)
		p := w.Physics.BodyOf(e).Position()
		host = ecs.Transform{X: p.X, Y: p.Y}
	})
	ann.View(r.Clock.Now(), func(v *tandem.View) {
		e, _ := v.World.ECS.EntityOf(id)
		p := v.World.Physics.BodyOf(e).Position()
		mine = ecs.Transform{X: p.X, Y: p.Y}
		drawn, _ = v.Pose(e)
		held = v.Held(e)
	})
	t.Logf("10 s on: host's crate %v; ann's crate body %v, drawn %v (Held %v); bodies %+v", host, mine, drawn, held, ann.NetStats().Bodies)
	if math.Hypot(host.X-mine.X, host.Y-mine.Y) > 1 {
		t.Errorf("ann's physics has the crate %.1f units from the host's, 10 s after a touch the host never had (MaxHold 20 frames)", math.Hypot(host.X-mine.X, host.Y-mine.Y))
	}
}

// knockedCrate is carAndCrate whose host sets the crate's velocity to v at
// frame *at (a kick of the host's), and logs in hostX, if not nil, where it
// has the crate at the end of each frame.
func knockedCrate(net tandem.NetPhysics, crate physics.Material, at *ecs.Frame, v ecs.Velocity, hostX map[ecs.Frame]float64) *tandem.Game[Pedal] {
	g := carAndCrate(net, crate)
	setup := g.Setup
	g.Setup = func(w *tandem.World) {
		setup(w)
		if w.Role != tandem.Hosting {
			return
		}
		w.Schedule.Add("knock", ecs.SystemFunc(func(ew *ecs.World) {
			if *at != 0 && ew.Frame() == *at {
				e, _ := hostsOwn(w)
				w.Physics.SetVelocity(e, v)
			}
		}))
		if hostX != nil {
			w.Schedule.AddTo(ecs.StageOutput, "log", ecs.SystemFunc(func(ew *ecs.World) {
				e, _ := hostsOwn(w)
				hostX[ew.Frame()] = w.Physics.BodyOf(e).Position().X
			}))
		}
	}
	return g
}

// knockAndTrace steps rig r 30 frames, has the host knock its crate at the
// next frame (knockAt, knockedCrate's), steps n frames more, and returns
// where ann's physics had the crate at the end of each of her frames.
func knockAndTrace(r *tandemtest.Rig[Pedal], ann *tandem.Client[Pedal], knockAt *ecs.Frame, n int) map[ecs.Frame]float64 {
	var id ecs.NetID
	r.Host.Do(func(w *tandem.World) { _, id = hostsOwn(w) })
	r.Step(30)
	r.Host.Do(func(w *tandem.World) { *knockAt = w.ECS.Frame() + 1 })
	annX := map[ecs.Frame]float64{}
	for range n {
		r.Step(1)
		ann.Do(func(w *tandem.World) {
			e, _ := w.ECS.EntityOf(id)
			annX[w.ECS.Frame()] = w.Physics.BodyOf(e).Position().X
		})
	}
	return annX
}

// A crate the player pushes that the host sends elsewhere (a kick the
// player's client does not simulate: another's, or given by command) is put
// on the host's state as soon as a state of a frame her client simulated it
// in shows it moving otherwise than her physics had it, not when her touches
// stop or MaxHold ends the hold: her client learns of the kick a round trip
// after it, as of any change of the host's. (It went on pushing its own
// crate until MaxHold frames after the hold began.)
func TestAHeldCrateTheHostKicksIsPutOnTheHostsState(t *testing.T) {
	var kickAt ecs.Frame
	g := knockedCrate(tandem.NetPhysics{DrawHeldAhead: true}, carBody, &kickAt, ecs.Velocity{Y: 600}, nil)
	r, ann := crateRigOver(t, g, 50*time.Millisecond)
	var id ecs.NetID
	r.Host.Do(func(w *tandem.World) { _, id = hostsOwn(w) })
	crateY := func() (y float64, held bool) {
		ann.Do(func(w *tandem.World) {
			e, ok := w.ECS.EntityOf(id)
			if !ok {
				t.Fatal("ann lost the crate")
			}
			y = w.Physics.BodyOf(e).Position().Y
		})
		ann.View(r.Clock.Now(), func(v *tandem.View) {
			e, _ := v.World.ECS.EntityOf(id)
			held = v.Held(e)
		})
		return y, held
	}
	ann.SetInput(Pedal{Throttle: 1})
	r.Step(50) // pushing it by now, and on
	y0, held := crateY()
	if !held {
		t.Fatal("ann's client does not hold the crate she pushes")
	}
	r.Host.Do(func(w *tandem.World) { kickAt = w.ECS.Frame() + 1 })
	for i := 1; i <= 40; i++ {
		r.Step(1)
		if y, _ := crateY(); y > y0+5 {
			var hf ecs.Frame
			r.Host.Do(func(w *tandem.World) { hf = w.ECS.Frame() })
			t.Logf("ann's crate moved with the kick %d steps after the host's kick (host at frame %d)", i, hf)
			if i > 7 {
				t.Errorf("ann's client took %d steps to put her crate where the host kicked it (the host's first state after the kick reaches her client 5 steps after it: the host's send interval and 50 ms)", i)
			}
			return
		}
	}
	t.Fatal("ann's client never put her crate where the host kicked it")
}

// A crate the host knocks away sliding on its ground friction is carried,
// on a client's physics, to where the host's steps take it at the
// client's frame: slowed as its steps slow it, to where it stops, not in a
// straight line past it and then back. (Carried straight, it was past the
// host's in 89 of the 150 frames over a 100 ms round trip, up to 38 units,
// and 92 over 200, each state taking it back.) The knock's first state
// brings a new velocity with the pose the crate rested at: that pose is of
// the state's frame, and the crate is carried from there. (Carried from the
// frame it came to rest, as far as MaxAhead allows, it was put 29 units
// past for 2 frames at 50 ms each way.)
func TestASlidingCrateIsCarriedWhereTheHostSlidesIt(t *testing.T) {
	for _, lat := range []time.Duration{50 * time.Millisecond, 100 * time.Millisecond} {
		var knockAt ecs.Frame
		hostX := map[ecs.Frame]float64{}
		g := knockedCrate(tandem.NetPhysics{}, slowing, &knockAt, ecs.Velocity{X: 500}, hostX)
		r, ann := crateRigOver(t, g, lat)
		annX := knockAndTrace(r, ann, &knockAt, 150)
		past, compared, far := 0.0, 0, 0
		for f, x := range annX {
			if hx, ok := hostX[f]; ok && f > knockAt {
				past = max(past, x-hx)
				compared++
				if x-hx > 1 {
					far++
				}
			}
		}
		t.Logf("%v each way: ann's physics had the crate up to %.1f units past the host's, %d frames over a unit", lat, past, far)
		if compared < 100 || hostX[knockAt+60] < 1200 {
			t.Fatalf("%v: compared %d frames; the host's crate at %.0f a second after the knock", lat, compared, hostX[knockAt+60])
		}
		if far > 0 {
			t.Errorf("%v each way: ann's physics had the crate the host knocked past where the host had it at the same frame in %d frames, up to %.1f units", lat, far, past)
		}
	}
}
