package tandemtest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/tandemtest"
)

// A client whose connection broke dials again for the host's grace window
// and 5 s more: a network that comes back at any time within that window
// has it back in, the last of its dials made at the window's end, however
// long its growing delays had grown (it gave up unseen when the delay
// before its next dial ran past the end: with a grace of 2 s, from about
// 3.75 s on).
func TestANetworkBackBeforeTheRedialWindowEndsHasTheClientIn(t *testing.T) {
	const grace = 2 * time.Second
	for _, back := range []time.Duration{2500 * time.Millisecond, 4 * time.Second, 5500 * time.Millisecond, 6900 * time.Millisecond} {
		t.Run(fmt.Sprint(back), func(t *testing.T) {
			bubble.Test(t, func(t *testing.T) {
				r := tandemtest.New(t, walkers, tandem.HostConfig{Grace: grace}, tandemtest.Config{Bubble: true})
				ann := r.Join("ann", tandem.ClientConfig[Walk]{})
				old := ann.Peer()
				r.Unreachable(ann, true)
				if err := r.Conn(ann).Close(transport.CloseTimeout, "the test's network dropped her"); err != nil {
					t.Fatal(err)
				}
				r.Step(int(back / (time.Second / 60)))
				if st := ann.State(); st != tandem.Reconnecting {
					t.Fatalf("ann %v into a window of %v: %v (%v), want still trying", back, grace+5*time.Second, st, ann.Err())
				}
				r.Unreachable(ann, false)
				if !r.StepUntil(60*10, func() bool { return ann.State() == tandem.Playing && ann.Peer() != old }) {
					t.Fatalf("the network back %v into a window of %v: ann %v (%v), want playing as a new peer", back, grace+5*time.Second, ann.State(), ann.Err())
				}
			})
		})
	}
}
