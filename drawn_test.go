package tandem

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// walkSpeed is how fast, in units a second, walkGame's entities move.
const walkSpeed = 60.0

// walkGame is a game without physics: a system moves every entity by its
// velocity and reports the write, as a game of its own would; a player's
// input sets its velocity. The host has a drifter, made with a zero
// Interpolated (Prev at the origin), that drifts along y = 100 and, when
// teleport is set, jumps to x = 500 at frame 90. With nudge, the host alone
// pushes every player 5 units on at frame 90: a client's prediction is
// corrected.
func walkGame(teleport, nudge bool) (*Game[push], *arche.Entity) {
	var drifter arche.Entity
	g := &Game[push]{
		Components: []Component{
			Replicate(replicate.TransformCodec(), PredictPose),
			Replicate(replicate.VelocityCodec(), PredictVelocity),
		},
		Input: pushCodec,
		Setup: func(w *World) {
			controls := generic.NewFilter2[ecs.Velocity, Input[push]]()
			movers := generic.NewFilter2[ecs.Transform, ecs.Velocity]()
			dt := w.Schedule.StepDuration().Seconds()
			w.Schedule.Add("control", ecs.SystemFunc(func(ew *ecs.World) {
				q := controls.Query(ew.Arche())
				for q.Next() {
					v, in := q.Get()
					if x := float64(in.Value.X) * walkSpeed; v.X != x {
						v.X = x
						ecs.MutateComponent(ew, q.Entity(), ew.IDs.Velocity)
					}
				}
			}))
			w.Schedule.Add("walk", ecs.SystemFunc(func(ew *ecs.World) {
				q := movers.Query(ew.Arche())
				for q.Next() {
					t, v := q.Get()
					if v.X == 0 && v.Y == 0 {
						continue
					}
					t.X += v.X * dt
					t.Y += v.Y * dt
					ecs.MutateComponent(ew, q.Entity(), ew.IDs.Transform)
				}
			}))
			if w.Role == Joined {
				return
			}
			if teleport {
				w.Schedule.Add("teleport", ecs.SystemFunc(func(ew *ecs.World) {
					if ew.Frame() == 90 && ew.Alive(drifter) {
						(*ecs.Transform)(ew.Arche().Get(drifter, ew.IDs.Transform)).X = 500
						ecs.MutateComponent(ew, drifter, ew.IDs.Transform)
						ecs.ReportTeleport(ew, drifter)
					}
				}))
			}
			if nudge {
				players := generic.NewFilter2[ecs.Transform, Input[push]]()
				w.Schedule.Add("nudge", ecs.SystemFunc(func(ew *ecs.World) {
					if ew.Frame() != 90 {
						return
					}
					q := players.Query(ew.Arche())
					for q.Next() {
						t, _ := q.Get()
						t.X += 5
						ecs.MutateComponent(ew, q.Entity(), ew.IDs.Transform)
					}
				}))
			}
			m := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated](w.ECS.Arche())
			drifter = m.NewWith(&ecs.Transform{X: 20, Y: 100}, &ecs.Velocity{X: walkSpeed / 2}, &ecs.NetworkIdentity{}, &ecs.Interpolated{})
		},
		Join: func(w *World, p Peer) error {
			m := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, Input[push]](w.ECS.Arche())
			m.NewWith(&ecs.Transform{Y: -100}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p.ID}, &Input[push]{})
			return nil
		},
	}
	return g, &drifter
}

// walking starts game g with a client 30 ms from its host whose player
// walks on for d, and returns them and the client's player.
func walking(t *testing.T, g *Game[push], d time.Duration) (*pair, arche.Entity) {
	t.Helper()
	p := newPair(t, g, condition.Config{Latency: 30 * time.Millisecond})
	p.client.SetInput(push{X: 1})
	p.run(d)
	own, ok := p.client.Local()
	if !ok {
		t.Fatal("the client has no player")
	}
	return p, own
}

