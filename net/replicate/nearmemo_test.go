package replicate

import (
	"math"
	"testing"

	"github.com/tandem-go/tandem/ecs"
)

// A peer whose units stand in many cells (an army spread over the map)
// weighs each change by its distance from the nearest of its squares,
// found once a cell a send tick (nearMemo): the weights are those found
// square by square, after the squares move and when a cell's place goes
// to another cell. (Every change looked at every square: a strategy trial's
// player of 1,500 units over the map held its host's step at 23.6 ms at
// the 99th percentile, 16.4 with the memo.)
func TestWeightsOfAPeerOfManySquaresAreThoseFoundSquareBySquare(t *testing.T) {
	r := newRig(t, HostConfig{Interest: InterestConfig{CellSize: 100, Radius: 1000, Near: 200, FarWeight: 0.25}})
	var units, others []int32
	for i := range 20 { // 20 cells of its own, in a line
		e := r.m.NewWith(&ecs.Transform{X: float64(i) * 700, Y: 0}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		ecs.SetOwner(r.w, e, 1)
		units = append(units, r.slotOfEntity(e))
	}
	for i := range 200 {
		e := r.m.NewWith(&ecs.Transform{X: float64(i) * 71, Y: float64(i%9) * 90}, &ecs.Velocity{}, &ecs.NetworkIdentity{})
		others = append(others, r.slotOfEntity(e))
	}
	r.settle()
	p := r.h.Peer(1)
	g := &r.h.grid
	bySquare := func(slot int32) float64 {
		c := &g.cells[r.h.ents[slot].cell]
		best := int64(math.MaxInt64)
		for _, o := range p.scope.at {
			best = min(best, max(dist(o.x, c.x), dist(o.y, c.y)))
		}
		return g.weight[min(best, g.r)]
	}
	check := func(when string) {
		g.focusCells(p)
		if len(p.scope.at) <= nearSquares {
			t.Fatalf("%s: %d squares: the memo is not used, and the test tests nothing", when, len(p.scope.at))
		}
		for round := range 2 { // the second from the memo
			for _, slot := range others {
				if got, want := g.weightOf(p, slot), bySquare(slot); got != want {
					t.Fatalf("%s, round %d: weight %v of slot %d; square by square %v", when, round, got, slot, want)
				}
			}
		}
	}
	check("at first")
	for i, slot := range units { // the army moves: every square does
		e, _, _ := r.w.SlotEntity(slot)
		r.tf.Get(e).X += 350 + float64(i)
		r.tf.Get(e).Y += 900
		ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
	}
	r.settle()
	check("after the squares moved")
	for _, slot := range others[:100] { // cells emptied, given back, taken by others
		e, _, _ := r.w.SlotEntity(slot)
		r.tf.Get(e).X += 30_000
		ecs.MutateComponent(r.w, e, r.w.IDs.Transform)
	}
	r.settle()
	check("after cells changed hands")
}
