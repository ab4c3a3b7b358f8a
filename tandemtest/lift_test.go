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
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/physics"
	"github.com/tandem-go/tandem/tandemtest"
)

// The lift game: a player under gravity (+y is down) on a lift, a
// kinematic box of the host's that goes up and down between y 370 and 220
// (about 50 units a second), its place a function of the frame, with static
// ground at y 400 under it. The player hops when its input's count of hops
// grows.

// Hop is the lift game's input: how many hops the player asked for, and
// which way it walks (-1, 0, 1).
type Hop struct {
	Hops uint8
	Walk int8
}

var hopCodec = tandem.InputCodec[Hop]{
	Append: func(dst []byte, in *Hop) []byte { return append(dst, in.Hops, byte(in.Walk)) },
	Read: func(r *wire.Reader, in *Hop) {
		in.Hops, in.Walk = r.U8(), int8(r.U8())
		if in.Walk < -1 || in.Walk > 1 {
			r.Fail(wire.ErrInvalid)
		}
	},
	MaxSize: 2,
}

// liftPath is where a lift of phase ph is at the end of frame f.
func liftPath(f ecs.Frame, ph int32) (x, y float64) {
	const period = 360
	u := float64((int64(f)+int64(ph))%period) / period
	s := 2 * u
	if u >= 0.5 {
		s = 2 - 2*u
	}
	return 0, 370 - 150*s
}

const (
	liftW, liftH   = 120.0, 16.0
	riderW, riderH = 20.0, 30.0
	liftGroundY    = 400.0
	liftGravity    = 1800.0
	liftHopSpeed   = 500.0
)

// liftShape tells the lift from the rider on every machine, and gives the
// lift's phase (frames added to the frame number on its path), which the
// host may change.
type liftShape struct {
	Lift  uint8
	Phase int32
}

// hopped is the count of hops a rider acted on.
type hopped struct{ Hops uint8 }

// liftGame is the lift game; with predict, a client marks the lift
// ecs.Predicted and moves it as the host does (liftTrace, if set, sees
// every machine's world at the end of each of its steps).
func liftGame(predict bool, liftTrace func(w *tandem.World)) *tandem.Game[Hop] {
	return liftGameBy(predict, onPath, liftTrace)
}

// liftVelocity is how the lift's system moves it: the velocity that takes
// the lift (shape s, its body at p) where it goes at the end of frame f, a
// step of dt seconds.
type liftVelocity func(f ecs.Frame, s liftShape, p cp.Vector, dt float64) ecs.Velocity

// onPath steers the lift onto its path (liftPath).
func onPath(f ecs.Frame, s liftShape, p cp.Vector, dt float64) ecs.Velocity {
	x, y := liftPath(f, s.Phase)
	return ecs.Velocity{X: (x - p.X) / dt, Y: (y - p.Y) / dt}
}

