package tandem

import (
	"sync/atomic"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// pressGame is testGame whose input carries a count of presses (push.X,
// which only grows): the host acts on its difference from the count it
// kept in the entity's label, on frames with Live set, as Input's doc
// says, and counts what it acted on in kicks.
func pressGame(kicks *atomic.Int64) func() *Game[push] {
	return func() *Game[push] {
		g := testGame()
		setup := g.Setup
		g.Setup = func(w *World) {
			setup(w)
			if w.Role != Hosting {
				return
			}
			f := generic.NewFilter2[Input[push], label]()
			id := arche.ComponentID[label](w.ECS.Arche())
			w.Schedule.Add("kick", ecs.SystemFunc(func(ew *ecs.World) {
				var kicked []arche.Entity
				q := f.Query(ew.Arche())
				for q.Next() {
					in, kept := q.Get()
					if !in.Live || int32(in.Value.X) == kept.N {
						continue
					}
					// A count only grows: a game takes a smaller one as
					// the new count (a player's client started afresh).
					kicks.Add(max(int64(in.Value.X)-int64(kept.N), 0))
					kept.N = int32(in.Value.X)
					kicked = append(kicked, q.Entity())
				}
				for _, k := range kicked {
					ecs.MutateComponent(ew, k, id)
				}
			}))
		}
		return g
	}
}

// TestPressesSurviveABreak: a player presses three times, its link goes
// dark and it presses once more meanwhile, it resumes and presses once
// more. The host, acting on the count only on frames with Input.Live set,
// acts on each press exactly once: the zero input it gives the player while
// the link is dark, after the resume until the next input arrives, and
// while the client's frame is not yet in step with the host's, is not live.
func TestPressesSurviveABreak(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		var kicks atomic.Int64
		var presses atomic.Int32
		presses.Store(1) // the count the player's label starts with (testGame's Join)
		p := newResumePairOf(t, pressGame(&kicks), condition.Config{Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05, Seed: 7}, HostConfig{})
		a := p.join(func(*World) push { return push{X: int8(presses.Load())} })
		peer := a.Peer()
		zeroNotLive, liveSeen := 0, 0
		check := func() {
			p.host.View(p.clk.Now(), func(v *View) {
				for _, e := range v.World.ECS.Owned(peer) {
					a := v.World.ECS.Arche()
					in := (*Input[push])(a.Get(e, arche.ComponentID[Input[push]](a)))
					switch {
					case in.Live:
						liveSeen++
					case in.Value != (push{}):
						t.Fatalf("the host gave the player %+v, not live: want the zero input", in.Value)
					default:
						zeroNotLive++
					}
				}
			})
		}
		for range 3 {
			presses.Add(1)
			for range 30 {
				p.run(time.Second / 120)
				check()
			}
		}
		a.conn().Cut()
		presses.Add(1) // pressed while the link is dark
		for i := 0; a.State() != session.Playing || a.NetStats().Resumes == 0; i++ {
			if i > 30*120 {
				t.Fatalf("not back after 30 s: %v %v", a.State(), a.Err())
			}
			p.run(time.Second / 120)
			check()
		}
		presses.Add(1)
		for range 120 {
			p.run(time.Second / 120)
			check()
		}
		if got, want := kicks.Load(), int64(presses.Load())-1; got != want {
			t.Fatalf("the host acted on %d presses, the player made %d", got, want)
		}
		if zeroNotLive == 0 || liveSeen == 0 {
			t.Fatalf("frames with the zero input not live: %d, live: %d: the test saw no break", zeroNotLive, liveSeen)
		}
		if st := a.pred.Stats(); st.Unaligned == 0 {
			t.Fatal("the client sent no input before its frame was in step with the host's: the test tests nothing of it")
		}
	})
}

// A client that stops sending without closing its connection (stalled,
// suspended, or gone) stands still on the host a quarter of a second
// later: its last input is repeated for a moment, then the host gives it
// the zero input, not live, long before its connection is declared broken.
func TestStalledPlayerLetsGo(t *testing.T) {
	r := newRig(t, HostConfig{})
	c := r.join("ann", ClientConfig[push]{})
	c.SetInput(push{X: 3})
	r.step(20)
	held := func() (in Input[push]) {
		r.host.Do(func(w *World) {
			q := generic.NewFilter1[Input[push]]().Query(w.ECS.Arche())
			for q.Next() {
				in = *q.Get()
			}
		})
		return in
	}
	if in := held(); in.Value.X != 3 || !in.Live {
		t.Fatalf("a playing client's input on the host: %+v, want X 3, live", in)
	}
	// The client stops: only the host steps on.
	released := 0
	for f := 1; f <= 60 && released == 0; f++ {
		r.clk.Advance(ecs.DefaultStep)
		r.host.Advance()
		if in := held(); in.Value.X == 0 && !in.Live {
			released = f
		}
	}
	// The inputs the client sent ahead (its lead and the link's delay), then
	// 15 repeats.
	if released == 0 || released > 30 {
		t.Fatalf("the stalled player's input was still %+v after 60 host steps, want it let go within 30", held())
	}
	if st := r.host.Stats(); st.Left != 0 {
		t.Fatalf("the stalled player was dropped (%+v): letting go is not leaving", st)
	}
	// It plays again as soon as it steps again.
	r.step(20)
	if in := held(); in.Value.X != 3 || !in.Live {
		t.Fatalf("after the client came back: %+v, want X 3, live", in)
	}
	t.Logf("let go after %d host steps", released)

	// A game that wants the last input held on (MaxInputRepeat negative).
	r = newRig(t, HostConfig{MaxInputRepeat: -1})
	c = r.join("ann", ClientConfig[push]{})
	c.SetInput(push{X: 3})
	r.step(20)
	for range 60 {
		r.clk.Advance(ecs.DefaultStep)
		r.host.Advance()
	}
	if in := held(); in.Value.X != 3 || !in.Live {
		t.Fatalf("with MaxInputRepeat -1, after 60 steps without inputs: %+v, want X 3 held", in)
	}
}
