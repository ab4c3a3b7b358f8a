package tandemtest_test

import (
	"fmt"
	"testing"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/tandemtest"
)

// A client whose session ended steps no more: its frame and its player
// stay as they were, after its own Close and after the host shut down. It
// ran its systems on, walking its player on the last input (a trial's went
// from x 772 to 1012 in 60 steps), its frame running away from the host's.
func TestAClosedClientStepsNoMore(t *testing.T) {
	r := tandemtest.New(t, walkers, tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	bob := r.Join("bob", tandem.ClientConfig[Walk]{})
	seen := func(c *tandem.Client[Walk]) (f ecs.Frame, x float64) {
		c.Do(func(w *tandem.World) {
			f = w.ECS.Frame()
			if e, ok := c.Local(); ok {
				x = ecs.Get[ecs.Transform](w.ECS, e).X
			}
		})
		return f, x
	}
	ann.SetInput(Walk{X: 1})
	bob.SetInput(Walk{X: 1})
	r.Step(30)
	if err := ann.Close(); err != nil {
		t.Fatal(err)
	}
	f0, x0 := seen(ann)
	r.Step(60)
	if f1, x1 := seen(ann); f1 != f0 || x1 != x0 {
		t.Errorf("after her Close ann's world stepped on: frame %d to %d, her figure from x %.0f to %.0f", f0, f1, x0, x1)
	}
	if err := r.Host.Close(); err != nil {
		t.Fatal(err)
	}
	if !r.StepUntil(60, func() bool { return bob.State() == tandem.Closed }) {
		t.Fatalf("bob after the host closed: %v", bob.State())
	}
	f0, x0 = seen(bob)
	r.Step(60)
	if f1, x1 := seen(bob); f1 != f0 || x1 != x0 {
		t.Errorf("after the host closed bob's world stepped on: frame %d to %d, his figure from x %.0f to %.0f", f0, f1, x0, x1)
	}
}

// A whole match connecting between two host steps gets in: the host keeps
// as many connections waiting for its step as it has places (it kept 16,
// and closed the oldest of a 17th as "host busy", which its client took
// for the end).
func TestAMatchConnectingAtOnceGetsIn(t *testing.T) {
	r := tandemtest.New(t, walkers, tandem.HostConfig{MaxPeers: 24}, tandemtest.Config{})
	var cs []*tandem.Client[Walk]
	for i := range 24 {
		cs = append(cs, r.Connect(fmt.Sprintf("p%d", i), tandem.ClientConfig[Walk]{}))
	}
	playing := func() (n int) {
		for _, c := range cs {
			if c.State() == tandem.Playing {
				n++
			}
		}
		return n
	}
	if !r.StepUntil(60*10, func() bool { return playing() == len(cs) }) {
		for _, c := range cs {
			if c.State() != tandem.Playing {
				t.Errorf("%v: %v", c.State(), c.Err())
			}
		}
		t.Fatalf("%d of %d play", playing(), len(cs))
	}
}
