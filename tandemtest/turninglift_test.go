package tandemtest_test

import (
	"math"
	"testing"

	"github.com/jakecoffman/cp/v2"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/tandemtest"
)

// turning keeps the lift where it is, turning at 1 rad/s.
func turning(ecs.Frame, liftShape, cp.Vector, float64) ecs.Velocity {
	return ecs.Velocity{Angular: 1}
}

// A kinematic body the host turns (a revolving door) that the client does
// not predict is steered, in the client's physics, onto the host's angle at
// the same frame, at the host's spin: what the client's own bodies meet is
// where the host has it. (The steering turned it away from the host's angle,
// until it sat half a turn off and flipped at some 48 rad/s; the drawn door
// was right, so nothing showed it until a player hit it.)
func TestATurningKinematicBodyIsSteeredOntoTheHostsAngle(t *testing.T) {
	host, client := map[ecs.Frame]float64{}, map[ecs.Frame]float64{}
	spin := 0.0
	trace := func(w *tandem.World) {
		b := w.Physics.BodyOf(liftOf(w))
		if b == nil {
			return
		}
		if w.Role == tandem.Joined {
			client[w.ECS.Frame()] = b.Angle()
			if w.ECS.Frame() > 300 {
				spin = max(spin, math.Abs(b.AngularVelocity()))
			}
			return
		}
		host[w.ECS.Frame()] = b.Angle()
	}
	r := tandemtest.New(t, liftGameBy(false, turning, trace), tandem.HostConfig{}, tandemtest.Config{})
	r.Join("ann", tandem.ClientConfig[Hop]{})
	r.Step(600)
	worst, compared := 0.0, 0
	for f, a := range client {
		if h, ok := host[f]; ok && f > 300 {
			worst = max(worst, math.Abs(ecs.AngleDiff(h, a)))
			compared++
		}
	}
	t.Logf("%d frames compared: the client's lift up to %.3f rad from the host's at the same frame, spinning at up to %.2f rad/s", compared, worst, spin)
	if compared < 200 || worst > 0.05 || spin > 1.5 {
		t.Fatalf("the client's lift in its physics: up to %.3f rad from the host's angle at the same frame (%d frames), spinning at up to %.2f rad/s where the host's turns at 1", worst, compared, spin)
	}
}
