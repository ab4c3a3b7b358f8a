package session

import (
	"strings"
	"testing"
	"time"

	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// A peer's close reason is its own text: a newline in it does not reach the
// host's events as a line of their own (launch.LogHost prints them one a
// line), so a player cannot forge lines of the host's log.
func TestAPeersCloseReasonForgesNoLogLine(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := newResumeRig(t, condition.Config{Latency: 5 * time.Millisecond}, HostConfig{})
		c := r.joinFrom("mallory", "203.0.113.7")
		if c.cl.State() != Playing {
			t.Fatalf("join: %v", c.cl.Err())
		}
		c.cl.Conn().Transport().Close(transport.CloseKicked, "x\ndemo: peer 1 (alice) kicked by the host\r\x1b[2K")
		r.steps(100 * time.Millisecond)
		left := 0
		for _, e := range r.events {
			if e.Kind != PeerLeft {
				continue
			}
			left++
			if s := e.String(); strings.ContainsAny(s, "\n\r\x1b") || !strings.Contains(s, "x?demo: peer 1 (alice) kicked by the host??[2K") {
				t.Fatalf("the host's PeerLeft event, as a log writes it: %q", s)
			}
		}
		if left != 1 {
			t.Fatalf("%d PeerLeft events, want 1", left)
		}
	})
}
