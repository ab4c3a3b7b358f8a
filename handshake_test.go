package tandem

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/session"
	"github.com/tandem-go/tandem/net/transport/mem"
)

// TestRunAnswersAHandshakeAtOnce: a host whose Run idles looks for
// handshakes once after each step, not every millisecond, and answers a
// connection that comes between two steps at once (woken by its arrival),
// not at its next step; the time is synctest's, so the figures are exact.
func TestRunAnswersAHandshakeAtOnce(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		n, err := mem.NewNetwork(clock.Real{}, mem.Config{})
		if err != nil {
			t.Fatal(err)
		}
		l, _ := n.Listen("host")
		g := testGame()
		host, err := NewHost(g, HostConfig{})
		if err != nil {
			t.Fatal(err)
		}
		host.Serve(l)
		var looks int
		inner := host.between
		host.between = func() bool { looks++; return inner() }
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { host.Run(ctx) })
		defer func() {
			cancel()
			wg.Wait()
			host.Close()
		}()
		// Idle for a second, then arrive a third of a step after a step.
		time.Sleep(time.Second + g.step()/3)
		synctest.Wait()
		if steps := int(time.Second / g.step()); looks > steps+1 {
			t.Fatalf("an idle host looked for handshakes %d times in a second of %d steps, want once a step", looks, steps)
		}

		tc, err := n.Dial(context.Background(), "host")
		if err != nil {
			t.Fatal(err)
		}
		w := ecs.NewWorld()
		sched := ecs.NewSchedule(w, clock.Real{}, 0)
		reg := g.registry(w)
		start := time.Now()
		cl, err := session.NewClient(sched, reg, tc, session.ClientConfig{Name: "quick", Schema: g.Schema()})
		if err != nil {
			t.Fatal(err)
		}
		// The client looks every 100 µs: its Welcome, then its admission.
		for cl.State() == session.Connecting {
			if time.Since(start) > time.Second {
				t.Fatalf("no admission in a second: %v", cl.Err())
			}
			time.Sleep(100 * time.Microsecond)
			synctest.Wait()
			sched.Step()
		}
		took := time.Since(start)
		t.Logf("admitted %v after dialing; the next step was %v away", took, g.step()*2/3)
		if took > 3*time.Millisecond {
			t.Fatalf("admitted %v after dialing, want within 3 ms (the host waited for a step)", took)
		}
		if cl.State() != session.Joining && cl.State() != session.Playing {
			t.Fatalf("client state %v, want joining", cl.State())
		}
	})
}
