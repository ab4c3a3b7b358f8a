package tandem

import (
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
)

// sliderGame is a world with one entity the host moves at speed units a
// second along x, writing its Transform (no velocity, no body), from frame
// 1 until frame stop, and nothing else.
func sliderGame(speed float64, stop ecs.Frame) *Game[push] {
	return &Game[push]{
		Components: []Component{Replicate(replicate.TransformCodec(), PredictPose)},
		Input:      pushCodec,
		Setup: func(w *World) {
			if w.Role == Joined {
				return
			}
			m := generic.NewMap3[ecs.Transform, ecs.NetworkIdentity, ecs.Interpolated](w.ECS.Arche())
			e := m.NewWith(&ecs.Transform{Y: 50}, &ecs.NetworkIdentity{}, &ecs.Interpolated{})
			dx := speed * w.Schedule.StepDuration().Seconds()
			w.Schedule.Add("slide", ecs.SystemFunc(func(ew *ecs.World) {
				if ew.Frame() > stop {
					return
				}
				(*ecs.Transform)(ew.Arche().Get(e, ew.IDs.Transform)).X += dx
				ecs.MutateComponent(ew, e, ew.IDs.Transform)
			}))
		},
		Join: func(*World, Peer) error { return nil },
	}
}

// In a world that falls still, an entity that stops moving is drawn
// stopping where it stopped: the host's empty states of its quiet ticks
// tell the client that later frames came without it, so it is not
// extrapolated past its stop (which it was by up to MaxExtrapolation's
// worth of its speed, 30 units here, then slid back). Four such states go
// out, then the host sends nothing.
func TestStoppedEntityInStillWorldIsNotDrawnPastItsStop(t *testing.T) {
	const speed, stop = 300.0, 120
	p := newPair(t, sliderGame(speed, stop), condition.Config{Latency: 50 * time.Millisecond})
	final := speed * ecs.DefaultStep.Seconds() * stop
	var past, last float64
	for range 4 * 120 {
		p.run(time.Second / 120)
		p.client.View(p.clk.Now(), func(v *View) {
			owned := v.World.ECS.Owned(ecs.HostPeer)
			if len(owned) != 1 {
				return
			}
			pose, ok := v.Pose(owned[0])
			if !ok {
				return
			}
			past = max(past, pose.X-final)
			last = pose.X
		})
	}
	if last < final-1e-3 || last > final+1e-3 {
		t.Fatalf("drawn at x %.3f at the end, the entity stopped at %.3f", last, final)
	}
	if past > 0.5 {
		t.Fatalf("drawn up to %.2f units past where it stopped (x %.1f)", past, final)
	}
	_, rs, _ := p.host.session.PeerStats(p.client.Peer())
	if rs.Quiet != 4 {
		t.Fatalf("the host sent %d empty states, want 4 after the world fell still", rs.Quiet)
	}
}
