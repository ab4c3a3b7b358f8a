package tandemtest_test

import (
	"math"
	"testing"
	"time"

	"github.com/jakecoffman/cp/v2"
	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/physics"
	"github.com/tandem-go/tandem/tandemtest"
)

// A player's body (or a glider her game moves itself, without physics)
// that the host kicks once, to a velocity off the wire's grid (33.33
// units/s, where the wire carries eighths), then coasting in open space:
// her client takes the host's velocity as the wire rounds it, and its
// coasting pose drifts off the host's by that rounding, 1/24 unit a
// second. Corrected by the pose alone, it drifted again at once, and was
// corrected every third of a second for as long as it coasted (a space
// trial's ship: 7 corrections in 5 s, 111 in 35 s after a bump at speed).
// A pose's correction now also moves the velocity by the drift it found
// since the last, within what the host's rounded velocity allows, and the
// drift dies out; after a shove the rounding does not explain, it settles
// as well.
func TestACoastingBodyKickedOffTheGridStopsDrifting(t *testing.T) {
	coast := func(b *cp.Body, _ Pedal, _ float64) ecs.Velocity {
		v := b.Velocity()
		return ecs.Velocity{X: v.X, Y: v.Y}
	}
	for _, tc := range []struct {
		name    string
		physics bool
		replay  bool
	}{{"body", true, false}, {"body-replayed", true, true}, {"glider", false, false}} {
		replay := tc.replay
		t.Run(tc.name, func(t *testing.T) {
			g := bodyInSpace(coast)
			if !tc.physics {
				g = gliders()
			}
			r, ann := joinOver50ms(t, g, coast, replay)
			r.Step(60)
			setVelocity(r, ann, func(ecs.Velocity) ecs.Velocity { return ecs.Velocity{X: 100.0 / 3, Y: 100.0 / 7} })
			r.Step(60) // the kick's own correction
			kicked := ann.NetStats().Predict
			r.Step(600) // ten seconds of coasting
			end := ann.NetStats().Predict
			t.Logf("in the 10 s after the kick's correction: %d pose and %d velocity corrections (largest pose %.4f), %d drift trims",
				end.PoseCorrections-kicked.PoseCorrections, end.VelocityCorrections-kicked.VelocityCorrections, end.MaxPose, end.DriftTrims)
			if kicked.Corrections == 0 {
				t.Fatal("the kick was never corrected: the test's kick did not reach her")
			}
			if n := end.Corrections - kicked.Corrections; n > 4 {
				t.Errorf("the coasting body was corrected %d times in the 10 s after the kick's correction", n)
			}
			// A pose the host moves by 3 units, by a frame's burst of
			// speed (a shove its owner could not predict), is corrected,
			// and the coasting after it settles as well, at the host's
			// velocity within its rounding.
			burst := func(dx float64) {
				setVelocity(r, ann, func(v ecs.Velocity) ecs.Velocity { return ecs.Velocity{X: v.X + dx, Y: v.Y} })
			}
			burst(180)
			r.Step(1)
			burst(-180)
			r.Step(60)
			shoved := ann.NetStats().Predict
			r.Step(600)
			settled := ann.NetStats().Predict
			var hv, cv ecs.Velocity
			r.Host.Do(func(w *tandem.World) { hv = *ecs.Get[ecs.Velocity](w.ECS, w.ECS.Owned(ann.Peer())[0]) })
			ann.Do(func(w *tandem.World) { cv = *ecs.Get[ecs.Velocity](w.ECS, w.ECS.Owned(ann.Peer())[0]) })
			t.Logf("after a shove of 3 units: %d pose corrections; in the 10 s after, %d; velocity %.4f, %.4f on the host, %.4f, %.4f on her client",
				shoved.PoseCorrections-end.PoseCorrections, settled.Corrections-shoved.Corrections, hv.X, hv.Y, cv.X, cv.Y)
			if shoved.PoseCorrections == end.PoseCorrections {
				t.Error("the shove was never corrected: the test's shove did not reach her")
			}
			if n := settled.Corrections - shoved.Corrections; n > 4 || math.Abs(hv.X-cv.X) > 1.0/16 || math.Abs(hv.Y-cv.Y) > 1.0/16 {
				t.Errorf("after the shove: %d corrections in 10 s of coasting, her velocity %v against the host's %v", n, cv, hv)
			}
		})
	}
}

