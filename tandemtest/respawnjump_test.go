package tandemtest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/transport/mem"
	"github.com/tandem-go/tandem/tandemtest"
)

// pickedFlag has one host entity, a flag at x = 100, that jumps to x = 80 at
// host frame 300, reported as a teleport. If give is not 0, the host gives
// the flag to peer 1 at that frame; with strip, it takes the flag's
// Velocity away in the teleport's frame.
func pickedFlag(give ecs.Frame, strip bool) *tandem.Game[Walk] {
	return &tandem.Game[Walk]{
		Components: []tandem.Component{
			tandem.Replicate(replicate.TransformCodec(), tandem.PredictPose),
			tandem.Replicate(replicate.VelocityCodec(), tandem.PredictVelocity),
		},
		Input: walkers.Input,
		Setup: func(w *tandem.World) {
			if w.Role == tandem.Joined {
				return
			}
			m := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.ECS.Arche())
			flag := m.NewWith(&ecs.Transform{X: 100}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
			w.Schedule.Add("pick up", ecs.SystemFunc(func(ew *ecs.World) {
				if give != 0 && ew.Frame() == give {
					ecs.SetOwner(ew, flag, 1)
				}
				if ew.Frame() != 300 {
					return
				}
				ecs.Mutate[ecs.Transform](ew, flag).X = 80
				ecs.ReportTeleport(ew, flag)
				if strip {
					ew.Arche().Remove(flag, ew.IDs.Velocity)
					ecs.MutateComponent(ew, flag, ew.IDs.Velocity)
				}
			}))
		},
	}
}

// A flag given to a player (an owner change) in the frame it jumps onto
// her, or a few frames before, is drawn jumping there by every player, the
// one given it and the others alike, and so is one that loses a component
// in the frame it jumps: the teleport's item is then a spawn of an entity
// the clients hold, which carries the mark of the teleport as an update
// does.
func TestTeleportWithAnOwnerChangeIsDrawnAsAJump(t *testing.T) {
	for _, tc := range []struct {
		give  ecs.Frame
		strip bool
	}{{give: 0}, {give: 200}, {give: 295}, {give: 299}, {give: 300}, {strip: true}} {
		t.Run(fmt.Sprintf("given at %d, stripped %v", tc.give, tc.strip), func(t *testing.T) {
			link := condition.Config{Latency: 40 * time.Millisecond}
			r := tandemtest.New(t, pickedFlag(tc.give, tc.strip), tandem.HostConfig{}, tandemtest.Config{Link: mem.Config{ToHost: link, ToClient: link}})
			ann := r.Join("ann", tandem.ClientConfig[Walk]{})
			bob := r.Join("bob", tandem.ClientConfig[Walk]{})
			if ann.Peer() != 1 || bob.Peer() != 2 {
				t.Fatalf("ann is peer %d, bob %d", ann.Peer(), bob.Peer())
			}
			var frame ecs.Frame
			r.Host.Do(func(w *tandem.World) { frame = w.ECS.Frame() })
			if frame >= 200 {
				t.Fatalf("the players joined at host frame %d, after the flag's events", frame)
			}
			slides := map[string][]float64{}
			jumped := map[string]bool{}
			for range 400 {
				r.Step(1)
				for name, c := range map[string]*tandem.Client[Walk]{"ann": ann, "bob": bob} {
					c.View(r.Clock.Now(), func(v *tandem.View) {
						e, ok := v.World.ECS.EntityOf(1)
						if !ok {
							return
						}
						p, _ := v.Pose(e)
						switch {
						case p.X > 80.01 && p.X < 99.99:
							slides[name] = append(slides[name], p.X)
						case p.X <= 80.01:
							jumped[name] = true
						}
					})
				}
			}
			for _, name := range []string{"ann", "bob"} {
				if s := slides[name]; len(s) > 0 || !jumped[name] {
					t.Errorf("%s draws the flag sliding through %d frames (%.2f), reaching x = 80: %v", name, len(s), s, jumped[name])
				}
			}
		})
	}
}
