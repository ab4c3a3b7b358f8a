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

// A player that joins over a slow link of its own (JoinOver) aligns its
// clock on that link: once it plays, its inputs reach the host in time,
// where one joined on the rig's perfect link and then given the slow one
// (Join, then Link) sends late ones (115 in its first two seconds) until
// its lead catches up.
func TestJoinOverASlowLink(t *testing.T) {
	slow := condition.Config{Latency: 150 * time.Millisecond}
	late := func(join func(r *tandemtest.Rig[Walk]) *tandem.Client[Walk]) (n uint64) {
		bubble.Test(t, func(t *testing.T) {
			r := tandemtest.New(t, walkers, tandem.HostConfig{}, tandemtest.Config{Bubble: true})
			fay := join(r)
			count := func() (late uint64) {
				r.Host.Do(func(*tandem.World) {
					for _, st := range r.Host.AppendPeerStats(nil) {
						if st.Peer == fay.Peer() {
							late = st.Late
						}
					}
				})
				return late
			}
			r.Step(30) // what it sent before it aligned, on its way meanwhile
			before := count()
			fay.SetInput(Walk{X: 1})
			r.Step(120)
			n = count() - before
		})
		return n
	}
	over := late(func(r *tandemtest.Rig[Walk]) *tandem.Client[Walk] {
		return r.JoinOver("fay", tandem.ClientConfig[Walk]{}, slow, slow)
	})
	then := late(func(r *tandemtest.Rig[Walk]) *tandem.Client[Walk] {
		fay := r.Join("fay", tandem.ClientConfig[Walk]{})
		r.Link(fay, slow, slow)
		return fay
	})
	if over != 0 || then == 0 {
		t.Fatalf("late inputs on the host once playing: %d joined over the slow link (want 0), %d joined then given it (want some)", over, then)
	}
}
