package tandemtest_test

import (
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/tandemtest"
)

// A spectator sees the whole world until the host gives it a square of
// interest (Host.Focus): then it holds what is around that square, and
// Unfocus gives it the whole world back.
func TestFocusASpectator(t *testing.T) {
	beacons := *walkers
	beacons.Setup = func(w *tandem.World) {
		walkers.Setup(w)
		if w.Role == tandem.Joined {
			return
		}
		// A beacon far out, beyond the interest radius of the figures at 0.
		m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.ECS.Arche())
		m.NewWith(&ecs.Transform{X: 20_000}, &ecs.NetworkIdentity{})
	}
	r := tandemtest.New(t, &beacons, tandem.HostConfig{Spectators: 1}, tandemtest.Config{})
	r.Join("ann", tandem.ClientConfig[Walk]{})
	sam := r.Join("sam", tandem.ClientConfig[Walk]{Spectator: true})
	held := func() int {
		n := 0
		sam.Do(func(w *tandem.World) { n = w.ECS.Networked() })
		return n
	}
	if n := held(); n != 2 {
		t.Fatalf("a spectator without focus holds %d entities, want the whole world (2)", n)
	}
	r.Host.Do(func(*tandem.World) { r.Host.Focus(sam.Peer(), 20_000, 0) })
	if !r.StepUntil(60, func() bool { return held() == 1 }) {
		t.Fatalf("focused on the beacon, the spectator holds %d entities, want the beacon alone", held())
	}
	r.Host.Do(func(*tandem.World) { r.Host.Unfocus(sam.Peer()) })
	if !r.StepUntil(60, func() bool { return held() == 2 }) {
		t.Fatalf("unfocused, the spectator holds %d entities, want the whole world again", held())
	}
}
