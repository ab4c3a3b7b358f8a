package ecs

import (
	"reflect"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/listener"
)

// Frame numbers simulation steps. Frame 0 is the state before the first step;
// Schedule.Step simulates frame Frame()+1. At 60 Hz a uint32 lasts two years.
type Frame uint32

// CoreIDs are the arche component ids of the core components in one world.
type CoreIDs struct {
	Transform, Velocity, NetworkIdentity, Interpolated, Departing, HostMoved, Predicted arche.ID
}

// World is an arche world with Tandem's network index and change journal.
//
// Create it with NewWorld and use it through a pointer. Systems read and write
// components through arche on Arche(); structural changes (create, remove, add
// or remove a component) go through arche too, and the world observes those of
// networked entities through its listener.
//
// Not safe for concurrent use: a world belongs to the simulation goroutine.
type World struct {
	arche    arche.World
	dispatch listener.Dispatch
	// listeners counts those added with AddListener (the index is not).
	listeners int
	frame     Frame
	// IDs are the core components' ids in this world. Read only.
	IDs     CoreIDs
	journal Journal
	index   netIndex
	shards  shardState                // NewNetworked's
	types   map[reflect.Type]arche.ID // Get's and Mutate's lookups, as found
	// removing are the removals RemoveEntity deferred while a query held
	// the world locked, in the order asked for, and removingSet the same.
	removing    []arche.Entity
	removingSet map[arche.Entity]struct{}
	lin         lineage // the runs this world comes from (Lineage)
}

// NewWorld returns an empty world with the core components registered and the
// network index listening.
func NewWorld() *World {
	w := &World{arche: arche.NewWorld(), types: make(map[reflect.Type]arche.ID)}
	w.IDs = CoreIDs{
		Transform:       arche.ComponentID[Transform](&w.arche),
		Velocity:        arche.ComponentID[Velocity](&w.arche),
		NetworkIdentity: arche.ComponentID[NetworkIdentity](&w.arche),
		Interpolated:    arche.ComponentID[Interpolated](&w.arche),
		Departing:       arche.ComponentID[Departing](&w.arche),
		HostMoved:       arche.ComponentID[HostMoved](&w.arche),
		Predicted:       arche.ComponentID[Predicted](&w.arche),
	}
	w.journal.init()
	w.index.init(w)
	w.dispatch = listener.NewDispatch(&w.index)
	w.arche.SetListener(&w.dispatch)
	return w
}

// Arche returns the arche world that stores the entities. The pointer is valid
// for the life of w.
func (w *World) Arche() *arche.World { return &w.arche }

// Frame returns the current frame: the one being simulated during a step, the
// last one simulated between steps.
func (w *World) Frame() Frame { return w.frame }

// SetFrame sets the frame counter, for a client adopting the host's frame when
// it joins. It does not touch entities. A game built on package tandem does not call it: the engine does.
func (w *World) SetFrame(f Frame) { w.frame = f }

// Journal returns the change journal: what was reported since the end of the
// last step.
func (w *World) Journal() *Journal { return &w.journal }

// AddListener adds an arche listener. A world has one arche listener; this
// dispatches to every listener added, after the network index has seen the
// event.
func (w *World) AddListener(l arche.Listener) {
	w.dispatch.AddListener(l)
	w.listeners++
}

// Alive reports whether e is a live entity of w.
func (w *World) Alive(e arche.Entity) bool { return w.arche.Alive(e) }

// AddResource stores res as the world's resource of type T; a world holds at
// most one resource of each type. It panics if one is already present.
func AddResource[T any](w *World, res *T) {
	arche.AddResource(&w.arche, res)
}

// Resource returns the world's resource of type T, or nil if none was added.
func Resource[T any](w *World) *T {
	id := arche.ResourceID[T](&w.arche)
	if !w.arche.Resources().Has(id) {
		return nil
	}
	return arche.GetResource[T](&w.arche)
}
