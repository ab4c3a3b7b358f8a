package tandem

import (
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// Input is the component through which a player's input reaches the entities
// it drives. Each frame, before the game's systems run, the engine writes the
// input of the entity's owner for that frame into Value: on the host the
// input each peer sent for the frame (the host's own, SetInput, for
// entities it owns), on a client its own for the entities it predicts. The
// game's systems read Value, and the same systems run on the host and on a
// predicting client.
//
// Give it to the entities a player drives when spawning them (a client's
// own entities get it on arrival). A computer player is an entity with
// Bot set: the game's own system writes its Value, the engine never does.
type Input[I any] struct {
	// Value is the input for the frame being simulated.
	Value I
	// Bot marks an entity whose Value the game writes itself.
	Bot bool
}

// inputRoute is the system that writes every routed entity's Input for the
// frame: of owner peer, the input source(peer) gives. Cost: the entities
// with Input (an archetype query), not the world.
type inputRoute[I comparable] struct {
	filter *generic.Filter2[Input[I], ecs.NetworkIdentity]
	local  *generic.Filter1[Input[I]]
	source func(peer ecs.PeerID) (I, bool)
}

func newInputRoute[I comparable](source func(ecs.PeerID) (I, bool)) *inputRoute[I] {
	return &inputRoute[I]{
		filter: generic.NewFilter2[Input[I], ecs.NetworkIdentity](),
		local:  generic.NewFilter1[Input[I]]().Without(generic.T[ecs.NetworkIdentity]()),
		source: source,
	}
}

// Update implements ecs.System.
func (r *inputRoute[I]) Update(w *ecs.World) {
	q := r.filter.Query(w.Arche())
	for q.Next() {
		in, ni := q.Get()
		if in.Bot {
			continue
		}
		if v, ok := r.source(ni.Owner); ok {
			in.Value = v
		}
	}
	// Entities that are not networked belong to this machine alone: the
	// host's (or a lone game's) local input drives them.
	lq := r.local.Query(w.Arche())
	for lq.Next() {
		in := lq.Get()
		if in.Bot {
			continue
		}
		if v, ok := r.source(ecs.HostPeer); ok {
			in.Value = v
		}
	}
}
