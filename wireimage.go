package tandem

import (
	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
	"github.com/tandem-go/tandem/net/replicate"
)

// AppendWireImage appends to dst the wire image of entity e's replicated
// components and returns the extended slice: for each component the Game
// replicates, in its order, 1 and its fields as its codec quantizes them if
// e has it, else 0 and as many zeros. It is what the host sends of e, and
// what a client that applied it holds: two machines whose images of an
// entity are equal agree on it within every codec's precision (a test's
// check, tandemtest.Agree; a desync's hunt). Nothing is appended for an
// entity that is not alive, nor in a game alone, which replicates nothing.
// Call it on the simulation goroutine (inside Do or View, a system, a hook
// or an observer).
func (w *World) AppendWireImage(dst []int32, e arche.Entity) []int32 {
	r := w.reg
	if r == nil || !w.ECS.Alive(e) {
		return dst
	}
	a := w.ECS.Arche()
	for c := range r.Len() {
		comp := replicate.Component(c)
		n := r.Fields(comp)
		if !a.Has(e, r.ID(comp)) {
			dst = append(dst, 0)
			dst = append(dst, make([]int32, n)...)
			continue
		}
		dst = append(dst, 1)
		at := len(dst)
		dst = append(dst, make([]int32, n)...)
		r.Quantize(e, comp, dst[at:])
	}
	return dst
}

// AppendWireImageAt is AppendWireImage of entity e as this machine had it at
// the end of frame f, where that differs from what it holds now: a
// client's predicted body (ecs.Predicted), ahead of the host, is given the
// pose and velocity the client recorded for it at f (it keeps two seconds
// of them), so that it compares with the host's image of the same frame.
// Every other entity (one marked Predicted that the client does not
// predict: its own, or one without a body), and every other component, is
// as AppendWireImage gives it. ok is false, and nothing is appended, for a
// predicted body whose frame f the client has not recorded or no longer
// keeps.
// tandemtest.Agree compares predicted bodies so. Call it on the simulation
// goroutine.
func (w *World) AppendWireImageAt(dst []int32, e arche.Entity, f ecs.Frame) (_ []int32, ok bool) {
	if w.predictedAt == nil || !w.ECS.Alive(e) {
		return w.AppendWireImage(dst, e), true
	}
	pose, vel, recorded, predicted := w.predictedAt(e, f)
	switch {
	case !predicted:
		return w.AppendWireImage(dst, e), true
	case !recorded:
		return dst, false
	}
	// The recorded state goes in for the images to be taken, and what the
	// entity holds comes back: nothing else runs meanwhile.
	a := w.ECS.Arche()
	ids := &w.ECS.IDs
	if a.Has(e, ids.Transform) {
		t := (*ecs.Transform)(a.Get(e, ids.Transform))
		now := *t
		*t = pose
		defer func() { *t = now }()
	}
	if a.Has(e, ids.Velocity) {
		v := (*ecs.Velocity)(a.Get(e, ids.Velocity))
		now := *v
		*v = vel
		defer func() { *v = now }()
	}
	return w.AppendWireImage(dst, e), true
}
