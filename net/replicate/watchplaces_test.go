package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/tandem-go/tandem/ecs"
)

// bag is a component whose value is not all in its own bytes: its codec
// reads the slice's first number.
type bag struct{ N []int32 }

// The report check's watch names the system that wrote without a report
// whatever else changed in the world: an entity moved into the place of
// one removed (holding what it held), an entity spawned in the same step
// with two components, and a component whose value is in a slice (its
// bytes never change).
func TestTheWatchNamesTheWriterWhateverMoved(t *testing.T) {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	bagID := reg.ID(Register(reg, Codec[bag]{
		Name: "bag", Fields: 1,
		Quantize:   func(v *bag, q []int32) { q[0] = v.N[0] },
		Dequantize: func(q []int32, v *bag) { v.N = []int32{q[0]} },
		Equal:      func(a, b *bag) bool { return a.N[0] == b.N[0] },
	}))
	movers := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche())
	bags := generic.NewMap2[bag, ecs.NetworkIdentity](w.Arche())
	vel := generic.NewMap[ecs.Velocity](w.Arche())
	pos := generic.NewMap[ecs.Transform](w.Arche())
	bagOf := generic.NewMap[bag](w.Arche())
	first := movers.NewWith(&ecs.Transform{}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	last := movers.NewWith(&ecs.Transform{X: 5}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
	held := bags.NewWith(&bag{N: []int32{1}}, &ecs.NetworkIdentity{})
	var late arche.Entity // spawned later
	h := NewHost(reg, HostConfig{CheckReports: true})
	var spawn, cull, nudge, poke, tidy bool
	sched := ecs.NewSchedule(w, nil, 0)
	sched.Add("spawn", ecs.SystemFunc(func(*ecs.World) {
		if spawn {
			late = movers.NewWith(&ecs.Transform{X: 9}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
			spawn = false
		}
	})).Add("cull", ecs.SystemFunc(func(w *ecs.World) {
		if cull {
			// The last of the archetype takes the removed one's place, and
			// is written to hold what the removed one held.
			w.RemoveEntity(first)
			pos.Get(last).X = 0
			cull = false
		}
	})).Add("nudge", ecs.SystemFunc(func(*ecs.World) {
		if nudge {
			vel.Get(last).X += 3
			nudge = false
		}
	})).Add("poke", ecs.SystemFunc(func(*ecs.World) {
		if poke {
			bagOf.Get(held).N[0] = 7 // the slice's number, not its bytes
			poke = false
		}
	})).AddTo(ecs.StageOutput, "replicate", h).AddTo(ecs.StageOutput, "tidy", ecs.SystemFunc(func(*ecs.World) {
		if tidy {
			vel.Get(late).Y += 2
			tidy = false
		}
	}))
	sched.Watch = h.WatchSystem
	step := func() *UnreportedError { return watchedStep(sched) }
	for range 3 {
		if ue := step(); ue != nil {
			t.Fatalf("nothing written: %v", ue)
		}
	}

	// An entity moved into a removed entity's place is looked at anew,
	// though it holds the same bytes as the one that held the place.
	cull = true
	if ue := step(); ue == nil || ue.System != "cull" || ue.Component != "Transform" {
		t.Fatalf("a write to the entity moved into a removed one's place: %v, want cull named", ue)
	}
	ecs.MutateComponent(w, last, w.IDs.Transform)
	if ue := step(); ue != nil {
		t.Fatalf("after the report: %v", ue)
	}
	nudge = true
	if ue := step(); ue == nil || ue.System != "nudge" || ue.Component != "Velocity" {
		t.Fatalf("a write to the entity in its new place: %v, want nudge named", ue)
	}
	ecs.MutateComponent(w, last, w.IDs.Velocity)
	if ue := step(); ue != nil {
		t.Fatalf("after the report: %v", ue)
	}

	// Spawned in one step by one system, written without a report after
	// the replicator by another: the second is named, a step later.
	spawn, tidy = true, true
	if ue := step(); ue != nil {
		t.Fatalf("the step of the spawn: %v", ue)
	}
	if ue := step(); ue == nil || ue.System != "tidy" || ue.Component != "Velocity" {
		t.Fatalf("a write after the replicator to an entity spawned that step: %v, want tidy named", ue)
	}
	ecs.MutateComponent(w, late, w.IDs.Velocity)
	if ue := step(); ue != nil {
		t.Fatalf("after the report: %v", ue)
	}

	// A value held in a slice is quantized at every look.
	poke = true
	if ue := step(); ue == nil || ue.System != "poke" || ue.Component != "bag" {
		t.Fatalf("a write into a component's slice: %v, want poke named", ue)
	}
	ecs.MutateComponent(w, held, bagID)
	if ue := step(); ue != nil {
		t.Fatalf("after the report: %v", ue)
	}
}

// watchedStep steps sched and returns the UnreportedError it panicked
// with, or nil; another panic goes on.
func watchedStep(sched *ecs.Schedule) (ue *UnreportedError) {
	defer func() {
		if p := recover(); p != nil {
			if ue, _ = p.(*UnreportedError); ue == nil {
				panic(p)
			}
		}
	}()
	sched.Step()
	return nil
}

// An entity that leaves a place past the end of a shorter walk, is looked
// at elsewhere, and comes back to it holding the bytes the place
// remembers is looked at anew.
func TestTheWatchForgetsPlacesPastTheWalk(t *testing.T) {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	early := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.Arche())               // walked first
	later := generic.NewMap3[ecs.Transform, ecs.Velocity, ecs.NetworkIdentity](w.Arche()) // walked next
	vel := generic.NewMap[ecs.Velocity](w.Arche())
	a := early.NewWith(&ecs.Transform{}, &ecs.NetworkIdentity{})
	e := later.NewWith(&ecs.Transform{}, &ecs.Velocity{X: 1}, &ecs.NetworkIdentity{})
	h := NewHost(reg, HostConfig{CheckReports: true})
	var kill, set, mess bool
	sched := ecs.NewSchedule(w, nil, 0)
	sched.Add("kill", ecs.SystemFunc(func(w *ecs.World) {
		if kill {
			w.RemoveEntity(a) // e goes from the second place to the first
			kill = false
		}
	})).Add("set", ecs.SystemFunc(func(w *ecs.World) {
		if set {
			vel.Get(e).X = 2
			ecs.MutateComponent(w, e, w.IDs.Velocity)
			set = false
		}
	})).Add("mess", ecs.SystemFunc(func(w *ecs.World) {
		if mess {
			vel.Get(e).X = 1                                        // what the second place remembers, unreported
			early.NewWith(&ecs.Transform{}, &ecs.NetworkIdentity{}) // e is second again
			mess = false
		}
	})).AddTo(ecs.StageOutput, "replicate", h)
	sched.Watch = h.WatchSystem
	for _, flag := range []*bool{nil, nil, &kill, &set} {
		if flag != nil {
			*flag = true
		}
		if ue := watchedStep(sched); ue != nil {
			t.Fatalf("reported writes: %v", ue)
		}
	}
	mess = true
	if ue := watchedStep(sched); ue == nil || ue.Component != "Velocity" || ue.System != "mess" {
		t.Fatalf("an unreported write back to what a forgotten place held: %v, want mess named", ue)
	}
}

// What a system adds to an entity spawned in the same step before the
// replicator needs no report (the spawn carries it): the watch names no
// one for it, and a write after the replicator is laid at its system's door.
func TestTheWatchNamesNoOneForWhatASpawnCarries(t *testing.T) {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	posOnly := generic.NewMap2[ecs.Transform, ecs.NetworkIdentity](w.Arche())
	addVel := generic.NewMap1[ecs.Velocity](w.Arche())
	vel := generic.NewMap[ecs.Velocity](w.Arche())
	posOnly.NewWith(&ecs.Transform{}, &ecs.NetworkIdentity{})
	h := NewHost(reg, HostConfig{CheckReports: true})
	var late arche.Entity
	var spawn bool
	sched := ecs.NewSchedule(w, nil, 0)
	sched.Add("spawn", ecs.SystemFunc(func(*ecs.World) {
		if spawn {
			late = posOnly.NewWith(&ecs.Transform{X: 9}, &ecs.NetworkIdentity{})
		}
	})).Add("arm", ecs.SystemFunc(func(*ecs.World) {
		if spawn {
			addVel.Add(late)
		}
	})).AddTo(ecs.StageOutput, "replicate", h).AddTo(ecs.StageOutput, "tidy", ecs.SystemFunc(func(*ecs.World) {
		if spawn {
			vel.Get(late).Y += 2
			spawn = false
		}
	}))
	sched.Watch = h.WatchSystem
	for range 2 {
		if ue := watchedStep(sched); ue != nil {
			t.Fatalf("nothing written: %v", ue)
		}
	}
	spawn = true
	if ue := watchedStep(sched); ue != nil {
		t.Fatalf("the spawn's step: %v", ue)
	}
	if ue := watchedStep(sched); ue == nil || ue.Component != "Velocity" || ue.System != "tidy" {
		t.Fatalf("an unreported write after the replicator to what the spawn carried: %v, want tidy named", ue)
	}
}

// A codec that panics at the watch's look (a game's bug) leaves the world
// free, and the next look starts afresh: it does not look at the entities
// the panicked one meant to, which the game may have removed since.
func TestTheWatchRecoversFromACodecsPanic(t *testing.T) {
	w := ecs.NewWorld()
	reg := NewRegistry(w)
	Register(reg, Codec[bag]{
		Name: "bag", Fields: 1,
		Quantize:   func(v *bag, q []int32) { q[0] = v.N[0] }, // panics on an empty bag
		Dequantize: func(q []int32, v *bag) { v.N = []int32{q[0]} },
		Equal:      func(a, b *bag) bool { return a.N[0] == b.N[0] },
	})
	bags := generic.NewMap2[bag, ecs.NetworkIdentity](w.Arche())
	h := NewHost(reg, HostConfig{CheckReports: true})
	sched := ecs.NewSchedule(w, nil, 0)
	sched.AddTo(ecs.StageOutput, "replicate", h)
	sched.Watch = h.WatchSystem
	sched.Step()
	empty := bags.NewWith(&bag{}, &ecs.NetworkIdentity{})
	full := bags.NewWith(&bag{N: []int32{1}}, &ecs.NetworkIdentity{})
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the codec's panic was not passed on")
			}
		}()
		sched.Step()
	}()
	if w.Arche().IsLocked() {
		t.Fatal("the world is locked after a codec panicked at the watch's look")
	}
	w.Arche().RemoveEntity(empty)
	w.Arche().RemoveEntity(full)
	if ue := watchedStep(sched); ue != nil {
		t.Fatalf("the step after the game removed both: %v", ue)
	}
}