// liftGameBy is liftGame with the lift's system moving it by move.
func liftGameBy(predict bool, move liftVelocity, liftTrace func(w *tandem.World)) *tandem.Game[Hop] {
	embody := func(w *tandem.World, e arche.Entity) {
		s := ecs.Get[liftShape](w.ECS, e)
		if s.Lift == 1 {
			w.Physics.AttachBox(e, liftW, liftH, 0, physics.Material{Kinematic: true, Friction: 1})
			if predict && w.Role == tandem.Joined {
				w.ECS.Arche().Add(e, w.ECS.IDs.Predicted)
			}
			return
		}
		w.Physics.AttachBox(e, riderW, riderH, 0, physics.Material{Mass: 1, Friction: 1})
		w.Physics.BodyOf(e).SetMoment(math.Inf(1))
	}
	return &tandem.Game[Hop]{
		Physics: &physics.Config{Gravity: cp.Vector{Y: liftGravity}},
		Components: []tandem.Component{
			tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose),
			tandem.Replicate(replicate.VelocityCodec(), tandem.PredictVelocity),
			tandem.Replicate(replicate.IntegerCodec[liftShape]("liftShape"), tandem.HostValue),
			tandem.Replicate(replicate.IntegerCodec[hopped]("hopped"), tandem.HostValue),
		},
		Input: hopCodec,
		Setup: func(w *tandem.World) {
			w.Physics.StaticSegment(cp.Vector{X: -400, Y: liftGroundY + 2}, cp.Vector{X: 400, Y: liftGroundY + 2}, 2, physics.Material{Friction: 1})
			lifts := generic.NewFilter2[liftShape, physics.Body]()
			w.Schedule.Add("lift", ecs.SystemFunc(func(ew *ecs.World) {
				if w.Role == tandem.Joined && !predict {
					return
				}
				var lift arche.Entity
				var shape liftShape
				q := lifts.Query(ew.Arche())
				for q.Next() {
					if s, _ := q.Get(); s.Lift == 1 {
						lift, shape = q.Entity(), *s
					}
				}
				if !lift.IsZero() {
					p := w.Physics.BodyOf(lift).Position()
					w.Physics.SetVelocity(lift, move(ew.Frame(), shape, p, w.Physics.StepSeconds()))
				}
			}))
			riders := generic.NewFilter3[tandem.Input[Hop], hopped, physics.Body]()
			w.Schedule.Add("hop", ecs.SystemFunc(func(ew *ecs.World) {
				q := riders.Query(ew.Arche())
				type push struct {
					e         arche.Entity
					hop, walk bool
					dir       int8
				}
				var pushes []push
				for q.Next() {
					in, h, _ := q.Get()
					p := push{e: q.Entity(), walk: in.Value.Walk != 0, dir: in.Value.Walk}
					if in.Live && in.Value.Hops != h.Hops {
						h.Hops = in.Value.Hops
						ecs.MutateComponent(ew, q.Entity(), arche.ComponentID[hopped](ew.Arche()))
						p.hop = true
					}
					if p.hop || p.walk {
						pushes = append(pushes, p)
					}
				}
				for _, p := range pushes {
					v := *ecs.Get[ecs.Velocity](ew, p.e)
					if p.hop {
						v.Y -= liftHopSpeed
					}
					if p.walk {
						v.X = 100 * float64(p.dir)
					}
					w.Physics.SetVelocity(p.e, ecs.Velocity{X: v.X, Y: v.Y})
				}
			}))
			w.Schedule.Add("physics", w.Physics)
			if liftTrace != nil {
				w.Schedule.Add("trace", ecs.SystemFunc(func(*ecs.World) { liftTrace(w) }))
			}
			if w.Role == tandem.Joined || w.Restoring {
				return
			}
			x, y := liftPath(w.ECS.Frame(), 0)
			m := generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, liftShape](w.ECS.Arche())
			p := ecs.Transform{X: x, Y: y}
			e := m.NewWith(&p, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: ecs.HostPeer}, &ecs.Interpolated{Prev: p}, &liftShape{Lift: 1})
			embody(w, e)
		},
		Join: func(w *tandem.World, pl tandem.Peer) error {
			// On the lift, where it is.
			m := generic.NewMap6[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, liftShape, hopped](w.ECS.Arche())
			lp := w.Physics.BodyOf(liftOf(w)).Position()
			p := ecs.Transform{X: lp.X, Y: lp.Y - liftH/2 - riderH/2}
			e := m.NewWith(&p, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: pl.ID}, &ecs.Interpolated{Prev: p}, &liftShape{}, &hopped{})
			w.ECS.Arche().Add(e, arche.ComponentID[tandem.Input[Hop]](w.ECS.Arche()))
			embody(w, e)
			return nil
		},
		Arrived: embody,
	}
}

// liftOf and riderOf find the lift and a peer's rider.
func liftOf(w *tandem.World) arche.Entity {
	q := generic.NewFilter1[liftShape]().Query(w.ECS.Arche())
	for q.Next() {
		if q.Get().Lift == 1 {
			e := q.Entity()
			q.Close()
			return e
		}
	}
	return arche.Entity{}
}

func riderOf(w *tandem.World, p ecs.PeerID) arche.Entity {
	if owned := w.ECS.Owned(p); len(owned) == 1 {
		return owned[0]
	}
	return arche.Entity{}
}

// liftTrack records, frame by frame, where a client's lift body was at the
// end of each step, and whether its rider was under the lift's top.
type liftTrack struct {
	peer    ecs.PeerID
	at      map[ecs.Frame]cp.Vector
	hostGap map[ecs.Frame]float64 // the host's rider's feet above the lift's top
	under   int
}

