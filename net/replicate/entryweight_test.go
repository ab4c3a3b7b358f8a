package replicate

import (
	"testing"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/tandem-go/tandem/ecs"
)

// slotOfEntity returns the host slot of e.
func (r *rig) slotOfEntity(e arche.Entity) int32 {
	slot, ok := r.w.NetSlot(e)
	if !ok {
		r.t.Fatal("not networked")
	}
	return int32(slot)
}

// A camera cut (Focus) into a group of moving bodies, some at the new
// focus, some nine cells from it: each entering body is weighed by its
// distance from the square that brings it (not from where the peer's
// squares were at the last send tick, which would weigh them all at the
// radius's edge), so the bodies beside the camera, with the highest ids,
// come at the first send tick.
func TestEntryWeighsFromTheSquareThatBringsIt(t *testing.T) {
	r, far, near := farAndNear(t, 150, 50, 5)
	for range 30 { // all of them move: movers
		for _, e := range append(far, near...) {
			r.move(e, 0.5)
		}
		r.stepDeliver()
	}
	r.h.Focus(1, 50_000, 0) // the cut
	p := r.h.Peer(1)
	nearPr, farPr := p.slots[r.slotOfEntity(near[0])].prio, p.slots[r.slotOfEntity(far[0])].prio
	// What the weights are with the peer's focus where it is now.
	r.h.grid.focusCells(p)
	wantNear, wantFar := p.entryPriority(r.slotOfEntity(near[0])), p.entryPriority(r.slotOfEntity(far[0]))
	t.Logf("entry priority of a mover at the new focus %d, of one 9 cells from it %d; from the focus as it is now: %d and %d",
		nearPr, farPr, wantNear, wantFar)
	for _, e := range append(far, near...) {
		r.move(e, 0.5)
	}
	r.stepDeliver() // the first send tick after the cut
	got := 0
	for _, e := range near {
		if _, ok := r.cw.EntityOf(mustID(r.w, e)); ok {
			got++
		}
	}
	t.Logf("after the first send tick the client holds %d entities, %d of the 5 at the camera", r.cw.Networked(), got)
	if nearPr != wantNear || got < len(near) {
		t.Fatalf("a mover beside the new focus entered at %d (as far as the radius, from the old focus), not %d; %d of the 5 beside the camera came in the first send tick, behind far ones of lower ids", nearPr, wantNear, got)
	}
}

// Still decor entering enters at the bottom of what is due whatever its
// distance, and gains faster the nearer it is (decorGain): props beside a
// camera come ahead of props at the radius's edge with lower ids, a few
// of those at most before them (those of the first send tick, in id
// order).
func TestDecorEntriesNearFirst(t *testing.T) {
	r, far, near := farAndNear(t, 600, 60, 20)
	for range 70 { // still for over moverFrames: decor
		r.stepDeliver()
	}
	r.h.Focus(1, 50_000, 0)
	p := r.h.Peer(1)
	r.h.grid.focusCells(p) // weights from the new focus (see the test above)
	nf, ff := r.h.grid.weightOf(p, r.slotOfEntity(near[0])), r.h.grid.weightOf(p, r.slotOfEntity(far[0]))
	np, fp := p.entryPriority(r.slotOfEntity(near[0])), p.entryPriority(r.slotOfEntity(far[0]))
	t.Logf("weights from the new focus: near %.2f, far %.2f; entry priorities near %d, far %d", nf, ff, np, fp)
	ticks, farFirst := 0, 0
	for ; ticks < 600; ticks++ {
		r.stepDeliver()
		n := 0
		for _, e := range near {
			if _, ok := r.cw.EntityOf(mustID(r.w, e)); ok {
				n++
			}
		}
		if n == len(near) {
			break
		}
	}
	for _, e := range far {
		if _, ok := r.cw.EntityOf(mustID(r.w, e)); ok {
			farFirst++
		}
	}
	t.Logf("the 20 props beside the camera were all in after %d send ticks, %d of the 600 far props before them", ticks+1, farFirst)
	if ticks > 8 || farFirst > len(far)/10 {
		t.Fatalf("nearness does not order still decor: near and far props enter at %d and %d; the near all in after %d send ticks, %d of the 600 far props before them", np, fp, ticks+1, farFirst)
	}
}

// farAndNear is a rig whose client sees only around (0, 0), and beyond its
// sight nFar entities created first (lower ids), perRow to a row, nine
// cells from (50,000, 0), and nNear beside that point: where a camera cut
// goes.
func farAndNear(t *testing.T, nFar, perRow, nNear int) (r *rig, far, near []arche.Entity) {
	t.Helper()
	r = newRig(t, HostConfig{
		Interest:      InterestConfig{CellSize: 100, Radius: 1000, Near: 200, FarWeight: 0.25},
		BitsPerSecond: 64_000,
	})
	r.h.Focus(1, 0, 0)
	for i := range nFar {
		far = append(far, r.m.NewWith(&ecs.Transform{X: 50_900 + float64(i%perRow), Y: float64(i / perRow)}, &ecs.Velocity{}, &ecs.NetworkIdentity{}))
	}
	for i := range nNear {
		near = append(near, r.m.NewWith(&ecs.Transform{X: 50_010 + float64(i), Y: 10}, &ecs.Velocity{}, &ecs.NetworkIdentity{}))
	}
	r.settle()
	return r, far, near
}
