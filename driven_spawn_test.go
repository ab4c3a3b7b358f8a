package tandem

import (
	"fmt"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// An avatar a host's system makes for a player in a step (a respawn) is
// driven by that player's client from the frame it arrives, on a send tick
// or not: the host marks it after the game's systems, before replication.
// (Marked in the next step's input stage, one made on a send tick went
// unmarked and stood still on its client until the next state: 2 to 4
// frames, 4 to 8 units behind a walking player.)
func TestAnAvatarMadeInAStepIsDrivenFromItsArrival(t *testing.T) {
	for _, at := range []ecs.Frame{90, 91} {
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			g := ledgerGame()
			setup := g.Setup
			g.Setup = func(w *World) {
				setup(w)
				if w.Role != Hosting {
					return
				}
				w.Schedule.Add("respawn", ecs.SystemFunc(func(ew *ecs.World) {
					if ew.Frame() == at {
						spawnDisc(w, 1, ecs.Transform{X: 500, Y: -50}, true, 0, 1)
					}
				}))
			}
			r := newRigOf(t, g, HostConfig{})
			ann := r.join("ann", ClientConfig[push]{})
			if ann.Peer() != 1 {
				t.Fatalf("ann is peer %d", ann.Peer())
			}
			for i := 0; ; i++ {
				if i > 200 {
					t.Fatal("the new avatar never reached ann")
				}
				r.step(1)
				var arrived, driven bool
				ann.Do(func(w *World) {
					a := w.ECS.Arche()
					in := arche.ComponentID[Input[push]](a)
					for _, e := range w.ECS.Owned(1) {
						if ecs.Get[ecs.Transform](w.ECS, e).X == 500 {
							arrived, driven = true, a.Has(e, in)
						}
					}
				})
				if !arrived {
					continue
				}
				if !driven {
					t.Fatalf("the avatar the host made at frame %d reached ann without Input: she cannot drive it until the next state", at)
				}
				return
			}
		})
	}
}