func (lt *liftTrack) trace(w *tandem.World) {
	l := liftOf(w)
	b := w.Physics.BodyOf(l)
	if b == nil {
		return
	}
	if w.Role != tandem.Joined {
		if e := riderOf(w, lt.peer); !e.IsZero() && lt.peer != 0 {
			lt.hostGap[w.ECS.Frame()] = (b.Position().Y - liftH/2) - (w.Physics.BodyOf(e).Position().Y + riderH/2)
		}
		return
	}
	lt.at[w.ECS.Frame()] = b.Position()
	if e := riderOf(w, lt.peer); !e.IsZero() && w.Physics.BodyOf(e) != nil && w.Physics.BodyOf(e).Position().Y > b.Position().Y {
		lt.under++
	}
}

// steps calls fn for each frame the track holds with the one before it,
// with where the client's lift was at each.
func (lt *liftTrack) steps(fn func(f ecs.Frame, prev, at cp.Vector)) {
	for f, at := range lt.at {
		if prev, ok := lt.at[f-1]; ok {
			fn(f, prev, at)
		}
	}
}

// setPhase sets the host's lift's phase (w is the host's world): a lever.
func setPhase(w *tandem.World, ph int32) arche.Entity {
	l := liftOf(w)
	ecs.Get[liftShape](w.ECS, l).Phase = ph
	ecs.MutateComponent(w.ECS, l, arche.ComponentID[liftShape](w.ECS.Arche()))
	return l
}

// liftRun plays a client riding the lift for 20 s over a link of 100 ms ±
// 10 ms each way losing 5% (seed), the lift predicted or not, and returns
// the client's lift track and the client.
func liftRun(t *testing.T, predict bool, seed uint64) (*liftTrack, *tandem.Client[Hop], *tandemtest.Rig[Hop]) {
	return liftRunOf(t, func(trace func(*tandem.World)) *tandem.Game[Hop] { return liftGame(predict, trace) }, 0.05, seed)
}

// liftRunOf is liftRun for the game g makes (given the track's trace),
// over links losing loss.
func liftRunOf(t *testing.T, g func(trace func(*tandem.World)) *tandem.Game[Hop], loss float64, seed uint64) (*liftTrack, *tandem.Client[Hop], *tandemtest.Rig[Hop]) {
	lt := &liftTrack{at: map[ecs.Frame]cp.Vector{}, hostGap: map[ecs.Frame]float64{}}
	r := tandemtest.New(t, g(lt.trace), tandem.HostConfig{}, tandemtest.Config{})
	up := condition.Config{Latency: 100 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: loss, Seed: seed}
	down := condition.Config{Latency: 100 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: loss, Seed: seed + 100}
	c := r.JoinOver("ann", tandem.ClientConfig[Hop]{}, up, down)
	lt.peer = c.Peer()
	// A hop first: it lands on the lift on both machines at the same frame
	// (spawned on it, its client, which began predicting it frames after
	// the host made it, was corrected at every state while it stood there:
	// a correction of a body resting on a moving one sinks it into it or
	// lifts it off, which the next state corrects again).
	r.Step(60)
	c.SetInput(Hop{Hops: 1})
	r.Step(120)
	return lt, c, r
}

