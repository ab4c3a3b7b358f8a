package tandemtest_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/net/wire"
	"github.com/tandem-go/tandem/tandemtest"
)

// Walk is the walkers' input: a step left (-1), none, or right (1).
type Walk struct{ X int8 }

// walkers is a small game: each player walks its figure along a line, two
// units a step; "mallory" is not let in.
var walkers = &tandem.Game[Walk]{
	Components: []tandem.Component{tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose)},
	Input: tandem.InputCodec[Walk]{
		Append: func(dst []byte, in *Walk) []byte { return append(dst, byte(in.X)) },
		Read: func(r *wire.Reader, in *Walk) {
			if in.X = int8(r.U8()); in.X < -1 || in.X > 1 {
				r.Fail(wire.ErrInvalid)
			}
		},
		MaxSize: 1,
	},
	Setup: func(w *tandem.World) {
		walk := generic.NewFilter2[tandem.Input[Walk], ecs.Transform]()
		w.Schedule.Add("walk", ecs.SystemFunc(func(ew *ecs.World) {
			q := walk.Query(ew.Arche())
			for q.Next() {
				in, pose := q.Get()
				if in.Value.X != 0 {
					pose.X += 2 * float64(in.Value.X)
					ecs.MutateComponent(ew, q.Entity(), ew.IDs.Transform)
				}
			}
		}))
	},
	Join: func(w *tandem.World, p tandem.Peer) error {
		if p.Name == "mallory" {
			return tandem.Refuse("not you")
		}
		m := generic.NewMap3[ecs.Transform, ecs.NetworkIdentity, tandem.Input[Walk]](w.ECS.Arche())
		m.NewWith(&ecs.Transform{}, &ecs.NetworkIdentity{Owner: p.ID}, &tandem.Input[Walk]{})
		return nil
	},
}

// hostX returns where the host has peer's figure.
func hostX(t *testing.T, r *tandemtest.Rig[Walk], peer ecs.PeerID) float64 {
	t.Helper()
	x := -1.0
	r.Host.Do(func(w *tandem.World) {
		owned := w.ECS.Owned(peer)
		if len(owned) != 1 {
			t.Fatalf("the host has %d figures of peer %d", len(owned), peer)
		}
		x = (*ecs.Transform)(w.ECS.Arche().Get(owned[0], w.ECS.IDs.Transform)).X
	})
	return x
}

// seenX returns where client c has peer's figure in its world.
func seenX(t *testing.T, c *tandem.Client[Walk], peer ecs.PeerID) float64 {
	t.Helper()
	x := -1.0
	c.Do(func(w *tandem.World) {
		owned := w.ECS.Owned(peer)
		if len(owned) != 1 {
			t.Fatalf("client %d has %d figures of peer %d", c.Peer(), len(owned), peer)
		}
		x = (*ecs.Transform)(w.ECS.Arche().Get(owned[0], w.ECS.IDs.Transform)).X
	})
	return x
}