// drawnAt returns where v draws e, its Transform and the view's alpha.
func drawnAt(t *testing.T, v *View, e arche.Entity) (drawn, now ecs.Transform, alpha float64) {
	t.Helper()
	drawn, ok := v.Pose(e)
	if !ok {
		t.Fatalf("entity %v is not drawn", e)
	}
	return drawn, *(*ecs.Transform)(v.World.ECS.Arche().Get(e, v.World.ECS.IDs.Transform)), v.Alpha()
}

// An entity a game moves itself, reporting each write, is drawn blended
// between its last two steps with nothing kept by the game: at alpha a it is
// drawn (1−a) of a step's travel behind its Transform, from its first step
// on (made with a zero Prev, it is not drawn sliding in from the origin).
func TestMovedEntitiesAreDrawnBetweenTheirLastTwoSteps(t *testing.T) {
	g, drifter := walkGame(false, false)
	p := newPair(t, g, condition.Config{Latency: 20 * time.Millisecond})
	step := g.step().Seconds()
	checked := 0
	for range 60 {
		p.run(time.Second / 120) // a frame drawn between two steps, or just after one
		p.host.View(p.clk.Now(), func(v *View) {
			drawn, now, alpha := drawnAt(t, v, *drifter)
			want := now.X - (1-alpha)*walkSpeed/2*step
			if v.World.ECS.Frame() == 0 {
				// Before the first step: drawn at rest where Setup made it.
				want = now.X
			}
			if math.Abs(drawn.X-want) > 1e-9 || drawn.Y != 100 {
				t.Fatalf("frame %d, alpha %.2f: drifter drawn at (%.4f, %.4f) with its Transform at x %.4f: want x %.4f (a step's travel is %.4f)",
					v.World.ECS.Frame(), alpha, drawn.X, drawn.Y, now.X, want, walkSpeed/2*step)
			}
			checked++
		})
	}
	if checked != 60 {
		t.Fatalf("checked %d frames, want 60", checked)
	}
}

