package tandemtest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/jakecoffman/cp/v2"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/tandemtest"
)

// A lift the client predicts (ecs.Predicted) agrees with the host's while
// it moves, frame after frame: Agree compares it as the client had it at
// the host's frame, not where it is ahead of the host. A client that
// predicts it wrong (its lift pushed off the path after each of its steps)
// never agrees, and Agree names the lift.
func TestAgreeComparesAPredictedBodyAtTheHostsFrame(t *testing.T) {
	for _, skew := range []float64{0, 3} {
		g := liftGame(true, nil)
		g.Join = nil // no rider: a client's own entities run ahead of the host
		setup := g.Setup
		g.Setup = func(w *tandem.World) {
			setup(w)
			if w.Role != tandem.Joined || skew == 0 {
				return
			}
			w.Schedule.Add("skew", ecs.SystemFunc(func(*ecs.World) {
				if b := w.Physics.BodyOf(liftOf(w)); b != nil {
					b.SetPosition(b.Position().Add(cp.Vector{Y: skew}))
				}
			}))
		}
		r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{})
		c := r.Join("ann", tandem.ClientConfig[Hop]{})
		r.Step(120)
		agreed, moved := 0, 0
		var last float64
		var err error
		for range 300 {
			r.Step(1)
			if err = tandemtest.Agree(r.Host, c); err == nil {
				agreed++
			}
			r.Host.Do(func(w *tandem.World) {
				y := w.Physics.BodyOf(liftOf(w)).Position().Y
				if y != last {
					moved++
				}
				last = y
			})
		}
		if moved < 290 {
			t.Fatalf("skew %v: the host's lift moved in %d of 300 frames", skew, moved)
		}
		switch {
		case skew == 0 && agreed != 300:
			t.Fatalf("a lift predicted right agreed with the host's in %d of 300 frames; the last error: %v", agreed, err)
		case skew != 0 && agreed != 0:
			t.Fatalf("a lift predicted %v units off its path agreed with the host's in %d of 300 frames", skew, agreed)
		case skew != 0 && !strings.Contains(err.Error(), "1 with other values"):
			t.Fatalf("a lift predicted %v units off its path: %v", skew, err)
		}
		if skew != 0 {
			continue
		}
		c.Do(func(w *tandem.World) {
			l := liftOf(w)
			if _, ok := w.AppendWireImageAt(nil, l, w.ECS.Frame()+1); ok {
				t.Error("the client gave an image of its lift at a frame it has not simulated")
			}
			at, ok := w.AppendWireImageAt(nil, l, w.ECS.Frame())
			if now := w.AppendWireImage(nil, l); !ok || !slices.Equal(at, now) {
				t.Errorf("the lift's image at the client's own frame: %v (ok %v), as it holds it: %v", at, ok, now)
			}
		})
	}
}

// A client that puts its predicted lift with physics.SetPose, where its
// step left it (a game that places a platform rather than steering it),
// moves it itself: no host state is read as the host's teleport for it,
// the client keeps its records of the lift and Agree keeps agreeing.
func TestAClientsSetPoseOfAPredictedBodyIsNoHostTeleport(t *testing.T) {
	g := liftGame(true, nil)
	g.Join = nil
	setup := g.Setup
	g.Setup = func(w *tandem.World) {
		setup(w)
		if w.Role != tandem.Joined {
			return
		}
		w.Schedule.Add("place", ecs.SystemFunc(func(ew *ecs.World) {
			l := liftOf(w)
			if b := w.Physics.BodyOf(l); b != nil && ew.Frame()%30 == 0 {
				w.Physics.SetPose(l, ecs.Transform{X: b.Position().X, Y: b.Position().Y, Angle: b.Angle()})
			}
		}))
	}
	r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{})
	c := r.Join("ann", tandem.ClientConfig[Hop]{})
	r.Step(120)
	agreed := 0
	var err error
	for range 300 {
		r.Step(1)
		if err = tandemtest.Agree(r.Host, c); err == nil {
			agreed++
		}
	}
	if agreed != 300 {
		t.Fatalf("a lift the client placed where it was agreed with the host's in %d of 300 frames; the last error: %v", agreed, err)
	}
}
