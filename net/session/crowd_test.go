package session

import (
	"fmt"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// A crowd that connects at once, more than the host holds handshakes for
// (MaxPending), all plays: the host closes the oldest silent connections
// past it as busy, and each of those clients (with Dial) says Hello again on
// a new connection after a pause. (They ended with "host busy: too many
// connections are handshaking; try again", and did not.)
func TestBusyHostsCrowdComesBack(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{MaxPeers: 12, MaxPending: 4})
		for i := range 12 {
			r.dial(fmt.Sprintf("p%02d", i), "host")
		}
		playing := func() int {
			n := 0
			for _, c := range r.clients {
				if c.cl.State() == Playing {
					n++
				}
			}
			return n
		}
		for i := 0; playing() < 12; i++ {
			if i > 10*60 {
				for _, c := range r.clients {
					t.Logf("%s: %v %v", c.cl.cfg.Name, c.cl.State(), c.cl.Err())
				}
				t.Fatalf("%d of 12 players who connected at once play 10 s later", playing())
			}
			r.step()
		}
		if st := r.host.Stats(); st.Evicted == 0 {
			t.Fatalf("the host pushed out no handshake (%+v): the test did not crowd it", st)
		}
	})
}
