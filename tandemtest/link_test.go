package tandemtest_test

import (
	"testing"
	"time"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/tandemtest"
)

// A player given a link of her own (Rig.Link) loses datagrams both ways
// while the others, on the rig's perfect link, lose none; her link holds
// on the connection she resumes on after a cut.
func TestAPlayersOwnLink(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := tandemtest.New(t, walkers, tandem.HostConfig{}, tandemtest.Config{Bubble: true})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		bob := r.Join("bob", tandem.ClientConfig[Walk]{})
		bad := condition.Config{Latency: 30 * time.Millisecond, Loss: 0.2}
		r.Link(bob, bad, bad)
		ann.SetInput(Walk{X: 1})
		bob.SetInput(Walk{X: 1})
		lost := func(c *tandem.Client[Walk]) (toHost, toClient uint64) {
			out, in := r.Conn(c).LinkStats()
			return out.Lost, in.Lost
		}
		r.Step(300)
		if up, down := lost(ann); up != 0 || down != 0 {
			t.Fatalf("ann, on the rig's perfect link, lost %d datagrams to the host and %d from it", up, down)
		}
		if up, down := lost(bob); up == 0 || down == 0 {
			t.Fatalf("bob, on a link of his own losing 20%%, lost %d datagrams to the host and %d from it", up, down)
		}
		first := r.Conn(bob)
		r.Cut(bob)
		if !r.StepUntil(60*60, func() bool { return r.Conn(bob) != first && bob.State() == tandem.Playing }) {
			t.Fatalf("bob after the cut: %v (%v)", bob.State(), bob.Err())
		}
		r.Step(300)
		if up, down := lost(bob); up == 0 || down == 0 {
			t.Fatalf("bob, resumed on a new connection, lost %d datagrams to the host and %d from it: his link was not kept", up, down)
		}
	})
}
