package tandemtest_test

import (
	"math"
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// shot is what the host's game saw of one press: the view of the input, the
// creep where the player saw it (World.Seen) and where it was as the host
// took the press.
type shot struct {
	view      float64
	seen, now ecs.Transform
}

// runningCreep is walkers with a creep (network id 1, LagCompensated) that
// runs from x −900 at 6 units a step (360 units a second), or with turns,
// at 12 a step (720 units a second), turning back every 15 steps; a press
// (Walk.X 1) of a player's is a shot, whose view and creep the host's game
// appends to shots.
func runningCreep(shots *[]shot, turns bool) *tandem.Game[Walk] {
	return movingWalkers(func(w *tandem.World) {
		m := generic.NewMap4[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, tandem.LagCompensated](w.ECS.Arche())
		creep := m.NewWith(&ecs.Transform{X: -900}, &ecs.Velocity{X: 360}, &ecs.NetworkIdentity{}, &tandem.LagCompensated{})
		w.Schedule.Add("creep", ecs.SystemFunc(func(ew *ecs.World) {
			switch p := ecs.Mutate[ecs.Transform](ew, creep); {
			case !turns:
				p.X += 6
			case ew.Frame()/15%2 == 0:
				p.X += 12
				ecs.Mutate[ecs.Velocity](ew, creep).X = 720
			default:
				p.X -= 12
				ecs.Mutate[ecs.Velocity](ew, creep).X = -720
			}
		}))
		players := generic.NewFilter2[tandem.Input[Walk], ecs.NetworkIdentity]()
		w.Schedule.Add("shots", ecs.SystemFunc(func(ew *ecs.World) {
			q := players.Query(ew.Arche())
			for q.Next() {
				in, _ := q.Get()
				if !in.Live || in.Value.X != 1 {
					continue
				}
				seen, ok := w.Seen(creep, in.View)
				now, _ := w.Seen(creep, float64(ew.Frame()))
				if ok {
					*shots = append(*shots, shot{view: in.View, seen: seen, now: now})
				}
			}
		}))
	})
}

// fire presses c's trigger (Walk.X 1) until the client stepped once, and
// lets go: a turn of the rig steps a client none, one or two times, as its
// clock keeps its lead, so a press of one or two frames, seen from the same
// view.
func fire(r *tandemtest.Rig[Walk], c *tandem.Client[Walk]) {
	f := c.NetStats().Frame
	c.SetInput(Walk{X: 1})
	for n := 0; c.NetStats().Frame == f && n < 5; n++ {
		r.Step(1)
	}
	c.SetInput(Walk{})
}

// A player shoots at a creep she sees running: the host finds it where her
// screen drew it, at the view her input carried, over a round trip of 120
// ms and one of 200 with jitter and loss. Where the host has the creep as it
// takes the shot is 100 to 160 units away: a hit test there misses what she
// aimed at. A creep that turns back between two sends is drawn cutting the
// corner, between the states of the sends around it, and found there too
// (the host's pose of that frame was 6 units off).
func TestAShotFindsTheCreepWhereThePlayerSawIt(t *testing.T) {
	for _, c := range []struct {
		link  condition.Config
		turns bool
	}{
		{condition.Config{Latency: 60 * time.Millisecond}, false},
		{condition.Config{Latency: 100 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05, Seed: 3}, false},
		{condition.Config{Latency: 60 * time.Millisecond}, true},
	} {
		link := c.link
		var shots []shot
		r := tandemtest.New(t, runningCreep(&shots, c.turns), tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		drawn := func() (rf float64, pose ecs.Transform, ok bool) {
			ann.View(r.Clock.Now(), func(v *tandem.View) {
				e, found := v.World.ECS.EntityOf(1)
				if !found {
					return
				}
				pose, ok = v.Pose(e)
				rf = v.Interpolator().RenderFrame()
			})
			return rf, pose, ok
		}
		r.Step(120)
		type aim struct {
			view float64
			pose ecs.Transform
		}
		var aims []aim
		for range 12 {
			for range 9 {
				drawn()
				r.Step(1)
			}
			rf, pose, ok := drawn()
			if !ok {
				t.Fatal("the client does not draw the creep")
			}
			aims = append(aims, aim{rf, pose})
			fire(r, ann)
		}
		r.Step(30)
		worst, nearest := 0.0, math.Inf(1)
		hit := make([]bool, len(aims))
		for i, s := range shots {
			k := -1
			for j, a := range aims {
				if math.Abs(s.view-a.view) <= 1.0/256 {
					k = j
				}
			}
			if k < 0 {
				t.Errorf("latency %v, shot %d: the host's view %.3f is none the player drew", link.Latency, i, s.view)
				continue
			}
			hit[k] = true
			worst = max(worst, math.Abs(s.seen.X-aims[k].pose.X))
			nearest = min(nearest, math.Abs(s.now.X-aims[k].pose.X))
		}
		for k, h := range hit {
			if !h {
				t.Errorf("latency %v: the host took no shot of the player's %dth, aimed from frame %.3f", link.Latency, k+1, aims[k].view)
			}
		}
		t.Logf("latency %v: %d shots, the creep seen up to %.2f units from where the player drew it; as the host took them, %.0f units or more", link.Latency, len(shots), worst, nearest)
		if worst > 1 {
			t.Errorf("latency %v: the host found the creep up to %.2f units from where the player saw it", link.Latency, worst)
		}
		if nearest < 30 && !c.turns {
			t.Errorf("latency %v: the creep as the host took a shot was %.1f units from where the player drew it; the test no longer tells a rewind from none", link.Latency, nearest)
		}
	}
}

// A client that draws nothing (a bot's, a test's) aims at the creep where
// its world has it, the newest state it received: the host finds it there,
// its view the frame of that state. (It took the client's own frame, no
// rewind, and a trial's headless bot missed 124 of 160 shots by a median
// of 52 units.)
func TestAHeadlessClientsShotFindsTheCreepWhereItsWorldHasIt(t *testing.T) {
	link := condition.Config{Latency: 50 * time.Millisecond}
	var shots []shot
	r := tandemtest.New(t, runningCreep(&shots, false), tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	bot := r.Join("bot", tandem.ClientConfig[Walk]{})
	r.Step(120)
	var aims []float64
	for range 12 {
		r.Step(9)
		var x float64
		bot.Do(func(w *tandem.World) {
			e, _ := w.ECS.EntityOf(1)
			x = (*ecs.Transform)(w.ECS.Arche().Get(e, w.ECS.IDs.Transform)).X
		})
		aims = append(aims, x)
		fire(r, bot)
	}
	r.Step(30)
	if len(shots) < len(aims) {
		t.Fatalf("the host took %d shots of %d", len(shots), len(aims))
	}
	// A shot of two frames is seen from the same state: match each to the
	// aim nearest.
	worst := 0.0
	for _, s := range shots {
		best := math.Inf(1)
		for _, a := range aims {
			best = min(best, math.Abs(s.seen.X-a))
		}
		worst = max(worst, best)
	}
	t.Logf("%d shots: the creep found up to %.2f units from where the client's world had it", len(shots), worst)
	if worst > 1 {
		t.Errorf("the host found the creep up to %.2f units from where the headless client's world had it", worst)
	}
}
