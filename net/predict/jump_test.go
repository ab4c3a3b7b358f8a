package predict

import (
	"math"
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/clock"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// A body that coasts (keeps its velocity) and spins, its angle kept in
// [-π, π) as games do, is teleported and stopped by the host at frame f: the
// present lands on the host's pose, angle 0 included, however far it spun
// since f (its turn summed frame by frame: past half a turn, the shortest
// angle between two poses had counted it backwards).
func TestTeleportStopOfAFastSpin(t *testing.T) {
	for _, spin := range []float64{1, 15} { // rad/s; 20 frames since f: 0.33 and 5 rad
		t.Run(map[float64]string{1: "slow", 15: "fast"}[spin], func(t *testing.T) {
			w := ecs.NewWorld()
			reg := replicate.NewRegistry(w)
			clk := clock.NewFake(time.Unix(5000, 0))
			sched := ecs.NewSchedule(w, clk, 0)
			coast := func(w *ecs.World, _ ecs.Frame, _ *pad) {
				const dt = 1.0 / 60
				for _, e := range w.Owned(localPeer) {
					tf, v := ecs.Get[ecs.Transform](w, e), ecs.Get[ecs.Velocity](w, e)
					tf.X += v.X * dt
					tf.Angle += v.Angular * dt
					if tf.Angle >= math.Pi {
						tf.Angle -= 2 * math.Pi
					}
				}
			}
			pred := NewClient(sched, reg, padCodec, ClientConfig[pad]{
				Clock: clk, Local: func() ecs.PeerID { return localPeer }, Link: &fakeLink{rtt: 100 * time.Millisecond}, Step: coast,
			})
			m3 := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
			e := m3.NewWith(&ecs.Transform{}, &ecs.Velocity{X: 300, Angular: spin}, &ecs.NetworkIdentity{Owner: localPeer})
			sched.AddTo(ecs.StageInput, "input", ecs.SystemFunc(func(w *ecs.World) { pred.SetInput(pad{}) }))
			sched.Add("move", ecs.SystemFunc(func(w *ecs.World) { coast(w, w.Frame(), nil) }))
			for range 40 {
				clk.Advance(ecs.DefaultStep)
				sched.Step()
			}
			f := pred.lastRecorded - 20
			pt := predicted[ecs.Transform](t, pred, f, e, 0)
			host := ecs.Transform{X: pt.X - 1000}
			q := make([]int32, 8)
			replicate.TransformCodec().Quantize(&host, q[reg.Offset(0):])
			replicate.VelocityCodec().Quantize(&ecs.Velocity{}, q[reg.Offset(1):])
			pred.AuthState(f, e, replicate.NewState(reg, q).WithTeleport(f-1))
			got, v := *ecs.Get[ecs.Transform](w, e), *ecs.Get[ecs.Velocity](w, e)
			if math.Abs(got.X-host.X) > 0.1 || math.Abs(ecs.AngleDiff(got.Angle, 0)) > 0.01 || v != (ecs.Velocity{}) {
				t.Fatalf("after the teleport and stop: pose %+v, velocity %+v; want x %.2f, angle 0, still", got, v, host.X)
			}
		})
	}
}
