package tandemtest_test

import (
	"fmt"
	"testing"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/tandemtest"
)

// A match of 48 that connects in one step all plays within a second or so,
// each on its first connection: the host holds as many handshakes as it
// has places (16 of them were closed as busy, and their clients did not
// try again).
func TestAMatchConnectsAtOnce(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := tandemtest.New(t, walkers, tandem.HostConfig{MaxPeers: 64}, tandemtest.Config{Bubble: true})
		r.Step(1)
		first := map[*tandem.Client[Walk]]any{} // each client's first connection
		for i := range 48 {
			c := r.Connect(fmt.Sprintf("p%02d", i), tandem.ClientConfig[Walk]{})
			first[c] = r.Conn(c)
		}
		playing := func() int {
			n := 0
			for _, c := range r.Clients {
				if c.State() == tandem.Playing {
					n++
				}
			}
			return n
		}
		steps := 0
		if !r.StepUntil(90, func() bool { steps++; return playing() == 48 }) {
			for _, c := range r.Clients {
				if c.State() != tandem.Playing {
					t.Logf("%v: %v", c.State(), c.Err())
				}
			}
			t.Fatalf("%d of 48 players who connected at once play 1.5 s later", playing())
		}
		t.Logf("all 48 play %d steps after they connected", steps)
		for c, conn := range first {
			if any(r.Conn(c)) != conn {
				t.Fatalf("peer %d plays on a second connection: the host pushed its first out", c.Peer())
			}
		}
	})
}
