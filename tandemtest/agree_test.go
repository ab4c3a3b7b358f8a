package tandemtest_test

import (
	"fmt"
	"strings"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/tandemtest"
)

// Agree says a client holds what the host sends it once a walk has ended,
// and names what differs when it does not: a value written on the client
// alone, an entity taken away there.
func TestAgree(t *testing.T) {
	r := tandemtest.New(t, walkers, tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	bob := r.Join("bob", tandem.ClientConfig[Walk]{})
	ann.SetInput(Walk{X: 1})
	r.Step(30)
	ann.SetInput(Walk{})
	for _, c := range []*tandem.Client[Walk]{ann, bob} {
		if !r.StepUntil(600, func() bool { return tandemtest.Agree(r.Host, c) == nil }) {
			t.Fatal(tandemtest.Agree(r.Host, c))
		}
	}
	var annID ecs.NetID
	bob.Do(func(w *tandem.World) {
		e := w.ECS.Owned(ann.Peer())[0]
		ni, _ := w.ECS.Identity(e)
		annID = ni.ID
		ecs.Get[ecs.Transform](w.ECS, e).X += 100 // bob's alone
	})
	err := tandemtest.Agree(r.Host, bob)
	if err == nil || !strings.Contains(err.Error(), "1 with other values") || !strings.Contains(err.Error(), fmt.Sprintf("; 1 with other values (wire images: per component, 1 and its fields, or 0 and zeros): %d:", annID)) {
		t.Fatalf("bob moved ann's figure alone: %v", err)
	}
	bob.Do(func(w *tandem.World) { w.ECS.Arche().RemoveEntity(w.ECS.Owned(ann.Peer())[0]) })
	err = tandemtest.Agree(r.Host, bob)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("1 in its scope and not held (entity ids): %d", annID)) {
		t.Fatalf("bob took ann's figure away: %v", err)
	}
	if err := tandemtest.Agree(r.Host, ann); err != nil {
		t.Fatalf("ann, whom nothing happened to: %v", err)
	}
}

// AgreeExcept leaves out the values of the entities it is told move, and
// still names one the client does not hold.
func TestAgreeExceptLeavesOutTheValuesOfWhatMoves(t *testing.T) {
	r := tandemtest.New(t, walkers, tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	bob := r.Join("bob", tandem.ClientConfig[Walk]{})
	if !r.StepUntil(600, func() bool { return tandemtest.Agree(r.Host, bob) == nil }) {
		t.Fatal(tandemtest.Agree(r.Host, bob))
	}
	annsFigure := func(w *tandem.World, e arche.Entity) bool {
		ni, _ := w.ECS.Identity(e)
		return ni.Owner == ann.Peer()
	}
	bob.Do(func(w *tandem.World) { ecs.Get[ecs.Transform](w.ECS, w.ECS.Owned(ann.Peer())[0]).X += 100 })
	if err := tandemtest.Agree(r.Host, bob); err == nil || !strings.Contains(err.Error(), "1 with other values") {
		t.Fatalf("Agree, bob's copy of ann's figure moved: %v", err)
	}
	if err := tandemtest.AgreeExcept(r.Host, bob, annsFigure); err != nil {
		t.Fatalf("AgreeExcept with ann's figure moving: %v", err)
	}
	if err := tandemtest.AgreeExcept(r.Host, bob, nil); err == nil {
		t.Fatal("AgreeExcept with nothing moving agreed where Agree does not")
	}
	bob.Do(func(w *tandem.World) { w.ECS.Arche().RemoveEntity(w.ECS.Owned(ann.Peer())[0]) })
	if err := tandemtest.AgreeExcept(r.Host, bob, annsFigure); err == nil || !strings.Contains(err.Error(), "1 in its scope and not held") {
		t.Fatalf("AgreeExcept, bob's copy of ann's figure taken away: %v", err)
	}
}
