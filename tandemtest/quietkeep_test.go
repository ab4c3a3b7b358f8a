package tandemtest_test

import (
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/interp"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/tandemtest"
)

// crateGoneAt has one still crate (network id 1) that the host removes at
// frame gone; nothing else changes: a quiet world.
func crateGoneAt(gone ecs.Frame) *tandem.Game[Walk] {
	return &tandem.Game[Walk]{
		Components: []tandem.Component{
			tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose),
		},
		Input: walkers.Input,
		Setup: func(w *tandem.World) {
			if w.Role == tandem.Joined {
				return
			}
			m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.ECS.Arche())
			m.NewWith(&ecs.Transform{X: 500}, &ecs.NetworkIdentity{})
			w.Schedule.Add("remove", ecs.SystemFunc(func(ew *ecs.World) {
				if ew.Frame() == gone {
					if e, ok := ew.EntityOf(1); ok {
						ew.Arche().RemoveEntity(e)
					}
				}
			}))
		},
	}
}

// A client that drew (View) and then stopped drawing (a minimized window),
// in a world that fell quiet, lets an entity the host removed go, whatever
// its render delay: no newer frame comes to pass the removal by, but no
// drawing came for longer than the render delay either. (With a render
// delay longer than the quiet host's last empty States reach, the client
// kept the crate for ever. A render delay is now held within six send
// intervals, under the eight send ticks those States reach, so the 450 ms
// case runs at 200 ms: it checks that the bound keeps it so.)
func TestAClientThatStoppedDrawingKeepsNothing(t *testing.T) {
	for _, c := range []struct {
		name string
		view bool
		min  time.Duration
	}{{"never-drew", false, 450 * time.Millisecond}, {"drew-once-default", true, 0}, {"drew-once-450ms", true, 450 * time.Millisecond}} {
		t.Run(c.name, func(t *testing.T) { quiet(t, c.view, c.min) })
	}
}

// quiet runs the crate's removal for a client that drew once (view) or
// never, its render delay at least min.
func quiet(t *testing.T, view bool, min time.Duration) {
	const gone = 300
	r := tandemtest.New(t, crateGoneAt(gone), tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{Interp: interp.Config{MinDelay: min}})
	r.Step(30)
	var f0 ecs.Frame
	r.Host.Do(func(w *tandem.World) { f0 = w.ECS.Frame() })
	if f0 >= gone {
		t.Fatalf("joined at %d", f0)
	}
	if view {
		ann.View(r.Clock.Now(), func(v *tandem.View) {}) // drew once (a minimized window after)
	}
	var hostHas bool
	r.Step(gone + 60*20) // 20 s past the removal
	r.Host.Do(func(w *tandem.World) { _, hostHas = w.ECS.EntityOf(1) })
	var annHas bool
	ann.Do(func(w *tandem.World) { _, annHas = w.ECS.EntityOf(1) })
	if hostHas {
		t.Fatal("host still has the crate")
	}
	if annHas {
		t.Fatalf("20 s after the host removed the crate, ann (drew once: %v, render delay at least %v) still holds it", view, min)
	}
}
