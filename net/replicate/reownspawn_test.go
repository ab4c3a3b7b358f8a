package replicate

import (
	"math"
	"slices"
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// A new owner (or a lost component) goes to every peer as a spawn of an
// entity it holds, which gains as a change does, not as still decor
// entering a scope: while movers fill the budget, still entities the
// client holds (parked cars a player takes) are given to peer 7, others to
// the client itself, and others are nudged (a plain change), all at once:
// the new owners reach the client about as soon as the nudges. (The kinds'
// ids alternate: past the top priority, what waits takes turns by id, so
// one entity of each would measure where the turn stood; and under a full
// budget every change waits its turn, so what a new owner is measured
// against is a change made at the same time.)
func TestReownOfStillEntityGainsAsAChange(t *testing.T) {
	r := newRig(t, HostConfig{BitsPerSecond: 48_000})
	var movers []arche.Entity
	for i := range 60 {
		movers = append(movers, r.m.NewWith(&ecs.Transform{X: float64(i)}, &ecs.Velocity{}, &ecs.NetworkIdentity{}))
	}
	const each = 8
	var still, nudged, mine []arche.Entity
	for i := range each {
		x := -5 - 10*float64(i)
		still = append(still, r.m.NewWith(&ecs.Transform{X: x}, &ecs.Velocity{}, &ecs.NetworkIdentity{}))
		nudged = append(nudged, r.m.NewWith(&ecs.Transform{X: x - 2}, &ecs.Velocity{}, &ecs.NetworkIdentity{}))
		mine = append(mine, r.m.NewWith(&ecs.Transform{X: x - 4}, &ecs.Velocity{}, &ecs.NetworkIdentity{})) // still, given to the client itself
	}
	step := 0
	shift := func() float64 { // +50 a step, back by 4,800 every 97: they stay about where they are, never where they were
		step++
		if step%97 == 0 {
			return -96 * 50
		}
		return 50
	}
	move := func() {
		dx := shift()
		for _, e := range movers {
			r.move(e, dx)
		}
	}
	for range 1200 { // all in, then the movers saturate the budget
		move()
		r.stepDeliver()
	}
	for _, e := range slices.Concat(still, nudged, mine) {
		if _, ok := r.cw.EntityOf(mustID(r.w, e)); !ok {
			t.Fatal("the client does not hold the entity yet")
		}
	}
	for i := range each {
		ecs.SetOwner(r.w, still[i], 7)
		ecs.SetOwner(r.w, mine[i], 1)
		r.move(nudged[i], 1)
	}
	ownedBy := func(o ecs.PeerID) func(e arche.Entity) bool {
		return func(e arche.Entity) bool {
			ce, _ := r.cw.EntityOf(mustID(r.w, e))
			ni, _ := r.cw.Identity(ce)
			return ni.Owner == o
		}
	}
	nudgeArrived := func(e arche.Entity) bool {
		ce, _ := r.cw.EntityOf(mustID(r.w, e))
		return math.Abs((*ecs.Transform)(r.cw.Arche().Get(ce, r.cw.IDs.Transform)).X-r.tf.Get(e).X) < 0.1
	}
	// The send tick each entity's news reached the client in.
	reached := func(es []arche.Entity, arrived func(arche.Entity) bool, at []int, tick int) bool {
		all := true
		for i, e := range es {
			if at[i] == 0 && arrived(e) {
				at[i] = tick
			}
			all = all && at[i] != 0
		}
		return all
	}
	tStill, tNudged, tMine := make([]int, each), make([]int, each), make([]int, each)
	for tick := 1; tick <= 600; tick++ {
		move()
		r.stepDeliver()
		a, b, c := reached(still, ownedBy(7), tStill, tick), reached(nudged, nudgeArrived, tNudged, tick), reached(mine, ownedBy(1), tMine, tick)
		if a && b && c {
			break
		}
	}
	median := func(at []int) int {
		s := slices.Clone(at)
		slices.Sort(s)
		if s[0] == 0 {
			t.Fatalf("a new owner never reached the client: send ticks %v", at)
		}
		return s[len(s)/2]
	}
	ms, mn, mi := median(tStill), median(tNudged), median(tMine)
	t.Logf("deferred so far %d; news reached the client after a median of %d send ticks for the nudges, %d for the new owners, %d for the ones given to the client itself (%v, %v, %v)",
		r.h.Peer(1).Stats().Deferred, mn, ms, mi, tNudged, tStill, tMine)
	if ms > 3*mn/2 || mi > 3*mn/2 {
		t.Fatalf("the reown spawns of still entities took a median of %d send ticks (%d given to the client itself), a nudge of one %d: they aged as still decor entering", ms, mi, mn)
	}
}
