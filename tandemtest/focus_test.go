package tandemtest_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/clock/bubble"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/tandemtest"
)

// A spectator sees the whole world until the host gives it a square of
// interest (Host.Focus): then it holds what is around that square, and
// Unfocus gives it the whole world back.
func TestFocusASpectator(t *testing.T) {
	r := tandemtest.New(t, beacons(), tandem.HostConfig{Spectators: 1}, tandemtest.Config{})
	r.Join("ann", tandem.ClientConfig[Walk]{})
	sam := r.Join("sam", tandem.ClientConfig[Walk]{Spectator: true})
	held := func() int {
		n := 0
		sam.Do(func(w *tandem.World) { n = w.ECS.Networked() })
		return n
	}
	if n := held(); n != 3 {
		t.Fatalf("a spectator without focus holds %d entities, want the whole world (3)", n)
	}
	r.Host.Do(func(*tandem.World) { r.Host.Focus(sam.Peer(), 20_000, 0) })
	if !r.StepUntil(60, func() bool { return held() == 1 }) {
		t.Fatalf("focused on the beacon, the spectator holds %d entities, want the beacon alone", held())
	}
	r.Host.Do(func(*tandem.World) { r.Host.Unfocus(sam.Peer()) })
	if !r.StepUntil(60, func() bool { return held() == 3 }) {
		t.Fatalf("unfocused, the spectator holds %d entities, want the whole world again", held())
	}
}

// beacons is the walkers' world with a beacon far out, beyond the interest
// radius of the figures at 0, and a rock at the origin, where they are.
func beacons() *tandem.Game[Walk] {
	return walkersWithProps(func(m *generic.Map2[ecs.Transform, ecs.NetworkIdentity]) {
		m.NewWith(&ecs.Transform{X: 20_000}, &ecs.NetworkIdentity{})
		m.NewWith(&ecs.Transform{}, &ecs.NetworkIdentity{})
	})
}

// walkersWithProps is the walkers' game whose host makes its props with
// place as a new world starts (not a restored one).
func walkersWithProps(place func(m *generic.Map2[ecs.Transform, ecs.NetworkIdentity])) *tandem.Game[Walk] {
	g := *walkers
	g.Setup = func(w *tandem.World) {
		walkers.Setup(w)
		if w.Role == tandem.Joined || w.Restoring {
			return
		}
		m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.ECS.Arche())
		place(&m)
	}
	return &g
}

// Focus from the game's Join hook takes effect as the player is admitted:
// one spawned with no entity watches from the beacon. The hook has the
// World, whose Focus is the host's; a client's does nothing.
func TestFocusFromJoin(t *testing.T) {
	g := beacons()
	g.Join = func(w *tandem.World, p tandem.Peer) error {
		w.Focus(p.ID, 20_000, 0)
		return nil
	}
	r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	held := func() int {
		n := 0
		ann.Do(func(w *tandem.World) { n = w.ECS.Networked() })
		return n
	}
	if !r.StepUntil(60, func() bool { return held() == 1 }) {
		t.Fatalf("focused from Join on the beacon, ann holds %d entities, want the beacon alone", held())
	}
	ann.Do(func(w *tandem.World) { w.Focus(ann.Peer(), 0, 0) })
	r.Step(30)
	if n := held(); n != 1 {
		t.Fatalf("a client's own World.Focus changed what it holds: %d entities", n)
	}
}

// A player's square of the game's outlasts a broken connection: resumed,
// it still holds what the square covers.
func TestFocusOutlastsAResume(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := tandemtest.New(t, beacons(), tandem.HostConfig{Grace: 10 * time.Second}, tandemtest.Config{Bubble: true})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		held := func() int {
			n := 0
			ann.Do(func(w *tandem.World) { n = w.ECS.Networked() })
			return n
		}
		if n := held(); n != 2 {
			t.Fatalf("unfocused, ann holds %d entities, want her figure and the rock", n)
		}
		r.Host.Do(func(*tandem.World) { r.Host.Focus(ann.Peer(), 20_000, 0) })
		if !r.StepUntil(60, func() bool { return held() == 3 }) {
			t.Fatalf("focused on the beacon, ann holds %d entities, want 3", held())
		}
		first := r.Conn(ann)
		r.Cut(ann)
		if !r.StepUntil(60*60, func() bool { return r.Conn(ann) != first && ann.State() == tandem.Playing }) {
			t.Fatalf("ann after the cut: %v (%v)", ann.State(), ann.Err())
		}
		r.Step(60)
		if n := held(); n != 3 {
			t.Fatalf("resumed, ann holds %d entities, want the beacon still (3)", n)
		}
	})
}