// Two players join; what one walks, she predicts at once, and the host
// simulates and the other sees once the link carried it; a player the game
// refuses ends with its reason.
func TestJoinAndWalk(t *testing.T) {
	link := condition.Config{Latency: 20 * time.Millisecond}
	r := tandemtest.New(t, walkers, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	bob := r.Join("bob", tandem.ClientConfig[Walk]{})
	if ann.Peer() == bob.Peer() {
		t.Fatalf("ann and bob are both peer %d", ann.Peer())
	}

	ann.SetInput(Walk{X: 1})
	r.Step(30)
	ann.SetInput(Walk{})
	if x := seenX(t, ann, ann.Peer()); x < 50 {
		t.Fatalf("ann predicts her figure at %.0f after 30 steps walking, want 50 or more", x)
	}
	r.Step(30)
	want := hostX(t, r, ann.Peer())
	if want < 50 {
		t.Fatalf("the host has ann's figure at %.0f", want)
	}
	if got := seenX(t, bob, ann.Peer()); got != want {
		t.Fatalf("bob sees ann's figure at %.1f, the host has it at %.1f", got, want)
	}
	if got := seenX(t, ann, ann.Peer()); got != want {
		t.Fatalf("ann has her own figure at %.1f, the host at %.1f", got, want)
	}

	mallory := r.Connect("mallory", tandem.ClientConfig[Walk]{})
	if !r.StepUntil(120, func() bool { return mallory.State() == tandem.Closed }) || !errors.Is(mallory.Err(), tandem.ErrRefused) {
		t.Fatalf("mallory: %v, %v; want closed, refused", mallory.State(), mallory.Err())
	}
	if st := r.Host.Stats(); st.Players != 2 {
		t.Fatalf("the host has %d players, want ann and bob", st.Players)
	}
}

// A player whose link is cut comes back as the same peer, its figure where
// it was; a host that restarts on its save takes its players back.
func TestCutAndRestart(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		save := filepath.Join(t.TempDir(), "walkers.db")
		r := tandemtest.New(t, walkers, tandem.HostConfig{SaveTo: save, Grace: 10 * time.Second}, tandemtest.Config{Bubble: true})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		peer := ann.Peer()
		ann.SetInput(Walk{X: 1})
		r.Step(10)
		ann.SetInput(Walk{})
		r.Step(10)
		at := hostX(t, r, peer)

		first := r.Conn(ann)
		r.Cut(ann)
		if !r.StepUntil(60*60, func() bool { return r.Conn(ann) != first && ann.State() == tandem.Playing }) {
			t.Fatalf("ann after her link was cut: %v (%v)", ann.State(), ann.Err())
		}
		if ann.Peer() != peer || hostX(t, r, peer) != at {
			t.Fatalf("ann came back as peer %d at %.0f, want peer %d at %.0f", ann.Peer(), hostX(t, r, peer), peer, at)
		}

		old := r.Host
		r.Restart()
		if r.Host == old {
			t.Fatal("Restart kept the host")
		}
		if !r.StepUntil(60*60, func() bool { return ann.State() == tandem.Playing && r.Host.Stats().Players == 1 }) {
			t.Fatalf("ann after the restart: %v (%v)", ann.State(), ann.Err())
		}
		if ann.Peer() != peer || hostX(t, r, peer) != at {
			t.Fatalf("ann on the restarted host: peer %d at %.0f, want peer %d at %.0f", ann.Peer(), hostX(t, r, peer), peer, at)
		}
	})
}

