package tandemtest_test

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/tandemtest"
)

// flagGame is walkers where each player is also given a flag (an entity
// she owns and does not drive), and Keep keeps what a leaver owned without
// Input: her flag stays in the world, given to the host; her figure goes.
func flagGame(asked *[]string) *tandem.Game[Walk] {
	g := *walkers
	g.Join = func(w *tandem.World, p tandem.Peer) error {
		if err := walkers.Join(w, p); err != nil {
			return err
		}
		m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.ECS.Arche())
		m.NewWith(&ecs.Transform{X: 100}, &ecs.NetworkIdentity{Owner: p.ID})
		return nil
	}
	g.Keep = func(w *tandem.World, p tandem.Peer, e arche.Entity) bool {
		driven := w.ECS.Arche().Has(e, arche.ComponentID[tandem.Input[Walk]](w.ECS.Arche()))
		*asked = append(*asked, p.Name)
		return !driven
	}
	g.Leave = func(w *tandem.World, p tandem.Peer) {
		*asked = append(*asked, "left:"+p.Name)
	}
	return &g
}

// A player who leaves for good takes with her what Keep does not keep; what
// it keeps stays, given to the host, with its network id, on the host and
// on the other players' screens. Keep is asked before Leave runs.
func TestKeepKeepsWhatALeaverHeld(t *testing.T) {
	var asked []string
	r := tandemtest.New(t, flagGame(&asked), tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	bob := r.Join("bob", tandem.ClientConfig[Walk]{})
	r.Step(10)
	var flag ecs.NetID
	r.Host.Do(func(w *tandem.World) {
		if owned := w.ECS.Owned(ann.Peer()); len(owned) != 2 {
			t.Fatalf("ann owns %d entities; want her figure and her flag", len(owned))
		}
		for _, e := range w.ECS.Owned(ann.Peer()) {
			if (*ecs.Transform)(w.ECS.Arche().Get(e, w.ECS.IDs.Transform)).X == 100 {
				id, _ := w.ECS.Identity(e)
				flag = id.ID
			}
		}
	})
	if flag == 0 {
		t.Fatal("ann's flag was not found on the host")
	}
	ann.Close()
	if !r.StepUntil(60, func() bool { return r.Host.Stats().Players == 1 }) {
		t.Fatalf("the host still has %d players after ann's leave", r.Host.Stats().Players)
	}
	r.Step(10)
	if len(asked) != 3 || asked[0] != "ann" || asked[1] != "ann" || asked[2] != "left:ann" {
		t.Fatalf("hooks ran %q; want Keep asked about ann's two entities, then Leave", asked)
	}
	held := func(name string, w *tandem.World) {
		e, ok := w.ECS.EntityOf(flag)
		if !ok {
			t.Fatalf("%s: ann's flag (network id %d) is gone", name, flag)
		}
		if id, _ := w.ECS.Identity(e); id.Owner != ecs.HostPeer {
			t.Fatalf("%s: ann's flag is owned by %d; want the host", name, id.Owner)
		}
		if n := len(w.ECS.Owned(ann.Peer())); n != 0 {
			t.Fatalf("%s: ann still owns %d entities", name, n)
		}
		if got := w.ECS.Networked(); got != 3 {
			t.Fatalf("%s: %d networked entities; want bob's figure and flag, and ann's flag", name, got)
		}
	}
	r.Host.Do(func(w *tandem.World) { held("host", w) })
	bob.Do(func(w *tandem.World) { held("bob", w) })
}

// A kept entity that a player drove loses its Input: on a host where
// someone plays too, the host's own input would drive it otherwise.
func TestKeptFiguresAreDrivenByNoOne(t *testing.T) {
	g := *walkers
	g.Keep = func(*tandem.World, tandem.Peer, arche.Entity) bool { return true }
	r := tandemtest.New(t, &g, tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	r.Step(5)
	var figure arche.Entity
	r.Host.Do(func(w *tandem.World) { figure = w.ECS.Owned(ann.Peer())[0] })
	ann.Close()
	if !r.StepUntil(60, func() bool { return r.Host.Stats().Players == 0 }) {
		t.Fatal("the host did not see ann leave")
	}
	r.Host.SetInput(Walk{X: 1})
	r.Step(20)
	r.Host.Do(func(w *tandem.World) {
		a := w.ECS.Arche()
		if !a.Alive(figure) {
			t.Fatal("ann's kept figure is gone")
		}
		if a.Has(figure, arche.ComponentID[tandem.Input[Walk]](a)) {
			t.Fatal("ann's kept figure still has an Input")
		}
		if x := (*ecs.Transform)(a.Get(figure, w.ECS.IDs.Transform)).X; x != 0 {
			t.Fatalf("ann's kept figure walked to %v with the host's input; want it still at 0", x)
		}
	})
}

// Keep may change the world: an entity it removes while asked about
// another is not asked about afterwards.
func TestKeepIsNotAskedAboutWhatItRemoved(t *testing.T) {
	var asked []string
	g := flagGame(&asked)
	g.Keep = func(w *tandem.World, p tandem.Peer, e arche.Entity) bool {
		asked = append(asked, p.Name)
		for _, o := range w.ECS.Owned(p.ID) {
			if o != e {
				w.ECS.Arche().RemoveEntity(o) // the other one goes now
				break
			}
		}
		return true
	}
	r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	r.Step(5)
	ann.Close()
	if !r.StepUntil(60, func() bool { return r.Host.Stats().Players == 0 }) {
		t.Fatal("the host did not see ann leave")
	}
	if len(asked) != 2 || asked[0] != "ann" || asked[1] != "left:ann" {
		t.Fatalf("hooks ran %q; want Keep asked once (it removed ann's other entity), then Leave", asked)
	}
	r.Host.Do(func(w *tandem.World) {
		if n := w.ECS.Networked(); n != 1 {
			t.Fatalf("the host holds %d networked entities; want the one kept", n)
		}
	})
}