// A player's square of the game's is in its record of the save: after a
// restart the player resumes into the restored world holding what the
// square covers, the game calling Focus no more. (It held only what is
// around its figure: a camera that stood still showed nothing of where it
// looked until it moved.)
func TestFocusOutlastsARestart(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		cfg := tandem.HostConfig{SaveTo: filepath.Join(t.TempDir(), "beacons.db")}
		r := tandemtest.New(t, beacons(), cfg, tandemtest.Config{Bubble: true})
		ann := r.Join("ann", tandem.ClientConfig[Walk]{})
		bob := r.Join("bob", tandem.ClientConfig[Walk]{})
		held := func(c *tandem.Client[Walk]) int {
			n := 0
			c.Do(func(w *tandem.World) { n = w.ECS.Networked() })
			return n
		}
		r.Host.Do(func(*tandem.World) {
			r.Host.Focus(ann.Peer(), 20_000, 0)
			r.Host.Focus(bob.Peer(), 20_000, 0)
			r.Host.Unfocus(bob.Peer())
		})
		if !r.StepUntil(60, func() bool { return held(ann) == 4 }) {
			t.Fatalf("focused on the beacon, ann holds %d entities, want the two figures, the rock and the beacon", held(ann))
		}
		resumes := ann.NetStats().Resumes
		r.Restart()
		if !r.StepUntil(60*60, func() bool {
			return ann.NetStats().Resumes > resumes && ann.State() == tandem.Playing && bob.State() == tandem.Playing
		}) {
			t.Fatalf("ann after the restart: %v (%v), %d resumes", ann.State(), ann.Err(), ann.NetStats().Resumes)
		}
		r.Step(60)
		if n := held(ann); n != 4 {
			t.Fatalf("resumed into the restored world, ann holds %d entities, want the beacon still (4)", n)
		}
		if n := held(bob); n != 3 {
			t.Fatalf("resumed into the restored world, bob, unfocused before, holds %d entities, want 3 (no beacon)", n)
		}
	})
}

// A spectator in a world where nothing moves is sent nothing, and sends
// nothing, yet notices a link that went dark (by the transport's idle
// timeout, as over QUIC), and comes back watching.
func TestSpectatorNoticesACut(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		r := tandemtest.New(t, beacons(), tandem.HostConfig{Spectators: 1, Grace: 30 * time.Second}, tandemtest.Config{Bubble: true})
		sam := r.Join("sam", tandem.ClientConfig[Walk]{Spectator: true})
		r.Step(120)
		first := r.Conn(sam)
		r.Cut(sam)
		if !r.StepUntil(15*60, func() bool { return r.Conn(sam) != first && sam.State() == tandem.Playing }) {
			t.Fatalf("15 s after its link was cut the spectator is %v on its first connection: %v", sam.State(), r.Conn(sam) == first)
		}
		if n := sam.NetStats().Resumes; n != 1 {
			t.Fatalf("the spectator came back by %d resumes, want 1", n)
		}
	})
}