// Save saves the host's world now, outside a bubble too: what a player did
// is in the save when it returns.
func TestSave(t *testing.T) {
	r := tandemtest.New(t, walkers, tandem.HostConfig{SaveTo: filepath.Join(t.TempDir(), "walkers.db")}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	ann.SetInput(Walk{X: 1})
	r.Step(5)
	before := r.Host.SaveStats().Commits
	r.Save()
	if st := r.Host.SaveStats(); st.Commits <= before || st.LastErr != nil {
		t.Fatalf("after Save: %+v, want more commits than %d", st, before)
	}
	r.Step(1)
	if st := r.Host.SaveStats(); st.Entities == 0 {
		t.Fatalf("the saves hold no entity: %+v", st)
	}
}

// Mood is a component the walkers' save knows nothing of.
type Mood struct{ Glad bool }

// moodyGame is the walkers whose players have a Mood: a saving host cannot
// save them.
func moodyGame() *tandem.Game[Walk] {
	return &tandem.Game[Walk]{Components: walkers.Components, Input: walkers.Input, Setup: walkers.Setup, Join: walkers.Join}
}

// moodUp gives peer's figure on the rig's host a Mood, which nothing saves,
// and reports it moved, so that the next save writes it, and fails: after
// the join, whose own save (of the player's joining) holds no Mood.
func moodUp(r *tandemtest.Rig[Walk], peer ecs.PeerID) {
	r.Host.Do(func(w *tandem.World) {
		e := w.ECS.Owned(peer)[0]
		w.ECS.Arche().Add(e, arche.ComponentID[Mood](w.ECS.Arche()))
		ecs.MutateComponent(w.ECS, e, w.ECS.IDs.Transform)
	})
}

// recorder is a test's TB that keeps what the rig reports at its end.
type recorder struct {
	testing.TB
	errs     []string
	cleanups []func()
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func (r *recorder) Fatalf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	runtime.Goexit()
}

// stepThenEnd steps rig once on a goroutine of its own, which a Fatalf of
// the rig's ends as it would a test's.
func (r *recorder) stepThenEnd(rig *tandemtest.Rig[Walk]) {
	stepped := make(chan struct{})
	go func() {
		defer close(stepped)
		rig.Step(1)
	}()
	<-stepped
}

// joinThenEnd joins name to lb on a goroutine of its own, which a Fatalf of
// Join ends as it would a test's, then runs the cleanups (end).
func (r *recorder) joinThenEnd(lb *tandemtest.Loopback[Walk], name string) {
	joined := make(chan struct{})
	go func() {
		defer close(joined)
		lb.Join(name, tandem.ClientConfig[Walk]{})
	}()
	<-joined
	r.end()
}

// end runs the cleanups, last first, as a test's end does.
func (r *recorder) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// A host whose final save fails at the test's end (an entity holds a
// component nothing saves) fails the test, which would otherwise pass.
func TestFinalSaveFailsTheTest(t *testing.T) {
	moody := moodyGame()
	rec := &recorder{TB: t}
	r := tandemtest.New(rec, moody, tandem.HostConfig{SaveTo: filepath.Join(t.TempDir(), "moody.db")}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	// Her join asked for a save at the end of a step, which may not have
	// come yet (she may be admitted between steps): made now, before the
	// mood, it leaves only the final save to fail.
	r.Save()
	moodUp(r, ann.Peer())
	r.Step(5)
	rec.end()
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "closing the host") || !strings.Contains(rec.errs[0], "Mood") {
		t.Fatalf("the rig's end reported %q, want the failed final save naming Mood", rec.errs)
	}
}

// The rig's host checks that every write of a replicated component was
// reported: a system that moves the figures without ecs.MutateComponent
// fails the test at the Step that finds it, naming the component and the
// system.
func TestUnreportedWrite(t *testing.T) {
	drift := false
	sneaky := &tandem.Game[Walk]{
		Components: walkers.Components, Input: walkers.Input, Join: walkers.Join,
		Setup: func(w *tandem.World) {
			walkers.Setup(w)
			poses := generic.NewFilter1[ecs.Transform]()
			w.Schedule.Add("drift", ecs.SystemFunc(func(ew *ecs.World) {
				q := poses.Query(ew.Arche())
				for q.Next() {
					if drift {
						q.Get().X += 10 // not reported
					}
				}
			}))
		},
	}
	rec := &recorder{TB: t}
	r := tandemtest.New(rec, sneaky, tandem.HostConfig{}, tandemtest.Config{})
	r.Join("ann", tandem.ClientConfig[Walk]{})
	drift = true
	rec.stepThenEnd(r)
	drift = false
	rec.end()
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "Transform") || !strings.Contains(rec.errs[0], "MutateComponent") ||
		!strings.Contains(rec.errs[0], `by system "drift"`) {
		t.Fatalf("a write without a report: %q, want the test failed naming Transform, the system drift and MutateComponent", rec.errs)
	}
}

