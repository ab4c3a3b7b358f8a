package tandemtest_test

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem"
	"github.com/tandem-go/tandem/tandemtest"
)

// An entity marked ecs.Predicted that the client does not predict (one it
// owns, where the mark is ignored; one without a physics body) has no
// record of the host's frame: AppendWireImageAt gives it as the client
// holds it, as AppendWireImage does, so that a world at rest agrees
// (answering ok == false for it, Agree never agreed: "predicted with no
// record of the host's frame").
func TestAgreeOnAPredictedMarkTheClientDoesNotPredict(t *testing.T) {
	g := &tandem.Game[Walk]{
		Components: walkers.Components,
		Input:      walkers.Input,
		Setup:      walkers.Setup,
		Join:       walkers.Join,
		Arrived: func(w *tandem.World, e arche.Entity) {
			if !w.ECS.Arche().Has(e, w.ECS.IDs.Predicted) {
				w.ECS.Arche().Add(e, w.ECS.IDs.Predicted)
			}
		},
	}
	r := tandemtest.New(t, g, tandem.HostConfig{}, tandemtest.Config{})
	ann := r.Join("ann", tandem.ClientConfig[Walk]{})
	bob := r.Join("bob", tandem.ClientConfig[Walk]{})
	r.Step(60)
	for _, c := range []*tandem.Client[Walk]{ann, bob} {
		if !r.StepUntil(600, func() bool { return tandemtest.Agree(r.Host, c) == nil }) {
			t.Fatalf("client %d, a world at rest: %v", c.Peer(), tandemtest.Agree(r.Host, c))
		}
	}
}