// A lift the client predicts (ecs.Predicted: its own system moves it as
// the host's does) is, at every frame the client simulates, where the
// host's is at that frame, through its turns, and its rider rides it
// uncorrected; put on the host's states instead, the client's lift goes
// past each turn by the client's lead and the round trip.
func TestAPredictedLiftIsWhereTheHostsIsAtEachFrame(t *testing.T) {
	for _, predict := range []bool{false, true} {
		lt, c, r := liftRun(t, predict, 1)
		before, bodies := c.NetStats().Predict.PoseCorrections, c.NetStats().Bodies
		lt.under = 0
		clear(lt.at)
		// Where the client draws its rider on the lift: its feet on the
		// lift's top as the host has them at the frames drawn (a turn
		// lifts it off or presses it in a little, on the host too).
		drawn := map[ecs.Frame]float64{}
		for range 1200 {
			r.Step(1)
			c.View(r.Clock.Now(), func(v *tandem.View) {
				rp, ok1 := v.Pose(riderOf(v.World, c.Peer()))
				lp, ok2 := v.Pose(liftOf(v.World))
				if ok1 && ok2 {
					drawn[v.World.ECS.Frame()] = (lp.Y - liftH/2) - (rp.Y + riderH/2)
				}
			})
		}
		r.Step(60) // the host's frames the client drew ahead of it
		drawnOff, compared := 0.0, 0
		for f, gap := range drawn {
			g0, okA := lt.hostGap[f-1]
			g1, okB := lt.hostGap[f]
			if okA && okB {
				drawnOff = max(drawnOff, max(gap-max(g0, g1), min(g0, g1)-gap))
				compared++
			}
		}
		if compared < 1000 {
			t.Fatalf("%d drawn frames compared with the host's", compared)
		}
		worst := 0.0
		for f, at := range lt.at {
			_, y := liftPath(f, 0)
			worst = max(worst, math.Abs(at.Y-y))
		}
		st := c.NetStats()
		corr := st.Predict.PoseCorrections - before
		t.Logf("predicted %v: the client's lift off the host's path by %.2f at worst over %d frames; rider corrected %d times, under the lift %d frames, drawn on it up to %.2f off the host's; lift corrected %d times",
			predict, worst, len(lt.at), corr, lt.under, drawnOff, st.Bodies.Corrected-bodies.Corrected)
		if !predict {
			if worst < 5 {
				t.Errorf("unpredicted, the client's lift was within %.2f of the host's path: the test does not show what predicting it mends", worst)
			}
			continue
		}
		if drawnOff > 0.5 {
			t.Errorf("predicted: the rider drawn on the lift up to %.2f units off where the host has it on the lift at the frames drawn", drawnOff)
		}
		if worst > 0.25 || corr != 0 || lt.under != 0 || st.Bodies.Corrected != bodies.Corrected {
			t.Errorf("predicted: the client's lift off the host's path by %.2f at worst, its rider corrected %d times and under it %d frames, the lift corrected %d times; want all 0",
				worst, corr, lt.under, st.Bodies.Corrected-bodies.Corrected)
		}
	}
}

// A lift the client predicts follows a change of the host's that its own
// system learns late (a lever that shifts the lift's path: its phase): the
// host's states of the frames since differ from what the client had, but
// the state that shows it brings the phase, and the client's system steers
// the lift onto the new path as the host's did, so nothing is corrected
// (moved by an old frame's difference, the lift was steered back, and the
// next state differed the other way: 62 corrections in 3 s, drawn jumping
// 49 units), and from then on it is where the host's is at each frame.
func TestAPredictedLiftFollowsTheHostsChange(t *testing.T) {
	lt, c, r := liftRun(t, true, 2)
	var changed ecs.Frame
	r.Host.Do(func(w *tandem.World) {
		setPhase(w, 90)
		changed = w.ECS.Frame()
	})
	before := c.NetStats().Bodies.Corrected
	var last ecs.Transform
	jump, steps := 0.0, 0
	for range 240 {
		r.Step(1)
		c.View(r.Clock.Now(), func(v *tandem.View) {
			p, ok := v.Pose(liftOf(v.World))
			if ok && steps > 0 {
				jump = max(jump, math.Hypot(p.X-last.X, p.Y-last.Y))
			}
			last, steps = p, steps+1
		})
	}
	clear(lt.at)
	r.Step(600)
	worst := 0.0
	for f, at := range lt.at {
		_, y := liftPath(f, 90)
		worst = max(worst, math.Abs(at.Y-y))
	}
	corrected := c.NetStats().Bodies.Corrected - before
	t.Logf("phase changed at host frame %d: lift corrected %d times, drawn moving at most %.2f a frame; 4 s on, off the host's path by %.2f at worst", changed, corrected, jump, worst)
	if corrected > 1 {
		t.Errorf("the client's lift was corrected %d times after the host changed its path, which its own system follows", corrected)
	}
	if worst > 0.25 {
		t.Errorf("4 s after the host changed the lift's path, the client's lift was %.2f off it", worst)
	}
	if jump > 80 {
		// The new path is at most 75 units from the old: the host's lift
		// jumped so too.
		t.Errorf("the client drew its lift moving %.2f units in a frame, past the new path's distance from the old", jump)
	}
}