// A write without a report made by a hook (Game.Join) or a command handler
// is laid at the engine's system that ran it, whose report-check watch runs
// at the steps the game's code ran in it: net.receive, tandem.commands.
func TestUnreportedWriteInAHookOrHandler(t *testing.T) {
	// shift moves every figure but the one of peer keep, without a report.
	shift := func(w *tandem.World, keep ecs.PeerID) {
		q := generic.NewFilter2[ecs.Transform, ecs.NetworkIdentity]().Query(w.ECS.Arche())
		for q.Next() {
			if pose, id := q.Get(); id.Owner != keep {
				pose.X += 10
			}
		}
	}
	shove := tandem.NewCommand("shove", tandem.CommandCodec[struct{}]{}, func(w *tandem.World, p tandem.Peer, _ struct{}) error {
		shift(w, ecs.HostPeer)
		return nil
	})
	g := *walkersWith(shove)
	g.Join = func(w *tandem.World, p tandem.Peer) error {
		if p.Name == "bob" {
			shift(w, p.ID)
		}
		return walkers.Join(w, p)
	}
	for _, tc := range []struct {
		name, system string
		act          func(r *tandemtest.Rig[Walk], ann *tandem.Client[Walk])
	}{
		{"hook", "net.receive", func(r *tandemtest.Rig[Walk], _ *tandem.Client[Walk]) { r.Connect("bob", tandem.ClientConfig[Walk]{}) }},
		{"handler", "tandem.commands", func(_ *tandemtest.Rig[Walk], ann *tandem.Client[Walk]) {
			if _, err := tandem.Send(ann, shove, struct{}{}); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			r := tandemtest.New(rec, &g, tandem.HostConfig{}, tandemtest.Config{})
			ann := r.Join("ann", tandem.ClientConfig[Walk]{})
			r.Step(10)
			tc.act(r, ann)
			for range 60 {
				if rec.stepThenEnd(r); len(rec.errs) > 0 {
					break
				}
			}
			rec.end()
			if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "Transform") || !strings.Contains(rec.errs[0], `in the engine's system "`+tc.system+`"`) {
				t.Fatalf("a write without a report in a %s: %q, want the test failed naming Transform and %s", tc.name, rec.errs, tc.system)
			}
		})
	}
}

// steps is a host-only component the save keeps: a figure's count of steps.
type steps struct{ N int32 }

// A write of a saved, host-only component without a report fails the test
// at the step that made it, naming the component, as a replicated one's does:
// a restart would not have it.
func TestUnreportedSavedWrite(t *testing.T) {
	count := false
	counting := &tandem.Game[Walk]{
		Components: walkers.Components, Input: walkers.Input,
		Saved: []tandem.Saved{tandem.SaveComponent(tandem.Plain[steps]())},
		Setup: func(w *tandem.World) {
			walkers.Setup(w)
			counted := generic.NewFilter1[steps]()
			w.Schedule.Add("count", ecs.SystemFunc(func(ew *ecs.World) {
				q := counted.Query(ew.Arche())
				for q.Next() {
					if count {
						q.Get().N++ // not reported
					}
				}
			}))
		},
		Join: func(w *tandem.World, p tandem.Peer) error {
			if err := walkers.Join(w, p); err != nil {
				return err
			}
			for _, e := range w.ECS.Owned(p.ID) {
				w.ECS.Arche().Add(e, arche.ComponentID[steps](w.ECS.Arche()))
			}
			return nil
		},
	}
	rec := &recorder{TB: t}
	r := tandemtest.New(rec, counting, tandem.HostConfig{SaveTo: filepath.Join(t.TempDir(), "steps.db")}, tandemtest.Config{})
	r.Join("ann", tandem.ClientConfig[Walk]{})
	r.Step(5)
	if len(rec.errs) != 0 {
		t.Fatalf("before any unreported write: %q", rec.errs)
	}
	count = true
	rec.stepThenEnd(r)
	count = false
	rec.end()
	if len(rec.errs) == 0 || !strings.Contains(rec.errs[0], "steps") || !strings.Contains(rec.errs[0], "MutateComponent") {
		t.Fatalf("a saved write without a report: %q, want the test failed naming steps and MutateComponent", rec.errs)
	}
}

// health is a component whose codec below leaves Max out.
type health struct{ HP, Max int32 }

