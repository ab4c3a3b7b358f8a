package tandemtest_test

import (
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
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

// A player whose link loses what the host sends and nothing of what she
// sends is told so (NetStats.LossIn), and her render delay grows to cover
// the losses, as for a link that loses both ways: it was sized by what her
// own datagrams lost (none), and a trial's remote cars were drawn 45 units
// off, moving backwards, where the same loss both ways kept them within 13.
func TestLossTowardTheClientSizesTheRenderDelay(t *testing.T) {
	drawn := *walkers // each figure drawn smoothly on the others' screens
	drawn.Join = func(w *tandem.World, p tandem.Peer) error {
		m := generic.NewMap4[ecs.Transform, ecs.NetworkIdentity, tandem.Input[Walk], ecs.Interpolated](w.ECS.Arche())
		m.NewWith(&ecs.Transform{}, &ecs.NetworkIdentity{Owner: p.ID}, &tandem.Input[Walk]{}, &ecs.Interpolated{})
		return nil
	}
	delays := map[string]time.Duration{}
	for _, tc := range []struct {
		name string
		down float64
	}{{"clean", 0}, {"lossy", 0.1}} {
		bubble.Test(t, func(t *testing.T) {
			r := tandemtest.New(t, &drawn, tandem.HostConfig{SendEvery: 4}, tandemtest.Config{Bubble: true}) // 15 sends a second
			ann := r.Join("ann", tandem.ClientConfig[Walk]{})
			bob := r.Join("bob", tandem.ClientConfig[Walk]{})
			r.Link(ann, condition.Config{Latency: 30 * time.Millisecond}, condition.Config{Latency: 30 * time.Millisecond, Loss: tc.down})
			bob.SetInput(Walk{X: 1})
			for range 60 * 20 {
				r.Step(1)
				ann.View(r.Clock.Now(), func(*tandem.View) {}) // a frame drawn
			}
			st := ann.NetStats()
			t.Logf("%s: loss in %.3f, out %.3f, render delay %v", tc.name, st.LossIn, st.Loss, st.RenderDelay)
			if st.Loss > 0.01 || (tc.down > 0) != (st.LossIn > tc.down/2) || st.LossIn > 2*tc.down+0.01 {
				t.Fatalf("%s link (%.0f%% lost toward the client): loss in %.3f, out %.3f", tc.name, 100*tc.down, st.LossIn, st.Loss)
			}
			delays[tc.name] = st.RenderDelay
		})
	}
	if delays["lossy"] <= delays["clean"] {
		t.Fatalf("render delay %v with 10%% lost toward the client, %v with none: want it longer", delays["lossy"], delays["clean"])
	}
}