// A kinematic body the client does not predict is steered onto the host's
// state, never moved there at a stroke, and is carried forward at its
// velocity however old the host's newest state of it is: on the client
// the lift never jumps (it went through its rider, put back from past a
// turn) nor stands still mid-travel (its newest state older than
// MaxAhead).
func TestAKinematicBodyIsSteeredOntoTheHostsState(t *testing.T) {
	lt, _, r := liftRun(t, false, 3)
	clear(lt.at)
	r.Step(1200)
	step, still := 0.0, 0
	lt.steps(func(f ecs.Frame, prev, at cp.Vector) {
		step = max(step, math.Hypot(at.X-prev.X, at.Y-prev.Y))
		_, y0 := liftPath(f-1, 0)
		_, y1 := liftPath(f, 0)
		if at == prev && y0 != y1 && y1 > 240 && y1 < 350 {
			still++
		}
	})
	t.Logf("the client's lift moved at most %.2f units a frame (the host's %.2f); stood still mid-travel %d frames", step, 150.0/180, still)
	if step > 15 {
		t.Errorf("the client's lift moved %.2f units in a frame: put back at a stroke", step)
	}
	if still > 0 {
		t.Errorf("the client's lift stood still mid-travel %d frames", still)
	}
}

// A predicted lift the host removes leaves the client's world and its
// predictions; the one the host makes next, and a lift whose client took
// its mark away, are each where they should be: the new one predicted at
// every frame, the unmarked one drawn from the host's states again.
func TestAPredictedLiftRemovedAndUnmarked(t *testing.T) {
	lt, c, r := liftRun(t, true, 4)
	r.Host.Do(func(w *tandem.World) {
		w.ECS.Arche().RemoveEntity(liftOf(w))
		x, y := liftPath(w.ECS.Frame(), 0)
		m := generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, liftShape](w.ECS.Arche())
		p := ecs.Transform{X: x, Y: y}
		e := m.NewWith(&p, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: ecs.HostPeer}, &ecs.Interpolated{Prev: p}, &liftShape{Lift: 1})
		w.Physics.AttachBox(e, liftW, liftH, 0, physics.Material{Kinematic: true, Friction: 1})
	})
	r.Step(120)
	clear(lt.at)
	r.Step(300)
	worst := 0.0
	for f, at := range lt.at {
		_, y := liftPath(f, 0)
		worst = max(worst, math.Abs(at.Y-y))
	}
	if worst > 0.25 || len(lt.at) < 300 {
		t.Fatalf("the lift made after the first was removed: %d frames, off the host's path by %.2f at worst", len(lt.at), worst)
	}
	c.Do(func(w *tandem.World) { w.ECS.Arche().Remove(liftOf(w), w.ECS.IDs.Predicted) })
	r.Step(300)
	drawnPast := false
	c.View(r.Clock.Now(), func(v *tandem.View) {
		l := liftOf(v.World)
		p, _ := v.Pose(l)
		b := v.World.Physics.BodyOf(l).Position()
		drawnPast = math.Abs(p.Y-b.Y) > 1 // the body carried ahead, drawn behind
	})
	if !drawnPast {
		t.Error("a lift whose mark the client took away is still drawn where its body is, not from the host's states")
	}
}

// A rider made on a moving lift (not landed on it by a hop on both
// machines at the same frame), whose client began predicting it frames
// after the host made it, is corrected while it settles and then hardly
// at all (at a turn of the lift now and then, which throws it up a
// little): a correction of a past frame no longer sinks it into the lift
// or throws it off (the contact decides that), which the next state
// corrected again, for as long as it stood there (969 corrections in 20 s).
func TestARiderMadeOnAMovingLiftSettles(t *testing.T) {
	lt := &liftTrack{at: map[ecs.Frame]cp.Vector{}, hostGap: map[ecs.Frame]float64{}}
	r := tandemtest.New(t, liftGame(true, lt.trace), tandem.HostConfig{}, tandemtest.Config{})
	link := condition.Config{Latency: 100 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05, Seed: 5}
	c := r.JoinOver("ann", tandem.ClientConfig[Hop]{}, link, link)
	r.Step(180)
	before := c.NetStats().Predict
	r.Step(1200)
	after := c.NetStats().Predict
	pose, vel := after.PoseCorrections-before.PoseCorrections, after.VelocityCorrections-before.VelocityCorrections
	t.Logf("20 s standing on the lift: %d pose and %d velocity corrections", pose, vel)
	if pose+vel > 20 {
		t.Errorf("a rider standing on a lift it was made on was corrected %d times (pose) and %d (velocity) in 20 s", pose, vel)
	}
}