// A codec that loses a field (here Max, which Quantize and Dequantize leave
// out, while Equal compares it) fails the test naming the component, as an
// unreported write does, rather than ending the test binary.
func TestLossyCodecFailsTheTest(t *testing.T) {
	lossy := replicate.Codec[health]{
		Name: "health", Fields: 1,
		Quantize:   func(v *health, q []int32) { q[0] = v.HP },
		Dequantize: func(q []int32, v *health) { v.HP = q[0] },
		Equal:      func(a, b *health) bool { return *a == *b },
	}
	hurt := &tandem.Game[Walk]{
		Components: append(slices.Clone(walkers.Components), tandem.Replicate(lossy, tandem.HostValue)),
		Input:      walkers.Input, Setup: walkers.Setup,
		Join: func(w *tandem.World, p tandem.Peer) error {
			if err := walkers.Join(w, p); err != nil {
				return err
			}
			for _, e := range w.ECS.Owned(p.ID) {
				w.ECS.Arche().Add(e, arche.ComponentID[health](w.ECS.Arche()))
				*(*health)(w.ECS.Arche().Get(e, arche.ComponentID[health](w.ECS.Arche()))) = health{HP: 10, Max: 100}
			}
			return nil
		},
	}
	rec := &recorder{TB: t}
	r := tandemtest.New(rec, hurt, tandem.HostConfig{}, tandemtest.Config{})
	joined := make(chan struct{})
	go func() {
		defer close(joined)
		r.Join("ann", tandem.ClientConfig[Walk]{})
	}()
	<-joined
	rec.end()
	if len(rec.errs) == 0 || !strings.Contains(rec.errs[0], "health") || !strings.Contains(rec.errs[0], "does not survive its codec") {
		t.Fatalf("a codec that leaves a field out: %q, want the test failed naming health", rec.errs)
	}
}

// In a synctest bubble too, a host whose final save fails fails the test at
// its end, and lets go of its store, so that the bubble ends with no
// goroutine left behind (which would end the test binary).
func TestFinalSaveFailsInABubble(t *testing.T) {
	moody := moodyGame()
	bubble.Test(t, func(t *testing.T) {
		rec := &recorder{TB: t}
		r := tandemtest.New(rec, moody, tandem.HostConfig{SaveTo: filepath.Join(t.TempDir(), "moody.db")}, tandemtest.Config{Bubble: true})
		moodUp(r, r.Join("ann", tandem.ClientConfig[Walk]{}).Peer())
		r.Step(5)
		rec.end()
		if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "closing the host") || !strings.Contains(rec.errs[0], "Mood") {
			t.Errorf("the rig's end reported %q, want the failed final save naming Mood", rec.errs)
		}
	})
}

// A save that fails during play (a component nothing saves) fails the test
// at the Step that hears it, naming the component, rather than at the
// test's end (its receipts would wait meanwhile, with nothing said).
func TestFailedSaveFailsTheStep(t *testing.T) {
	moody := moodyGame()
	bubble.Test(t, func(t *testing.T) {
		rec := &recorder{TB: t}
		r := tandemtest.New(rec, moody, tandem.HostConfig{SaveTo: filepath.Join(t.TempDir(), "moody.db"), SaveEvery: time.Second}, tandemtest.Config{Bubble: true})
		moodUp(r, r.Join("ann", tandem.ClientConfig[Walk]{}).Peer())
		stepped := make(chan int)
		go func() {
			n := 0
			defer func() { stepped <- n }()
			for ; n < 180; n++ {
				r.Step(1)
			}
		}()
		n := <-stepped
		rec.end()
		if n >= 180 || len(rec.errs) == 0 || !strings.Contains(rec.errs[0], "a save failed") || !strings.Contains(rec.errs[0], "Mood") {
			t.Errorf("after %d steps: %q, want the test failed at the step of the first save, naming Mood", n, rec.errs)
		}
	})
}

