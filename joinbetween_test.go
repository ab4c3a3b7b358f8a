package tandem

import (
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// A client's loop applies a join's pages between its steps: with the host
// stepping and the client not, the whole world arrives through the loop's
// work between steps alone, which asks to come back while the join lasts
// and stops asking once the client plays.
func TestJoinIsAppliedBetweenSteps(t *testing.T) {
	const props = 20_000
	g, _ := walkGame(false, false)
	setup := g.Setup
	g.Setup = func(w *World) {
		setup(w)
		if w.Role == Joined || w.Restoring {
			return
		}
		m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.ECS.Arche())
		q := m.NewBatchQ(props)
		for i := 0; q.Next(); i++ {
			tf, _ := q.Get()
			tf.X, tf.Y = float64(i%200), float64(i/200)
		}
	}
	p := newPair(t, g, condition.Config{Latency: 10 * time.Millisecond})
	c := p.client
	for i := 0; c.State() != session.Joining; i++ { // steps until admitted
		if i == 600 {
			t.Fatalf("the client is %v after 600 steps", c.State())
		}
		p.run(time.Second / 60)
	}
	frame := c.w.ECS.Frame()
	joining := 0
	for i := 0; i < 10_000 && c.State() != session.Playing; i++ {
		p.clk.Advance(time.Millisecond)
		if i%16 == 0 {
			p.host.Advance()
		}
		if c.runBetween() {
			joining++
		}
	}
	if c.State() != session.Playing {
		t.Fatalf("the client is %v after 10 s of work between steps, holding %d entities", c.State(), c.w.ECS.Networked())
	}
	if got := c.w.ECS.Frame(); got != frame {
		t.Fatalf("the client stepped (frame %d, then %d): the test measures the work between steps", frame, got)
	}
	var want int
	p.host.Do(func(w *World) { want = w.ECS.Networked() })
	if got := c.w.ECS.Networked(); got != want || got < props {
		t.Fatalf("the client holds %d networked entities, the host %d", got, want)
	}
	if joining == 0 {
		t.Fatal("the work between steps never asked to come back during the join")
	}
	if c.runBetween() {
		t.Fatal("the work between steps asks to come back while the client plays")
	}
}