// bodyInSpace is bodyGame with a disc of a body per player at (400, 600),
// in open space (no gravity, nothing to touch), driven by push.
func bodyInSpace(push func(b *cp.Body, in Pedal, dt float64) ecs.Velocity) *tandem.Game[Pedal] {
	g := bodyGame(ecs.Transform{X: 400, Y: 600}, push, func(w *tandem.World, e arche.Entity) {
		w.Physics.AttachCircle(e, 20, physics.Material{Mass: 4})
	})
	g.Physics = &physics.Config{Gravity: cp.Vector{}}
	return g
}

// joinOver50ms makes a rig of g over links of 50 ms each way and joins ann
// to it, her client replaying with push (its Replay) when replay is set.
func joinOver50ms(t *testing.T, g *tandem.Game[Pedal], push func(b *cp.Body, in Pedal, dt float64) ecs.Velocity, replay bool) (*tandemtest.Rig[Pedal], *tandem.Client[Pedal]) {
	link := condition.Config{Latency: 50 * time.Millisecond}
	r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	cfg := tandem.ClientConfig[Pedal]{}
	if replay {
		cfg.Replay = driveWith(push)
	}
	return r, r.Join("ann", cfg)
}

// setVelocity sets the velocity of ann's entity on the host to what set
// makes of it, through the physics where there is a body.
func setVelocity(r *tandemtest.Rig[Pedal], ann *tandem.Client[Pedal], set func(ecs.Velocity) ecs.Velocity) {
	r.Host.Do(func(w *tandem.World) {
		e := w.ECS.Owned(ann.Peer())[0]
		v := set(*ecs.Get[ecs.Velocity](w.ECS, e))
		if w.Physics != nil && w.Physics.BodyOf(e) != nil {
			w.Physics.SetVelocity(e, v)
			return
		}
		*ecs.Get[ecs.Velocity](w.ECS, e) = v
		ecs.MutateComponent(w.ECS, e, w.ECS.IDs.Velocity)
	})
}

// gliders is a game of a glider per player, with no physics: its own
// system moves each glider by its velocity, frame by frame, on the host
// and, predicted, on its owner's client (corrected, not replayed).
func gliders() *tandem.Game[Pedal] {
	return &tandem.Game[Pedal]{
		Components: []tandem.Component{
			tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose),
			tandem.Replicate(replicate.VelocityCodec(), tandem.PredictVelocity),
		},
		Input: pedalCodec,
		Setup: func(w *tandem.World) {
			glide := generic.NewFilter3[ecs.Transform, ecs.Velocity, tandem.Input[Pedal]]()
			dt := w.Schedule.StepDuration().Seconds()
			w.Schedule.Add("glide", ecs.SystemFunc(func(ew *ecs.World) {
				q := glide.Query(ew.Arche())
				for q.Next() {
					p, v, _ := q.Get()
					if v.X != 0 || v.Y != 0 {
						p.X += v.X * dt
						p.Y += v.Y * dt
						ecs.MutateComponent(ew, q.Entity(), ew.IDs.Transform)
					}
				}
			}))
		},
		Join: func(w *tandem.World, p tandem.Peer) error {
			m := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, tandem.Input[Pedal]](w.ECS.Arche())
			m.NewWith(&ecs.Transform{X: 400, Y: 600}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p.ID}, &tandem.Input[Pedal]{})
			return nil
		},
	}
}