// A player kept away (Unreachable) dials in vain, and resumes once it can
// reach the host again; one kept away past its window ends, the host out of
// reach.
func TestUnreachable(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := tandemtest.New(t, walkers, tandem.HostConfig{Grace: 2 * time.Second}, tandemtest.Config{Bubble: true})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		first := r.Conn(ann)
		r.Unreachable(ann, true)
		r.Cut(ann)
		if !r.StepUntil(60*60, func() bool { return ann.State() == tandem.Reconnecting }) {
			t.Fatalf("ann never noticed the cut: %v", ann.State())
		}
		r.Step(60)
		if st := ann.State(); st != tandem.Reconnecting || r.Conn(ann) != first {
			t.Fatalf("ann, kept away: %v (%v), a new connection %v; want reconnecting, none", st, ann.Err(), r.Conn(ann) != first)
		}
		r.Unreachable(ann, false)
		if !r.StepUntil(60*60, func() bool { return ann.State() == tandem.Playing }) {
			t.Fatalf("ann after the host can be reached again: %v (%v)", ann.State(), ann.Err())
		}
		if st := r.Host.Stats(); st.Resumed != 1 || st.Joined != 1 {
			t.Fatalf("host %+v: want ann resumed", st)
		}

		r.Unreachable(ann, true)
		r.Cut(ann)
		if !r.StepUntil(60*60, func() bool { return ann.State() == tandem.Closed }) {
			t.Fatalf("ann kept away for good: %v", ann.State())
		}
		if err := ann.Err(); err == nil || !strings.Contains(err.Error(), "Rig.Unreachable") {
			t.Fatalf("ann ended with %v; want the host out of reach", err)
		}
	})
}

// A player whose link carries nothing for a second (Blackout) stays
// connected: the host does not hear her walk meanwhile, and does again
// after, without a resume.
func TestBlackout(t *testing.T) {
	r := tandemtest.New(t, walkers, tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	peer := ann.Peer()
	first := r.Conn(ann)
	r.Blackout(ann, time.Second)
	ann.SetInput(Walk{X: 1})
	r.Step(50)
	if x := hostX(t, r, peer); x != 0 {
		t.Fatalf("the host has ann at %.0f while her link is dark, want 0", x)
	}
	r.Step(60)
	if x := hostX(t, r, peer); x < 50 || ann.State() != tandem.Playing || r.Conn(ann) != first || ann.NetStats().Resumes != 0 {
		t.Fatalf("after the blackout: the host has ann at %.0f, she is %v on a new connection %v; want walking on, playing on the same", x, ann.State(), r.Conn(ann) != first)
	}
}

// HostTimes gives the host's time in each turn of the rig: one a turn, the
// turns whose steps work 2 ms at least that long, and 0 in a bubble, where
// time stands still while code runs.
func TestHostTimesAreTheHostsTurns(t *testing.T) {
	busy := false
	g := *walkers
	g.Setup = func(w *tandem.World) {
		walkers.Setup(w)
		w.Schedule.Add("work", ecs.SystemFunc(func(*ecs.World) {
			for start := time.Now(); busy && time.Since(start) < 2*time.Millisecond; {
			}
		}))
	}
	r := tandemtest.New(t, &g, tandem.HostConfig{}, tandemtest.Config{})
	r.Join("ann", tandem.ClientConfig[Walk]{})
	before := len(r.HostTimes())
	r.Step(10)
	busy = true
	r.Step(5)
	busy = false
	r.Step(10)
	times := r.HostTimes()[before:]
	if len(times) != 25 {
		t.Fatalf("%d host times for 25 turns", len(times))
	}
	for i, d := range times {
		if working := i >= 10 && i < 15; working && d < 2*time.Millisecond || d <= 0 {
			t.Fatalf("turn %d (working: %v) took the host %v", i, working, d)
		}
	}
	bubble.Test(t, func(t *testing.T) {
		r := tandemtest.New(t, walkers, tandem.HostConfig{}, tandemtest.Config{Bubble: true})
		r.Join("ann", tandem.ClientConfig[Walk]{})
		r.Step(5)
		for i, d := range r.HostTimes() {
			if d != 0 {
				t.Fatalf("turn %d in a bubble took the host %v; want 0", i, d)
			}
		}
	})
}