// Host.InScope, ScopeSize and AppendScope say what the host sends a player: her figure and the rock
// around her, not the beacon far out, until a square of interest there
// brings it; and nothing for a peer the host does not have.
func TestInScopeFollowsTheSquare(t *testing.T) {
	r := tandemtest.New(t, beacons(), tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	in := func(p ecs.PeerID, x float64) (got bool) {
		r.Host.Do(func(w *tandem.World) {
			q := generic.NewFilter1[ecs.Transform]().Query(w.ECS.Arche())
			for q.Next() {
				if q.Get().X == x {
					got = r.Host.InScope(p, q.Entity())
				}
			}
		})
		return got
	}
	size := func(p ecs.PeerID) (n int) {
		r.Host.Do(func(*tandem.World) { n = r.Host.ScopeSize(p) })
		return n
	}
	held := func() (n int) {
		ann.Do(func(w *tandem.World) { n = w.ECS.Networked() })
		return n
	}
	if !in(ann.Peer(), 0) || in(ann.Peer(), 20_000) || size(ann.Peer()) != 2 || held() != 2 {
		t.Fatalf("ann's scope: the rock at 0 %v, the beacon far out %v, %d entities (her client holds %d); want the rock and her figure", in(ann.Peer(), 0), in(ann.Peer(), 20_000), size(ann.Peer()), held())
	}
	r.Host.Do(func(*tandem.World) { r.Host.Focus(ann.Peer(), 20_000, 0) })
	r.Step(1)
	if !in(ann.Peer(), 20_000) || size(ann.Peer()) != 3 {
		t.Fatalf("focused on the beacon, ann's scope holds it: %v, %d entities; want it, with the rock and her figure", in(ann.Peer(), 20_000), size(ann.Peer()))
	}
	if !r.StepUntil(60, func() bool { return held() == 3 }) {
		t.Fatalf("ann's client holds %d entities, her scope 3", held())
	}
	// AppendScope lists the ids her client holds.
	var scope, holds []ecs.NetID
	r.Host.Do(func(*tandem.World) { scope = r.Host.AppendScope(ann.Peer(), scope) })
	ann.Do(func(w *tandem.World) {
		q := generic.NewFilter1[ecs.NetworkIdentity]().Query(w.ECS.Arche())
		for q.Next() {
			holds = append(holds, q.Get().ID)
		}
	})
	slices.Sort(scope)
	slices.Sort(holds)
	if len(scope) != 3 || !slices.Equal(scope, holds) {
		t.Fatalf("AppendScope lists %v; her client holds %v", scope, holds)
	}
	if in(ann.Peer()+1, 0) || size(ann.Peer()+1) != 0 {
		t.Fatal("a peer the host does not have has the rock in its scope")
	}
	r.Host.Do(func(*tandem.World) { scope = r.Host.AppendScope(ann.Peer()+1, scope[:0]) })
	if len(scope) != 0 {
		t.Fatalf("a peer the host does not have has a scope of %v", scope)
	}
}

// The game's Watch hook gives a spectator its camera as it is let in: its
// join brings what the square covers, never the whole world, and after a
// restart (no save keeps a spectator: it is let in afresh) Watch gives it
// the square again.
func TestWatchFocusesASpectator(t *testing.T) {
	bubble.Test(t, func(t *testing.T) {
		g := beacons()
		watched := 0
		g.Watch = func(w *tandem.World, p tandem.Peer) {
			watched++
			w.Focus(p.ID, 20_000, 0)
		}
		r := tandemtest.New(t, g, tandem.HostConfig{Spectators: 1, SaveTo: filepath.Join(t.TempDir(), "beacons.db")}, tandemtest.Config{Bubble: true})
		r.Join("ann", tandem.ClientConfig[Walk]{})
		sam := r.Join("sam", tandem.ClientConfig[Walk]{Spectator: true})
		held := func() int {
			n := 0
			sam.Do(func(w *tandem.World) { n = w.ECS.Networked() })
			return n
		}
		if n := held(); n != 1 || watched != 1 {
			t.Fatalf("the spectator watched (%d times) holds %d entities, want the beacon alone", watched, n)
		}
		r.Restart()
		if !r.StepUntil(60*60, func() bool { return watched == 2 && sam.State() == tandem.Playing && held() == 1 }) {
			t.Fatalf("after the restart: watched %d times, %v, holding %d entities; want the beacon alone again", watched, sam.State(), held())
		}
	})
}

// A player's square follows another's figure (Host.Follow): she holds what
// is around it wherever it goes; once it is removed, the square stays where
// it was last, and Unfocus takes it away.
func TestFollowMovesTheSquareWithTheEntity(t *testing.T) {
	r := tandemtest.New(t, walkersWithProps(func(m *generic.Map2[ecs.Transform, ecs.NetworkIdentity]) {
		for _, x := range []float64{20_000, 30_000} {
			m.NewWith(&ecs.Transform{X: x, Y: 100}, &ecs.NetworkIdentity{})
		}
	}), tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	bob := r.Join("bob", tandem.ClientConfig[Walk]{})
	holds := func(x float64) (ok bool) {
		ann.View(r.Clock.Now(), func(v *tandem.View) {
			q := generic.NewFilter1[ecs.Transform]().Query(v.World.ECS.Arche())
			for q.Next() {
				if p := q.Get(); p.X == x && p.Y == 100 {
					ok = true
				}
			}
		})
		return ok
	}
	var figure arche.Entity
	moveTo := func(x float64) {
		r.Host.Do(func(w *tandem.World) {
			figure = w.ECS.Owned(bob.Peer())[0]
			ecs.Mutate[ecs.Transform](w.ECS, figure).X = x
		})
	}
	moveTo(20_000)
	r.Host.Do(func(*tandem.World) { r.Host.Follow(ann.Peer(), figure) })
	if !r.StepUntil(60, func() bool { return holds(20_000) }) {
		t.Fatal("following bob's figure at 20,000, ann never held the prop there")
	}
	moveTo(30_000)
	if !r.StepUntil(60, func() bool { return holds(30_000) && !holds(20_000) }) {
		t.Fatalf("bob's figure moved to 30,000: ann holds the prop there %v, the one at 20,000 %v; want the square moved with it", holds(30_000), holds(20_000))
	}
	r.Host.Do(func(w *tandem.World) { w.Remove(figure) })
	r.Step(60)
	if !holds(30_000) {
		t.Fatal("bob's figure removed, ann's square left where it was last")
	}
	r.Host.Do(func(*tandem.World) { r.Host.Unfocus(ann.Peer()) })
	if !r.StepUntil(60, func() bool { return !holds(30_000) }) {
		t.Fatal("unfocused, ann still holds the prop at 30,000")
	}
}
