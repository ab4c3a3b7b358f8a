package tandem

import (
	arche "github.com/mlange-42/arche/ecs"

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
