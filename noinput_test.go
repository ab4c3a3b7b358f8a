package tandem

import (
	"strings"
	"testing"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
	"github.com/tandem-go/tandem/net/transport/condition"
	"github.com/tandem-go/tandem/net/wire"
)

// A game played by commands alone is a Game[NoInput] with no Input codec:
// its player joins and its commands move what it owns. A game whose input
// has a size still needs one, and the error says what to do.
func TestAGameOfCommandsAloneNeedsNoInput(t *testing.T) {
	move := NewCommand("move", CommandCodec[int32]{
		Append: func(dst []byte, v *int32) []byte { return wire.AppendUvarint(dst, uint64(uint32(*v))) },
		Read:   func(r *wire.Reader, v *int32) { *v = int32(r.Uvarint32()) },
	}, func(w *World, p Peer, x int32) error {
		for _, e := range w.ECS.Owned(p.ID) {
			ecs.Get[ecs.Transform](w.ECS, e).X = float64(x)
			ecs.MutateComponent(w.ECS, e, w.ECS.IDs.Transform)
		}
		return nil
	})
	g := &Game[NoInput]{
		Components: []Component{Replicate(replicate.TransformCodec(), HostValue)},
		Commands:   []Command{move},
		Setup:      func(*World) {},
		Join: func(w *World, p Peer) error {
			m := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.ECS.Arche())
			e := m.NewWith(&ecs.Transform{}, &ecs.NetworkIdentity{Owner: p.ID})
			w.ECS.Arche().Add(e, w.ECS.IDs.HostMoved)
			return nil
		},
		Arrived: func(w *World, e arche.Entity) { w.ECS.Arche().Add(e, w.ECS.IDs.HostMoved) },
	}
	p := newPairOfInput(t, g, g, condition.Config{}, HostConfig{}, ClientConfig[NoInput]{})
	c := p.client
	run := p.run
	run(time.Second / 2)
	if c.State() != Playing {
		t.Fatalf("the player is %v (%v)", c.State(), c.Err())
	}
	if _, err := Send(c, move, 40); err != nil {
		t.Fatal(err)
	}
	run(time.Second / 2)
	var x float64
	c.Do(func(w *World) {
		for _, e := range w.ECS.Owned(c.Peer()) {
			x = ecs.Get[ecs.Transform](w.ECS, e).X
		}
	})
	if x != 40 {
		t.Fatalf("the player's unit is at %v on its client after its command moved it to 40", x)
	}
	type sized struct{ X int8 }
	_, err := NewHost(&Game[sized]{Setup: func(*World) {}}, HostConfig{})
	if err == nil || !strings.Contains(err.Error(), "NoInput") {
		t.Fatalf("a host of a game whose input has a size, without Input: %v; want an error naming NoInput", err)
	}
}