// Played alone, where nothing is replicated, a moved entity is drawn
// between its last two steps all the same.
func TestMovedEntitiesAreDrawnAlone(t *testing.T) {
	g, drifter := walkGame(false, false)
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	l, err := NewLocal(g, LocalConfig{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	step := g.step().Seconds()
	l.Advance() // starts the clock
	for range 120 {
		clk.Advance(time.Second / 120)
		l.Advance()
	}
	clk.Advance(time.Second / 240) // a quarter of a step past the last
	l.View(clk.Now(), func(v *View) {
		drawn, now, alpha := drawnAt(t, v, *drifter)
		want := now.X - (1-alpha)*walkSpeed/2*step
		if now.X < 40 || math.Abs(drawn.X-want) > 1e-9 {
			t.Fatalf("alpha %.2f: drifter drawn at x %.4f with its Transform at x %.4f: want x %.4f", alpha, drawn.X, now.X, want)
		}
	})
}

// A teleport reported by a game without physics is drawn as a jump: the
// frames after it show the entity where it landed, not sliding there.
func TestReportedTeleportIsDrawnAsAJump(t *testing.T) {
	g, drifter := walkGame(true, false)
	p := newPair(t, g, condition.Config{})
	for p.host.World().ECS.Frame() < 90 {
		p.run(time.Second / 120)
	}
	for p.host.World().ECS.Frame() == 90 {
		p.host.View(p.clk.Now(), func(v *View) {
			drawn, now, alpha := drawnAt(t, v, *drifter)
			if drawn.X != now.X || now.X != 500 {
				t.Fatalf("alpha %.2f after the teleport: drawn at x %.3f, Transform x %.3f: want both at 500", alpha, drawn.X, now.X)
			}
		})
		p.run(time.Second / 120)
	}
}

// A client predicting its player without physics draws it between its last
// two predicted steps: within a step's travel of its Transform, never
// behind by what it travelled since it arrived, and never going back.
func TestPredictedEntityWithoutPhysicsIsDrawnWhereItIs(t *testing.T) {
	g, _ := walkGame(false, false)
	p, own := walking(t, g, time.Second)
	step := walkSpeed * g.step().Seconds()
	last := math.Inf(-1)
	for i := range 120 {
		p.run(time.Second / 120)
		p.client.View(p.clk.Now(), func(v *View) {
			drawn, now, alpha := drawnAt(t, v, own)
			if now.X < 10 {
				t.Fatalf("the player is at x %.2f after a second of walking: it does not walk", now.X)
			}
			behind := now.X - drawn.X - v.ip.Offset(own).X
			if math.Abs(behind-(1-alpha)*step) > 1e-6 || drawn.X < last-1e-9 {
				t.Fatalf("frame %d (%d), alpha %.2f: drawn at x %.3f (last %.3f), Transform x %.3f, offset %.3f: want %.3f behind it, never going back",
					i, v.World.ECS.Frame(), alpha, drawn.X, last, now.X, v.ip.Offset(own).X, (1-alpha)*step)
			}
			last = drawn.X
		})
	}
}

// A correction of a pose predicted without physics moves the drawn history
// with the Transform: the player is drawn sliding to the host's pose by the
// interpolator's decaying offset, never jumping back and forth.
func TestCorrectionWithoutPhysicsIsDrawnWithoutAJump(t *testing.T) {
	g, _ := walkGame(false, true)
	p, own := walking(t, g, time.Second/2)
	last := math.NaN()
	for range 240 { // two seconds, the host's nudge at frame 90 among them
		p.run(time.Second / 120)
		p.client.View(p.clk.Now(), func(v *View) {
			drawn, now, _ := drawnAt(t, v, own)
			// A frame moves it half a step (0.5) and the offset's decay
			// at most a little more.
			if d := drawn.X - last; d < -1e-9 || d > 1.5 {
				t.Fatalf("frame %d: drawn at x %.3f after %.3f (Transform %.3f, offset %.3f): a jump of %.3f",
					v.World.ECS.Frame(), drawn.X, last, now.X, v.ip.Offset(own).X, d)
			}
			last = drawn.X
		})
	}
	if st := p.client.corr.get(); st.Count == 0 || st.Max < 4 {
		t.Fatalf("pose corrections %+v: the host's nudge was not corrected, the test tests nothing", st)
	}
}

// An entity made with its Prev unset is drawn where it appears, never
// sliding in from the origin: made by a system during a step, or between
// steps (a Do, as a Join hook answering a handshake does).
func TestNewEntitiesAreDrawnWhereTheyAppear(t *testing.T) {
	g, _ := walkGame(false, false)
	at := ecs.Transform{X: 300, Y: 300}
	var inStep arche.Entity
	setup := g.Setup
	g.Setup = func(w *World) {
		setup(w)
		m := generic.NewMap3[ecs.Transform, ecs.NetworkIdentity, ecs.Interpolated](w.ECS.Arche())
		w.Schedule.Add("make", ecs.SystemFunc(func(ew *ecs.World) {
			if ew.Frame() == 3 {
				inStep = m.NewWith(&at, &ecs.NetworkIdentity{}, &ecs.Interpolated{})
			}
		}))
	}
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	l, err := NewLocal(g, LocalConfig{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	l.Advance() // starts the clock
	var between arche.Entity
	l.Do(func(w *World) {
		m := generic.NewMap3[ecs.Transform, ecs.NetworkIdentity, ecs.Interpolated](w.ECS.Arche())
		between = m.NewWith(&at, &ecs.NetworkIdentity{}, &ecs.Interpolated{})
	})
	check := func(when string, e arche.Entity) {
		t.Helper()
		clk.Advance(time.Second / 120) // half a step on: a blend from the origin would show
		l.View(clk.Now(), func(v *View) {
			if drawn, _, alpha := drawnAt(t, v, e); drawn != at {
				t.Fatalf("%s: drawn at %v at alpha %.2f, want %v", when, drawn, alpha, at)
			}
		})
	}
	check("made by a Do between steps", between)
	for l.World().ECS.Frame() < 3 {
		clk.Advance(time.Second / 120)
		l.Advance()
	}
	check("made by a system in step 3", inStep)
}

// A teleport the host reports of a client's own player is drawn on that
// client as a jump, not hidden as a correction: no frame shows it between
// where it was and where it landed, and it counts as a teleport, not as a
// pose correction.
func TestOwnTeleportIsDrawnAsAJump(t *testing.T) {
	g, _ := walkGame(false, false)
	setup := g.Setup
	g.Setup = func(w *World) {
		setup(w)
		if w.Role == Joined {
			return
		}
		players := generic.NewFilter2[ecs.Transform, Input[push]]()
		w.Schedule.Add("warp", ecs.SystemFunc(func(ew *ecs.World) {
			if ew.Frame() != 90 {
				return
			}
			q := players.Query(ew.Arche())
			var warped []arche.Entity
			for q.Next() {
				tf, _ := q.Get()
				tf.X += 2000
				warped = append(warped, q.Entity())
			}
			for _, e := range warped {
				ecs.MutateComponent(ew, e, ew.IDs.Transform)
				ecs.ReportTeleport(ew, e)
			}
		}))
	}
	p, own := walking(t, g, time.Second/2)
	var before, after, between int
	last := math.NaN()
	for range 240 { // two seconds, the host's warp at frame 90 among them
		p.run(time.Second / 120)
		p.client.View(p.clk.Now(), func(v *View) {
			drawn, now, _ := drawnAt(t, v, own)
			switch d := drawn.X - last; {
			case d > 1900:
				after++ // the jump, in one frame
			case d > 1.5 || d < -1e-9:
				t.Fatalf("frame %d: drawn at x %.3f after %.3f (Transform %.3f, offset %.3f): a slide or a step back of %.3f",
					v.World.ECS.Frame(), drawn.X, last, now.X, v.ip.Offset(own).X, d)
			case now.X < 1000:
				before++
			default:
				between++
			}
			last = drawn.X
		})
	}
	if after != 1 || before == 0 || between == 0 {
		t.Fatalf("%d frames before the warp, %d jumps, %d frames after: want one jump between frames on both sides", before, after, between)
	}
	if st := p.client.NetStats().Predict; st.Teleports != 1 || st.MaxPose > 100 {
		t.Fatalf("prediction stats %+v: want one teleport and no pose correction of its size", st)
	}
}

// A window that draws between two steps of a loop stepped on a timer (Run
// on another goroutine) sees what it draws move at every View: the blend
// between the last two steps is by the View's time, not fixed at the last
// step's.
func TestViewsBetweenStepsBlendByTheirTime(t *testing.T) {
	g, drifter := walkGame(false, false)
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	l, err := NewLocal(g, LocalConfig{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	step := g.step()
	l.Advance() // starts the clock
	for range 60 {
		clk.Advance(step)
		l.Advance()
	}
	var last float64
	for i := range 6 {
		l.View(clk.Now(), func(v *View) {
			drawn, now, alpha := drawnAt(t, v, *drifter)
			want := min(float64(i)/4, 1) // a quarter of a step a View, up to the next step
			if math.Abs(alpha-want) > 1e-6 {
				t.Fatalf("View %d, %v after the last step: alpha %.3f, want %.3f", i, time.Duration(i)*step/4, alpha, want)
			}
			if i > 0 && i <= 4 && drawn.X <= last {
				t.Fatalf("View %d: drawn at x %.4f, the View before at %.4f: it did not move", i, drawn.X, last)
			}
			if i >= 4 && math.Abs(drawn.X-now.X) > 1e-6 {
				t.Fatalf("View %d, a step or more after the last: drawn at x %.4f, want its Transform's %.4f", i, drawn.X, now.X)
			}
			last = drawn.X
		})
		clk.Advance(step / 4)
	}
}
