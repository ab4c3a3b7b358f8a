package tandemtest_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/physics"
	"github.com/tandem-go/tandem/tandemtest"
)

// crateRow is the cars game with a row of n crates of the host's along y,
// each a quarter of the car's mass, sliding on ground friction, every 150
// units from x 1150: at y 1000, in the car's way.
func crateRow(n int, y float64) *tandem.Game[Pedal] {
	var poses []ecs.Transform
	for i := range n {
		poses = append(poses, ecs.Transform{X: 1150 + 150*float64(i), Y: y})
	}
	return carAndBoxes(tandem.NetPhysics{}, physics.Material{Mass: 1, Velocity: physics.GroundFriction(300)}, 20, 20, 1, poses...)
}

// A car that drives through a row of crates pushes each into the next, on
// its client as on the host: a crate a held crate touches is held too (the
// client simulates it in the present), so the car is not corrected,
// replaying or not. Before, the second crate was kept on the host's state,
// a wall to the first in the client's present: the first bounced off it,
// the car behind it was corrected at every state after (60 ms each way: 95
// pose corrections of up to 7.3 units; replayed, 95 of up to 25.8).
func TestACarPushingCratesIntoEachOtherIsNotCorrected(t *testing.T) {
	for _, replayed := range []bool{false, true} {
		t.Run(fmt.Sprintf("replayed %v", replayed), func(t *testing.T) {
			link := condition.Config{Latency: 60 * time.Millisecond}
			r := tandemtest.New(t, crateRow(3, 1000), tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
			cfg := tandem.ClientConfig[Pedal]{}
			if replayed {
				cfg.Replay = drive
			}
			ann := r.JoinOver("ann", cfg, link, link)
			r.Step(30)
			ann.SetInput(Pedal{Throttle: 1})
			r.Step(150)
			ann.SetInput(Pedal{})
			r.Step(120)
			var last float64 // the host's last crate
			r.Host.Do(func(w *tandem.World) {
				q := generic.NewFilter1[ecs.NetworkIdentity]().Query(w.ECS.Arche())
				for q.Next() {
					if q.Get().Owner == ecs.HostPeer {
						last = max(last, w.Physics.BodyOf(q.Entity()).Position().X)
					}
				}
			})
			st := ann.NetStats()
			t.Logf("the last crate at x %.0f on the host; %d pose corrections (largest %.2f units), %d replays, %d holds, %d aligned",
				last, st.Predict.PoseCorrections, st.Predict.MaxPose, st.Predict.Replays, st.Bodies.Holds, st.Bodies.Aligned)
			if last < 1500 {
				t.Fatalf("the last crate is at x %.0f on the host: the car did not push the row into it", last)
			}
			if st.Predict.PoseCorrections > 0 {
				t.Errorf("pushing crates into each other, the car was corrected %d times, by up to %.2f units", st.Predict.PoseCorrections, st.Predict.MaxPose)
			}
			if st.Bodies.Aligned > 0 {
				// Every host state agreed within the wire's precision
				// (velocities to 1/8 unit a second): moving the held
				// crates onto them would be moving them by that noise.
				t.Errorf("the held crates were moved onto the host's states %d times", st.Bodies.Aligned)
			}
			if !r.StepUntil(300, func() bool { return tandemtest.Agree(r.Host, ann) == nil }) {
				t.Error(tandemtest.Agree(r.Host, ann))
			}
		})
	}
}

// nudgedPast drives ann's car (a replaying client's, 60 ms each way) on
// game g at full throttle for 120 frames and lets go for 120, calling
// each after every step; the host gives the car dy units a second
// sideways ahead frames after it sets off, which her client replays from.
// (The car meets a crate of crateRow's at y 1000 about 44 frames on.)
func nudgedPast(t *testing.T, g *tandem.Game[Pedal], ahead ecs.Frame, dy float64, each func(r *tandemtest.Rig[Pedal], ann *tandem.Client[Pedal])) *tandem.Client[Pedal] {
	var nudgeAt ecs.Frame
	setup := g.Setup
	g.Setup = func(w *tandem.World) {
		setup(w)
		if w.Role != tandem.Hosting {
			return
		}
		w.Schedule.Add("nudge", ecs.SystemFunc(func(ew *ecs.World) {
			if ew.Frame() != nudgeAt {
				return
			}
			for _, e := range ew.Owned(1) {
				v := w.Physics.BodyOf(e).Velocity()
				w.Physics.SetVelocity(e, ecs.Velocity{X: v.X, Y: v.Y + dy})
			}
		}))
	}
	link := condition.Config{Latency: 60 * time.Millisecond}
	r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.JoinOver("ann", tandem.ClientConfig[Pedal]{Replay: drive}, link, link)
	if ann.Peer() != 1 {
		t.Fatalf("ann is peer %d; the nudge moves peer 1's car", ann.Peer())
	}
	r.Step(30)
	r.Host.Do(func(w *tandem.World) { nudgeAt = w.ECS.Frame() + ahead })
	ann.SetInput(Pedal{Throttle: 1})
	for i := range 240 {
		if i == 120 {
			ann.SetInput(Pedal{})
		}
		r.Step(1)
		if each != nil {
			each(r, ann)
		}
	}
	if ann.NetStats().Predict.Replays == 0 {
		t.Fatal("the nudge made no replay: the test shows nothing")
	}
	return ann
}

// A replay through the frame a car first touched a crate pushes the crate
// in the replayed frames as the host's car pushed it: touched, the crate is
// stepped from there on, not put on the host's state at each replayed
// frame, where it stood as heavy as a wall and the replayed car bounced off
// it: corrected by 6 to 36 units, as the host's nudge came 4 to 12 frames
// before the touch. The host nudges the car sideways a little just before
// it reaches the crate, which her client replays from.
func TestAReplayThroughATouchPushesTheCrate(t *testing.T) {
	for _, ahead := range []ecs.Frame{34, 36, 38, 40, 42} {
		t.Run(fmt.Sprintf("nudged %d frames on", ahead), func(t *testing.T) {
			st := nudgedPast(t, crateRow(1, 1000), ahead, 6, nil).NetStats()
			t.Logf("%d pose corrections (largest %.2f units), %d replays", st.Predict.PoseCorrections, st.Predict.MaxPose, st.Predict.Replays)
			if st.Predict.MaxPose > 1 {
				t.Errorf("replayed through its touch of the crate, the car was corrected by up to %.2f units (%d corrections)", st.Predict.MaxPose, st.Predict.PoseCorrections)
			}
		})
	}
}

// A crate beside the car's path, which the host nudges the car into: her
// client has the car touch it first in a replayed frame, and draws it
// ahead (NetPhysics.DrawHeldAhead) from then, sliding there. Its drawn
// pose jumped to near the world's origin, about 1,200 units away, for a
// frame: its slide was given the body's whole pose to absorb.
func TestACrateFirstTouchedInAReplayIsDrawnSliding(t *testing.T) {
	for _, ahead := range []ecs.Frame{32, 38, 44} {
		t.Run(fmt.Sprintf("nudged %d frames on", ahead), func(t *testing.T) {
			g := crateRow(1, 1024)
			g.Net = tandem.NetPhysics{DrawHeldAhead: true}
			var drawn ecs.Transform // the crate, as her client draws it
			jump := 0.0             // its largest move between two frames
			ann := nudgedPast(t, g, ahead, 150, func(r *tandemtest.Rig[Pedal], ann *tandem.Client[Pedal]) {
				ann.View(r.Clock.Now(), func(v *tandem.View) {
					e, _ := hostsOwn(v.World)
					if p, ok := v.Pose(e); ok {
						if drawn != (ecs.Transform{}) {
							jump = max(jump, math.Hypot(p.X-drawn.X, p.Y-drawn.Y))
						}
						drawn = p
					}
				})
			})
			st := ann.NetStats()
			t.Logf("%d replays, %d drawn ahead; the crate drawn moving at most %.2f units a frame", st.Predict.Replays, st.Bodies.DrawnAhead, jump)
			if st.Bodies.DrawnAhead == 0 {
				t.Fatal("the crate was never drawn ahead: the test shows nothing")
			}
			if jump > 15 { // it moves 5 units a frame at the car's top speed
				t.Errorf("the crate was drawn moving %.2f units in a frame", jump)
			}
		})
	}
}