// A body that turns and thrusts along its heading (the same on her client
// and on the host, off the wire's grid), teleported by the host with its
// heading kept, stopped or moving on: the teleport's correction (or the
// rest lock that holds a body the host stopped) takes the host's new
// position, and keeps her client's exact heading, which the host's rounds
// to on the wire. Taken rounded, it pointed her thrust a fraction of a wire step off
// the host's, and each correction after found her drifted sideways (a space
// trial's warped ship: 5 corrections in 4 s of flight, none before the
// warp).
func TestATeleportKeepsTheHeadingItDidNotChange(t *testing.T) {
	// Forward thrusts along the heading, back turns (at 0.7 rad/s).
	thrust := func(b *cp.Body, in Pedal, dt float64) ecs.Velocity {
		v, a := b.Velocity(), b.Angle()
		switch in.Throttle {
		case 1:
			return ecs.Velocity{X: v.X + 300*dt*math.Cos(a), Y: v.Y + 300*dt*math.Sin(a)}
		case -1:
			return ecs.Velocity{X: v.X, Y: v.Y, Angular: 0.7}
		}
		return ecs.Velocity{X: v.X, Y: v.Y}
	}
	for _, tc := range []struct {
		name          string
		replay, stops bool
	}{{"corrected", false, true}, {"replayed", true, true}, {"corrected/moving", false, false}, {"replayed/moving", true, false}} {
		replay := tc.replay
		t.Run(tc.name, func(t *testing.T) {
			r, ann := joinOver50ms(t, bodyInSpace(thrust), thrust, replay)
			fly := func() uint64 {
				before := ann.NetStats().Predict.Corrections
				for _, leg := range []struct {
					throttle int8
					steps    int
				}{{-1, 20}, {0, 1}, {1, 120}, {0, 30}} {
					ann.SetInput(Pedal{Throttle: leg.throttle})
					r.Step(leg.steps)
				}
				return ann.NetStats().Predict.Corrections - before
			}
			before := fly()
			r.Host.Do(func(w *tandem.World) {
				e := w.ECS.Owned(ann.Peer())[0]
				heading := ecs.Get[ecs.Transform](w.ECS, e).Angle
				w.Physics.SetPose(e, ecs.Transform{X: 20000, Y: -7000, Angle: heading})
				if tc.stops {
					w.Physics.SetVelocity(e, ecs.Velocity{}) // at rest, her client's rest lock holds it
				}
			})
			r.Step(60)
			st := ann.NetStats().Predict
			var ha, ca float64
			r.Host.Do(func(w *tandem.World) { ha = ecs.Get[ecs.Transform](w.ECS, w.ECS.Owned(ann.Peer())[0]).Angle })
			ann.Do(func(w *tandem.World) { ca = ecs.Get[ecs.Transform](w.ECS, w.ECS.Owned(ann.Peer())[0]).Angle })
			if math.Abs(ha-ca) > 1e-9 {
				t.Errorf("after the teleport her heading is %.9f, the host's %.9f", ca, ha)
			}
			after := fly()
			end := ann.NetStats().Predict
			t.Logf("corrections in a flight before the teleport %d, after it %d (teleports %d; pose %d, velocity %d after it, largest %.4f)", before, after, st.Teleports, end.PoseCorrections-st.PoseCorrections, end.VelocityCorrections-st.VelocityCorrections, end.MaxPose)
			if st.Teleports == 0 {
				t.Fatal("the teleport did not reach her as one")
			}
			if before != 0 || after > 1 {
				t.Errorf("corrections in a flight before the teleport %d, after it %d: want none, and at most one", before, after)
			}
		})
	}
}

// A glider at rest on both sides whose pose on her client is off the
// host's (moved on her client alone) is put back, and left at rest: a
// drift of a body at rest is no velocity's.
func TestAGliderAtRestIsNotSetMovingByItsCorrections(t *testing.T) {
	r := tandemtest.New(t, gliders(), tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Pedal]{})
	r.Step(30)
	for _, dx := range []float64{0.5, 0.03} {
		ann.Do(func(w *tandem.World) {
			e := w.ECS.Owned(ann.Peer())[0]
			ecs.Get[ecs.Transform](w.ECS, e).X += dx
		})
		r.Step(60)
	}
	var v ecs.Velocity
	ann.Do(func(w *tandem.World) { v = *ecs.Get[ecs.Velocity](w.ECS, w.ECS.Owned(ann.Peer())[0]) })
	st := ann.NetStats().Predict
	if st.PoseCorrections == 0 {
		t.Fatal("her pose, moved on her client alone, was never corrected")
	}
	if v != (ecs.Velocity{}) || st.DriftTrims != 0 {
		t.Fatalf("at rest on both sides, her glider was set moving: velocity %+v, %d drift trims", v, st.DriftTrims)
	}
}
