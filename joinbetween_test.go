package tandem

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/quicnet"
)

// propsGame is walkGame with n static networked props on the host: a world
// whose join takes many pages.
func propsGame(n int) *Game[push] {
	g, _ := walkGame(false, false)
	return withProps(g, n, 1)
}

// withProps adds to g's new worlds n static networked props (a Transform
// and a NetworkIdentity), spaced apart on a grid 200 wide, and returns g.
func withProps(g *Game[push], n int, spacing float64) *Game[push] {
	setup := g.Setup
	g.Setup = func(w *World) {
		setup(w)
		if w.Role == Joined || w.Restoring || n == 0 {
			return
		}
		m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.ECS.Arche())
		q := m.NewBatchQ(n)
		for i := 0; q.Next(); i++ {
			tf, _ := q.Get()
			tf.X, tf.Y = float64(i%200)*spacing, float64(i/200)*spacing
		}
	}
	return g
}

// A client's loop applies a join's pages between its steps: with the host
// stepping and the client not, the whole world arrives through the loop's
// work between steps alone, which asks to come back while the join lasts
// and stops asking once the client plays.
func TestJoinIsAppliedBetweenSteps(t *testing.T) {
	const props = 20_000
	g := propsGame(props)
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

// Over QUIC, with Run stepping the client at its fixed rate, the join of a
// world that takes many slices to apply is applied in more slices than the
// steps it spans: between steps, woken by the connection, not a slice a
// step.
func TestRunAppliesAJoinBetweenSteps(t *testing.T) {
	if testing.Short() || raceEnabled {
		// Under the race detector the machine cannot apply pages faster
		// than a slice a step; make test runs this without it.
		t.Skip("a join of 60,000 entities over loopback QUIC, at the machine's own speed")
	}
	const props = 60_000
	g := propsGame(props)
	host, err := NewHost(g, HostConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	htr, err := quicnet.New(quicnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := htr.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host.Serve(l)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { host.Run(ctx) })

	ctr, err := quicnet.New(quicnet.Config{Fingerprint: htr.Fingerprint()})
	if err != nil {
		t.Fatal(err)
	}
	tc, err := ctr.Dial(ctx, l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(g, tc, ClientConfig[push]{Name: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var joined, playing ecs.Frame
	ready := make(chan struct{})
	c.OnEvent(func(e Event) {
		switch e.Kind {
		case session.PeerJoined:
			joined = c.w.ECS.Frame()
		case session.PeerReady:
			playing = c.w.ECS.Frame()
			close(ready)
		}
	})
	wg.Go(func() { c.Run(ctx) })
	select {
	case <-ready:
	case <-ctx.Done():
		t.Fatalf("no join in 30 s: %v, %v", c.State(), c.Err())
	}
	var slices uint64
	c.Do(func(*World) { slices = c.session.Replicator().Stats().JoinSlices })
	steps := uint64(playing - joined)
	t.Logf("the join took %d slices over %d steps", slices, steps)
	if slices < 4 {
		t.Fatalf("the join took %d slices: too few for the test to tell slices between steps from a slice a step", slices)
	}
	if slices <= steps+1 {
		t.Fatalf("the join took %d slices over %d steps: a slice a step, none between", slices, steps)
	}
}
