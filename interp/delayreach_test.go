package interp

import (
	"math"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// A render delay asked for beyond what an entity's kept states cover is
// lowered to it: an entity that came in moving along x and turned to y is
// drawn between its states, not held at its oldest and moved back from it
// by the velocity it came in with.
func TestRenderDelayStaysWithinTheKeptStates(t *testing.T) {
	r := newRig(t, Config{MinDelay: 400 * time.Millisecond})
	anchor := r.spawn(ecs.HostPeer, true, ecs.Transform{})
	const in, turn = ecs.Frame(100), ecs.Frame(160)
	at := func(f ecs.Frame) (ecs.Transform, ecs.Velocity) {
		if f <= turn {
			return ecs.Transform{X: 100 * float64(f-in) * step.Seconds()}, ecs.Velocity{X: 100}
		}
		x := 100 * float64(turn-in) * step.Seconds()
		return ecs.Transform{X: x, Y: 100 * float64(f-turn) * step.Seconds()}, ecs.Velocity{Y: 100}
	}
	var e arche.Entity
	worstX, before, drawn := 0.0, 0, 0
	l := link{latency: 40 * time.Millisecond}
	r.play(l.sends(2, 600, 2), 120, 600*step, func(f ecs.Frame) {
		r.apply(anchor, f, ecs.Transform{})
		if f == in {
			p, v := at(f)
			e = r.spawnMoving(p, v)
		}
		if f >= in {
			p, v := at(f)
			*(*ecs.Velocity)(r.w.Arche().Get(e, r.w.IDs.Velocity)) = v
			r.apply(e, f, p)
		}
	}, func(time.Duration) {
		if e == (arche.Entity{}) || r.ip.Stats().RenderFrame < float64(turn)+20 {
			return
		}
		drawn++
		p, _ := r.ip.Pose(e, 0)
		want, _ := at(turn) // x stays as it was at the turn
		worstX = max(worstX, math.Abs(p.X-want.X))
		before = max(before, r.ip.Stats().Before)
	})
	if drawn == 0 {
		t.Fatal("nothing drawn after the turn")
	}
	reach := keptIntervals * 2 * step
	if d := r.ip.Stats().RenderDelay; d > reach {
		t.Errorf("render delay %v, past the %v the kept states cover", d, reach)
	}
	if before != 0 || worstX > 0.01 {
		t.Errorf("after the turn, %d entities drawn before their oldest state, the turned one up to %.2f units off its x", before, worstX)
	}
}

// The ring that drops an entity's first state drops its velocity: the
// oldest state held is not moved back by it.
func TestDroppingTheFirstStateDropsItsVelocity(t *testing.T) {
	r := newRig(t, Config{})
	e := r.spawnMoving(ecs.Transform{}, ecs.Velocity{X: 100})
	for k := range ringSize {
		r.apply(e, ecs.Frame(2+2*k), ecs.Transform{X: float64(k)})
	}
	s, ok := r.w.NetSlot(e)
	if !ok {
		t.Fatal("the entity has no network slot")
	}
	if v := *r.ip.firstVel(s); v.X != 100 {
		t.Fatalf("with the first of %d states held, its velocity is %+v, want X 100", ringSize, v)
	}
	r.apply(e, ecs.Frame(2+2*ringSize), ecs.Transform{X: ringSize})
	if v := *r.ip.firstVel(s); v != (ecs.Velocity{}) {
		t.Errorf("the first state dropped, its velocity %+v is kept", v)
	}
}
