package session

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// A client the host welcomed, closed as busy by a newcomer past
// MaxPending (no silent one left to close) before its WelcomeAck was read,
// says Hello again, and both play. (Past its Welcome, its session ended.)
func TestAWelcomedClientPushedOutComesBack(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 10 * time.Millisecond}, HostConfig{MaxPeers: 8, MaxPending: 1})
		a := r.dial("a", "host")
		for i := 0; !r.welcomeSent(); i++ {
			if i > 60 {
				t.Fatal("no Welcome")
			}
			r.step()
		}
		b := r.dial("b", "host") // arrives while a's WelcomeAck is on its way
		for range 10 * 60 {
			r.step()
			if a.cl.State() == Playing && b.cl.State() == Playing {
				return
			}
		}
		t.Fatalf("a (welcomed, then pushed out as busy) is %v: %v; b is %v: %v; host evicted %d", a.cl.State(), a.cl.Err(), b.cl.State(), b.cl.Err(), r.host.Stats().Evicted)
	})
}
