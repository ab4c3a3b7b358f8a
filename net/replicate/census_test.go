package replicate

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/wire"
)

// archetypeCapacity returns the capacity of w's archetype with exactly the
// components of types (0 if there is none).
func archetypeCapacity(w *ecs.World, types ...reflect.Type) int {
	want := map[reflect.Type]bool{}
	for _, tp := range types {
		want[tp] = true
	}
nodes:
	for _, n := range w.Arche().Stats().Nodes {
		if len(n.ComponentTypes) != len(want) {
			continue
		}
		for _, tp := range n.ComponentTypes {
			if !want[tp] {
				continue nodes
			}
		}
		return n.Capacity
	}
	return 0
}

var (
	typeNI     = reflect.TypeFor[ecs.NetworkIdentity]()
	typeInterp = reflect.TypeFor[ecs.Interpolated]()
	typeTf     = reflect.TypeFor[ecs.Transform]()
	typeVel    = reflect.TypeFor[ecs.Velocity]()
)

// TestJoinCensusReservesStorageOnce: the first page says what the join
// brings, by components and ownership; the client makes room for each group
// before the pages fill it, so its archetypes never grow during the join.
func TestJoinCensusReservesStorageOnce(t *testing.T) {
	const props, mine = 3000, 10
	w, reg, sched := bigWorld(props, 0)
	own := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	for range mine {
		own.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{Owner: 1})
	}
	h := NewHost(reg, HostConfig{JoinPage: 2 << 10})
	sched.Add("replicate", h)
	out := &capture{}
	h.AddPeer(1, out)
	for len(out.lane) == 0 || wire.Kind(out.lane[len(out.lane)-1][0]) != wire.KindJoinFinal {
		sched.Step()
	}
	cw := ecs.NewWorld()
	// Every reading of the clock passes the slice: one page a Pump.
	creg := NewRegistry(cw)
	c := NewClient(creg, ClientConfig{Local: 1, Clock: &stepClock{now: time.Unix(0, 0), step: time.Second}})
	for _, m := range out.lane {
		if _, err := c.HandleLane(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Pump(); err != nil {
		t.Fatal(err)
	}
	if got := cw.Networked(); got >= props {
		t.Fatalf("the first Pump made %d entities; the test needs a join of many pages", got)
	}
	remote := archetypeCapacity(cw, typeNI, typeInterp, typeTf, typeVel)
	local := archetypeCapacity(cw, typeNI, typeTf, typeVel)
	if remote < props || local < mine {
		t.Fatalf("after the first page: room for %d props and %d own entities, want %d and %d", remote, local, props, mine)
	}
	for !c.Joined() {
		if err := c.Pump(); err != nil {
			t.Fatal(err)
		}
	}
	if cw.Networked() != props+mine {
		t.Fatalf("client holds %d entities, want %d", cw.Networked(), props+mine)
	}
	if r, l := archetypeCapacity(cw, typeNI, typeInterp, typeTf, typeVel), archetypeCapacity(cw, typeNI, typeTf, typeVel); r != remote || l != local {
		t.Fatalf("the archetypes grew during the join: %d → %d, %d → %d", remote, r, local, l)
	}
	checkImage(t, &scene{w: w, reg: reg}, cw, creg)

	// MaxJoinReserve bounds what a census reserves.
	c = NewClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 1, MaxJoinReserve: 100})
	c.HandleLane(out.lane[0])
	if err := c.Pump(); err != nil {
		t.Fatal(err)
	}
	if c.reserved != 100 {
		t.Fatalf("reserved %d entities, MaxJoinReserve 100", c.reserved)
	}
}

// TestJoinCensusOfAnUnknownComponentIsRefused: a census group naming a
// component the client does not know is malformed, like an item with one.
func TestJoinCensusOfAnUnknownComponentIsRefused(t *testing.T) {
	c := NewClient(NewRegistry(ecs.NewWorld()), ClientConfig{Local: 1})
	page := []byte{byte(wire.KindJoinPage), 1, 1, 1}
	page = wire.AppendUvarint(page, 1<<15<<1)
	page = append(page, 1, 0)
	if _, err := c.HandleLane(page); err != nil {
		t.Fatal(err)
	}
	if err := c.Pump(); !errors.Is(err, ErrUnknownComponent) {
		t.Fatalf("Pump: %v, want ErrUnknownComponent", err)
	}
	if c.reserved != 0 {
		t.Fatalf("a refused census reserved %d entities", c.reserved)
	}
}
