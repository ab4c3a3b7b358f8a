package tandemtest_test

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/physics"
	"github.com/tandem-go/tandem/tandemtest"
)

// Another player's car on ground friction, driven at full throttle, is put
// on another client's physics where the host has it at that client's frame:
// his drive goes on, so his state is carried in a straight line, not slowed
// as a coasting body's (physics.Space.Carry), which put it behind, its
// velocity lowered.
func TestADrivenBodyIsCarriedAtItsSpeed(t *testing.T) {
	floor := physics.Material{Mass: 4, Velocity: physics.GroundFriction(300)}
	g := *cars
	g.Join = func(w *tandem.World, p tandem.Peer) error {
		pose := ecs.Transform{X: 400, Y: 600 + 200*float64(p.ID)}
		m := generic.NewMap5[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity, ecs.Interpolated, tandem.Input[Pedal]](w.ECS.Arche())
		e := m.NewWith(&pose, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: p.ID}, &ecs.Interpolated{Prev: pose}, &tandem.Input[Pedal]{})
		w.Physics.AttachBox(e, 40, 20, 2, floor)
		return nil
	}
	g.Arrived = func(w *tandem.World, e arche.Entity) { w.Physics.AttachBox(e, 40, 20, 2, floor) }
	hostX := logHostX(&g)
	link := condition.Config{Latency: 75 * time.Millisecond}
	r := tandemtest.New(t, &g, tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
	ann := r.JoinOver("ann", tandem.ClientConfig[Pedal]{}, link, link)
	bob := r.JoinOver("bob", tandem.ClientConfig[Pedal]{}, link, link)
	if ann.Peer() != 1 {
		t.Fatalf("ann is peer %d", ann.Peer())
	}
	ann.SetInput(Pedal{Throttle: 1})
	r.Step(90) // at full speed by now
	bobX := map[ecs.Frame]float64{}
	for range 60 {
		r.Step(1)
		bob.Do(func(w *tandem.World) {
			bobX[w.ECS.Frame()] = w.Physics.BodyOf(w.ECS.Owned(ann.Peer())[0]).Position().X
		})
	}
	r.Step(30) // the host reaches the frames bob ran ahead to
	worst, compared := 0.0, 0
	for f, x := range bobX {
		if hx, ok := hostX[f]; ok {
			worst = max(worst, math.Abs(x-hx))
			compared++
		}
	}
	if compared < 20 {
		t.Fatalf("compared %d frames", compared)
	}
	if worst > 2 {
		t.Fatalf("bob's physics had ann's car, driven at full speed, up to %.1f units from where the host had it at the same frame", worst)
	}
}