// Another player riding a lift this client predicts is drawn on it as the
// host has it at the drawn frame: the rider is drawn in the past, from the
// host's states, the lift in the present, so the rider is drawn carried by
// the lift (moved by how far the lift is drawn from where its states would
// draw it). Drawn from its states alone it was up to 18.7 units off it.
func TestARemoteRiderIsDrawnOnAPredictedLift(t *testing.T) {
	lt, ann, r := liftRun(t, true, 6)
	link := condition.Config{Latency: 60 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.03, Seed: 60}
	bob := r.JoinOver("bob", tandem.ClientConfig[Hop]{}, link, link)
	r.Step(120)
	type drawnAt struct {
		frame float64
		gap   float64
	}
	var drawn []drawnAt
	for range 1200 {
		r.Step(1)
		bob.View(r.Clock.Now(), func(v *tandem.View) {
			a, ok1 := v.Pose(riderOf(v.World, ann.Peer()))
			l, ok2 := v.Pose(liftOf(v.World))
			if ok1 && ok2 {
				drawn = append(drawn, drawnAt{v.Interpolator().RenderFrame(), (l.Y - liftH/2) - (a.Y + riderH/2)})
			}
		})
	}
	worst, compared := 0.0, 0
	for _, d := range drawn {
		f := ecs.Frame(math.Floor(d.frame))
		g0, ok0 := lt.hostGap[f]
		g1, ok1 := lt.hostGap[f+1]
		if !ok0 || !ok1 {
			continue
		}
		compared++
		worst = max(worst, max(d.gap-max(g0, g1), min(g0, g1)-d.gap))
	}
	t.Logf("bob draws ann on the lift up to %.2f units off the host's gap at the drawn frame (%d frames)", worst, compared)
	if compared < 1000 {
		t.Fatalf("%d drawn frames compared", compared)
	}
	if worst > 3 {
		t.Errorf("bob draws ann up to %.2f units off the lift where the host has her on it", worst)
	}
}

// A rider the host puts on a moving lift (a respawn) as it walks on the
// ground, its player letting go as it sees itself there, is corrected while
// it settles there, and hardly after: a hair deeper in the lift on its
// client than on the host is the contact's to decide, and a difference of
// velocity along the lift, which friction takes away within frames, is
// not carried into the frames recorded since (it was, and the next state
// differed the other way: 189 corrections in 9 s).
func TestARiderPutOnAMovingLiftSettles(t *testing.T) {
	lt := &liftTrack{at: map[ecs.Frame]cp.Vector{}, hostGap: map[ecs.Frame]float64{}}
	r := tandemtest.New(t, liftGame(true, lt.trace), tandem.HostConfig{}, tandemtest.Config{})
	link := condition.Config{Latency: 75 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.03, Seed: 1}
	c := r.JoinOver("ann", tandem.ClientConfig[Hop]{}, link, link)
	lt.peer = c.Peer()
	c.SetInput(Hop{Hops: 1}) // off the lift she was made on
	r.Step(60)
	c.SetInput(Hop{Hops: 1, Walk: 1})
	r.Step(40)
	r.Host.Do(func(w *tandem.World) {
		e, l := riderOf(w, c.Peer()), liftOf(w)
		lp := w.Physics.BodyOf(l).Position()
		w.Physics.SetPose(e, ecs.Transform{X: lp.X - 30, Y: lp.Y - liftH/2 - riderH/2 - 0.5})
		w.Physics.SetVelocity(e, ecs.Velocity{X: 0, Y: w.Physics.BodyOf(l).Velocity().Y})
	})
	r.Step(2)
	c.SetInput(Hop{Hops: 1})
	r.Step(60)
	before := c.NetStats().Predict
	r.Step(540)
	after := c.NetStats().Predict
	pose, vel := after.PoseCorrections-before.PoseCorrections, after.VelocityCorrections-before.VelocityCorrections
	on := false
	r.Host.Do(func(w *tandem.World) {
		rp, lp := w.Physics.BodyOf(riderOf(w, c.Peer())).Position(), w.Physics.BodyOf(liftOf(w)).Position()
		on = math.Abs(rp.X-lp.X) < liftW/2 && math.Abs((lp.Y-liftH/2)-(rp.Y+riderH/2)) < 2
	})
	t.Logf("9 s on the lift after the host put her there: %d pose and %d velocity corrections; on it on the host %v", pose, vel, on)
	if !on {
		t.Fatal("the rider is not on the lift on the host: test set-up")
	}
	if pose+vel > 10 {
		t.Errorf("a rider put on a moving lift was corrected %d times (pose) and %d (velocity) in 9 s", pose, vel)
	}
}
